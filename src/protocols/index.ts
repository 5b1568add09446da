export * from './debate/index.js';
export * from './drf/index.js';
export * from './pubsub/index.js';
export type { SessionOptions, SessionProgress, SessionSummary } from './session.js';
