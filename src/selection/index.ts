export type * from './selector.js';
export * from './all.js';
export * from './random-k.js';
export * from './top-k.js';
export * from './ucb.js';
export * from './registry.js';
