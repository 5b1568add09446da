export * from './run-drf.js';
export * from './drf-round.js';
export * from './rating-source.js';
export * from './rater-credibility.js';
export * from './team-answer.js';
export * from './cost-ledger.js';
export * from './drf-parts.js';
export * from './experiments/index.js';
