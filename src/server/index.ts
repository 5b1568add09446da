export { createApp, defaultAssetsDir, tokenMatches } from './app.js';
export type { CreateAppOptions, ServedTeam, ServerClock } from './context.js';
export { startServer, isLoopbackHost } from './start-server.js';
export type { RunningServer, StartServerOptions } from './start-server.js';
export { buildOpenApiDocument } from './routes/openapi.js';
export { describeRun, listDecisions, reputationSeries } from './run-views.js';
export type {
  AgentWeightView,
  DecisionPage,
  MethodDecisionView,
  MethodView,
  ReputationSeries,
  RunView,
  UsageTotals,
} from './run-views.js';
export { describeTeamReputation, listTeams } from './team-views.js';
export type { TeamReputationView, TeamSummary } from './team-views.js';
export { listReplays, readReplay, parseConditionsCsv } from './replay-views.js';
export type { ReplayListing, ReplayView } from './replay-views.js';
export { createTeamService, promptOf, serveInstanceId, serveRunId } from './team-service.js';
export type { ChatMessage, ServedWeight, TeamAnswer, TeamService, TeamServiceOptions } from './team-service.js';
export {
  createDecisionTelemetry,
  decisionTelemetryFromEnvironment,
  type DecisionTelemetry,
  type DecisionTelemetryOptions,
  type ExportedDecision,
} from './otel-telemetry.js';
