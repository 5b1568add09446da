export type * from './agent.js';
export * from './simulation-world.js';
export * from './simulated-agent.js';
export * from './demo-team.js';
export * from './live-agent.js';
export * from './live-prompts.js';
export * from './replayed-agent.js';
