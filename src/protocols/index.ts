export * from './debate/index.js';
export * from './drf/index.js';
export * from './pubsub/index.js';
export type { SessionOptions, SessionProgress, SessionSummary } from './session.js';
export type { SessionStore } from './session.js';
export {
  comparedMethodFigures,
  methodFigures,
  type Protocol,
  type ProtocolConfig,
  type ProtocolConfigProblem,
  type ProtocolMethodFigures,
  type ProtocolReport,
  type ProtocolRun,
  type ProtocolRunConfigInput,
  type ProtocolRunInput,
  type ProtocolSession,
  type ProtocolSessionResult,
  type ProtocolSpend,
} from './protocol.js';
export { getProtocol, protocolTypes, registerProtocol, UnknownProtocolError } from './registry.js';
export {
  eachTask,
  runSession,
  type FinishedTask,
  type RunSessionOptions,
  type RunSessionSummary,
  type SessionRunner,
  type TaskOutcome,
} from './run-session.js';
