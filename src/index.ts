// The root entry: the names a first user needs (the quick start's, one factory per part of each
// concept, the main types), at most 80 (test/core/root-exports.test.ts counts them). Everything else
// is exported from its concept's subpath (`repute/core`, `repute/reputation`, `repute/protocols`,
// ...; package.json `exports`); `repute/testing`, `repute/server` and `repute/cli` are not
// re-exported here, nor are `_`-prefixed internals. docs/architecture.md lists this surface.

// core: randomness, tracing, errors, and the shapes every part shares.
export {
  ConvergenceError,
  createMemoryTraceSink,
  createRng,
  createTracer,
  InvalidArgumentError,
  NotFoundError,
  ProviderError,
  ReputeError,
} from './core/index.js';
export type {
  AgentId,
  AgentIdentity,
  AnswerKind,
  Proposal,
  Rating,
  Rng,
  Task,
  TraceSink,
  Tracer,
} from './core/index.js';

// Reputation models: the registry's factory and one factory per model.
export {
  createBetaModel,
  createDrfModel,
  createEigenTrustModel,
  createMiniRepModel,
  createReputationModel,
  createSingleMetricModel,
} from './reputation/index.js';
export type { Evidence, ReputationModel } from './reputation/index.js';

// Selectors.
export {
  createAllSelector,
  createRandomKSelector,
  createSelector,
  createTopKSelector,
  createUcbSelector,
} from './selection/index.js';
export type { Selection, Selector } from './selection/index.js';

// Aggregators.
export {
  createAggregator,
  createMiniRepAggregator,
  createPluralityAggregator,
  createWeightedPluralityAggregator,
} from './aggregation/index.js';
export type { Aggregator, Decision } from './aggregation/index.js';

// Agents: live (an LLM), simulated (the demo's world), replayed (recorded answers).
export {
  createDemoTeam,
  createLiveAgent,
  createReplayedAgent,
  createSimulatedAgent,
  createSimulationWorld,
  demoTeam,
} from './agents/index.js';
export type { Agent } from './agents/index.js';

// Tasks.
export { generateTasks, loadTasks } from './tasks/index.js';

// Protocols: debate (with MiniRep's peer filter), DRF, RAPS, and the part that runs any of them.
export {
  createDebateMethod,
  getProtocol,
  miniRepPeerFilter,
  registerProtocol,
  runDebate,
  runDebateSession,
  runDrf,
  runDrfSession,
  runRaps,
  runRapsSession,
  runSession,
} from './protocols/index.js';
export type {
  DebateMethod,
  DebateResult,
  Feedback,
  Protocol,
  ProtocolConfig,
  RunDebateOptions,
  SessionRunner,
} from './protocols/index.js';

// LLM access, the store, evaluation, transport and embeddings: their entry points.
export { createCompletion, createLanguageModel } from './llm/index.js';
export { createStoreTraceSink, openStore } from './store/index.js';
export type { Store } from './store/index.js';
export { runDemo, runReplay } from './eval/index.js';
export { createInProcessBus } from './transport/index.js';
export { createHashedNgramEmbedder } from './embeddings/index.js';
