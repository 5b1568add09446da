export * from './core/index.js';
export * from './reputation/index.js';
export * from './selection/index.js';
export * from './aggregation/index.js';
export * from './agents/index.js';
export * from './store/index.js';
export * from './tasks/index.js';
export * from './protocols/debate/index.js';
