export * from './proposals/index.js';
export * from './replay/index.js';
export * from './sandbox/index.js';
