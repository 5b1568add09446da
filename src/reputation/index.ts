export type * from './reputation-model.js';
