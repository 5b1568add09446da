export type * from './selector.js';
