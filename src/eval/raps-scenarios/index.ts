export * from './scenarios.js';
export * from './qa-team.js';
export * from './code-review.js';
export * from './nats-run.js';
export * from './adversarial-seeds.js';
export * from './paper-setting.js';
