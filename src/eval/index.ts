export * from './proposals/index.js';
export * from './replay/index.js';
export * from './sandbox/index.js';
export * from './demo/index.js';
export * from './drf-experiments/index.js';
export * from './raps-scenarios/index.js';
export * from './zoo/index.js';
