export type * from './agent.js';
