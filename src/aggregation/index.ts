export type * from './aggregator.js';
export * from './plurality.js';
export * from './verifier.js';
export * from './simulated-verifier.js';
export * from './minirep-behaviour.js';
export * from './minirep-analyzer.js';
export * from './minirep-bloc.js';
export * from './minirep-aggregator.js';
export * from './registry.js';
