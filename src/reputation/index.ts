export type * from './reputation-model.js';
export * from './validate-evidence.js';
export * from './beta.js';
export * from './eigentrust.js';
export * from './drf.js';
export * from './single-metric.js';
export * from './registry.js';
export * from './minirep.js';
