// The curated root: every concept's public API. Subpaths (`repute/reputation`, `repute/store`, ...) load one
// concept only; `repute/testing` and `repute/cli` are not re-exported here, nor are `_`-prefixed internals.
export * from './core/index.js';
export * from './reputation/index.js';
export * from './selection/index.js';
export * from './aggregation/index.js';
export * from './agents/index.js';
export * from './store/index.js';
export * from './tasks/index.js';
export * from './protocols/index.js';
export * from './llm/index.js';
export * from './eval/index.js';
export * from './embeddings/index.js';
export * from './transport/index.js';
