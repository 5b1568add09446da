export * from './sign.js';
export * from './collusion.js';
export * from './capability.js';
export * from './cost.js';
export * from './simulated-pool.js';
export * from './experiment-hooks.js';
export { createExperimentSelector } from './experiment-selector.js';
export {
  formatBudgetTable,
  formatCapabilityTable,
  formatCollusionTable,
  formatCostTable,
  formatSignTable,
} from './format.js';
export type { MeanInterval } from './stats.js';
export * from './drf-config.js';
export * from './tune.js';
export * from './budget.js';
export * from './replay-pool.js';
