import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  createDemoTeam,
  createLiveAgent,
  createReplayedAgent,
  createSimulatedAgent,
  createSimulationWorld,
} from '../../src/agents/index.js';
import {
  analyzeProposals,
  checkBehaviour,
  createAggregator,
  createBlocTracker,
  createMiniRepAggregator,
  createPeerHistory,
  createPosteriorHistory,
  createSimulatedVerifier,
} from '../../src/aggregation/index.js';
import {
  createExactAnswerKind,
  createMathAnswerKind,
  createNumberAnswerKind,
  createTracer,
  InvalidArgumentError,
  normalizeExactAnswer,
  type Task,
} from '../../src/core/index.js';
import { createHashedNgramEmbedder } from '../../src/embeddings/index.js';
import {
  buildQaTeam,
  createExecutionVerifier,
  createRapsScenario,
  createReviewerAgent,
  readLines,
  runAdversarialSeeds,
  runCapabilityExperiment,
  runCodeTests,
  runCollusionExperiment,
  runCostExperiment,
  runDemo,
  runDrfTuning,
  runRapsScenario,
  runRapsScenarioOverNats,
  runReplay,
  runScaling,
  runSignExperiment,
  scoreCodeAnswer,
  serveRapsNodeOverNats,
  spawnRapsNodeProcess,
} from '../../src/eval/index.js';
import {
  createAiSdkEmbedder,
  createCacheMiddleware,
  createCompletion,
  createConcurrencyMiddleware,
  createLanguageModel,
  createLedgerMiddleware,
  createLlmJudgeVerifier,
  createOpenAICompatibleEmbedder,
  createProviderLimiter,
  createRetryMiddleware,
  createTimeoutMiddleware,
  wrapWithPlumbing,
} from '../../src/llm/index.js';
import {
  agreementRatingSource,
  createBroker,
  createDebateMethod,
  createDrfParts,
  createExpectedCostLedger,
  createPromptRouteSelector,
  miniRepPeerFilter,
  reputationPeerFilter,
  runDebate,
  runDebateSession,
  runDrf,
  runDrfSession,
  runRaps,
  runRapsSession,
  simulatedJudgeRatingSource,
  startRapsNode,
} from '../../src/protocols/index.js';
import {
  BetaReputationModel,
  computeEigentrust,
  createBetaModel,
  createDrfModel,
  createEigenTrustModel,
  createMiniRepModel,
  createReputationModel,
  createSingleMetricModel,
  DrfReputationModel,
  drfReputationStep,
  eigentrust,
  EigenTrustReputationModel,
  MiniRepReputationModel,
  SingleMetricReputationModel,
} from '../../src/reputation/index.js';
import { createSelector, createTopKSelector, createUcbSelector } from '../../src/selection/index.js';
import { createStoreTraceSink, openStore } from '../../src/store/index.js';
import { generateTasks } from '../../src/tasks/index.js';
import { connectNatsTransport, createInProcessBus, startNatsServer } from '../../src/transport/index.js';

// Every public factory that takes an options object refuses a key it does not know, naming it in
// `parameter` and suggesting the known key it is nearest to (edit distance ≤ 2, or a prefix). The
// options are typed loosely on purpose: a caller writing plain JavaScript, or building the options
// from a file, gets no help from the compiler.

// biome-ignore lint/suspicious/noExplicitAny: the misspelt options are what the compiler would refuse
type Loose = any;

const agents = ['a1', 'a2'];
const task: Task = { id: 't1', kind: 'exact', prompt: 'q' };
const model = () => createMiniRepModel({ agents });
const identity = { id: 'a1', model: 'm1' };

interface Case {
  /** The call, misspelt. */
  readonly call: () => unknown;
  /** The error's `parameter`. */
  readonly parameter: string;
  /** The error's message, or its start when the list of known options is long. */
  readonly message: string;
}

const cases: Record<string, Case> = {
  // Reputation models, by factory, by constructor and by registry name.
  createBetaModel: {
    call: () => createBetaModel({ agents, lamda: 0.9 } as Loose),
    parameter: 'options.lamda',
    message:
      'unknown option "lamda" of createBetaModel; did you mean "lambda"? Known options: agents, lambda, delta, omega, tau, witnessCredibility',
  },
  'new BetaReputationModel': {
    call: () => new BetaReputationModel({ agents, lamda: 0.9 } as Loose),
    parameter: 'options.lamda',
    message: 'unknown option "lamda" of new BetaReputationModel; did you mean "lambda"?',
  },
  createDrfModel: {
    call: () => createDrfModel({ agents, intialReputation: 0.4 } as Loose),
    parameter: 'options.intialReputation',
    message: 'unknown option "intialReputation" of createDrfModel; did you mean "initialReputation"?',
  },
  'new DrfReputationModel': {
    call: () => new DrfReputationModel({ agents, varient: 'printed' } as Loose),
    parameter: 'options.varient',
    message: 'unknown option "varient" of new DrfReputationModel; did you mean "variant"?',
  },
  createEigenTrustModel: {
    call: () => createEigenTrustModel({ agents, alpah: 0.2 } as Loose),
    parameter: 'options.alpah',
    message:
      'unknown option "alpah" of createEigenTrustModel; did you mean "alpha"? Known options: agents, preTrusted, alpha, epsilon, maxIterations',
  },
  'new EigenTrustReputationModel': {
    call: () => new EigenTrustReputationModel({ agents, preTrust: ['a1'] } as Loose),
    parameter: 'options.preTrust',
    message: 'unknown option "preTrust" of new EigenTrustReputationModel; did you mean "preTrusted"?',
  },
  createMiniRepModel: {
    call: () => createMiniRepModel({ agents, longTermRat: 0.1 } as Loose),
    parameter: 'options.longTermRat',
    message: 'unknown option "longTermRat" of createMiniRepModel; did you mean "longTermRate"?',
  },
  'new MiniRepReputationModel': {
    call: () => new MiniRepReputationModel({ agents, prio: 0.5 } as Loose),
    parameter: 'options.prio',
    message: 'unknown option "prio" of new MiniRepReputationModel; did you mean "prior"?',
  },
  createSingleMetricModel: {
    call: () => createSingleMetricModel({ agents, initalQuality: 0.5 } as Loose),
    parameter: 'options.initalQuality',
    message:
      'unknown option "initalQuality" of createSingleMetricModel; did you mean "initialQuality"? Known options: agents, eta, initialQuality',
  },
  'new SingleMetricReputationModel': {
    call: () => new SingleMetricReputationModel({ agents, learningRate: 0.5 } as Loose),
    parameter: 'options.learningRate',
    message:
      'unknown option "learningRate" of new SingleMetricReputationModel; remove it. Known options: agents, eta, initialQuality',
  },
  // The registry passes the options on to the model's factory, which names itself.
  createReputationModel: {
    call: () => createReputationModel('beta', { agents, lamda: 0.9 } as Loose),
    parameter: 'options.lamda',
    message: 'unknown option "lamda" of createBetaModel; did you mean "lambda"?',
  },
  computeEigentrust: {
    call: () => computeEigentrust({ localTrust: [[1]], preTrust: [1], maxIteration: 5 } as Loose),
    parameter: 'input.maxIteration',
    message: 'unknown option "maxIteration" of computeEigentrust; did you mean "maxIterations"?',
  },
  eigentrust: {
    call: () => eigentrust({ localTrust: [[1]], preTrust: [1], epsilom: 1e-6 } as Loose),
    parameter: 'input.epsilom',
    message: 'unknown option "epsilom" of eigentrust; did you mean "epsilon"?',
  },
  drfReputationStep: {
    call: () => drfReputationStep({ reputations: { a1: 0.5 }, ratings: [], w00: 0.5 } as Loose),
    parameter: 'input.w00',
    message: 'unknown option "w00" of drfReputationStep; did you mean "w0"?',
  },

  // Selectors.
  createTopKSelector: {
    call: () => createTopKSelector({ tiebreak: 'random' } as Loose),
    parameter: 'options.tiebreak',
    message: 'unknown option "tiebreak" of createTopKSelector; did you mean "tieBreak"? Known options: tieBreak',
  },
  createUcbSelector: {
    call: () => createUcbSelector({ thresold: 0.3 } as Loose),
    parameter: 'options.thresold',
    message:
      'unknown option "thresold" of createUcbSelector; did you mean "threshold"? Known options: delta, exploration, threshold, variant, whenTooFew, tieBreak',
  },
  "createSelector('all')": {
    call: () => createSelector('all', { k: 3 } as Loose),
    parameter: 'options.k',
    message: "unknown option \"k\" of createSelector('all'); createSelector('all') takes no options; remove it",
  },
  "createSelector('random-k')": {
    call: () => createSelector('random-k', { tieBreak: 'random' } as Loose),
    parameter: 'options.tieBreak',
    message: "unknown option \"tieBreak\" of createSelector('random-k'); createSelector('random-k') takes no options",
  },
  "createSelector('ucb')": {
    call: () => createSelector('ucb', { delt: 0.5 } as Loose),
    parameter: 'options.delt',
    message: 'unknown option "delt" of createUcbSelector; did you mean "delta"?',
  },

  // Aggregators, MiniRep's parts and verifiers.
  createMiniRepAggregator: {
    call: () => createMiniRepAggregator({ model: model(), kk: 7 } as Loose),
    parameter: 'options.kk',
    message: 'unknown option "kk" of createMiniRepAggregator; did you mean "k"? Known options: model, k, verifier,',
  },
  'createMiniRepAggregator bloc': {
    call: () => createMiniRepAggregator({ model: model(), bloc: { minSze: 3 } } as Loose),
    parameter: 'options.bloc.minSze',
    message:
      'unknown option "bloc.minSze" of createMiniRepAggregator; did you mean "bloc.minSize"? Known bloc options: decay, threshold, exclusivity, verified, minSize',
  },
  // Checked even when `history` does not use the part.
  'createMiniRepAggregator peerHistory': {
    call: () => createMiniRepAggregator({ model: model(), peerHistory: { decy: 0.9 } } as Loose),
    parameter: 'options.peerHistory.decy',
    message: 'unknown option "peerHistory.decy" of createMiniRepAggregator; did you mean "peerHistory.decay"?',
  },
  'createMiniRepAggregator posteriorHistory': {
    call: () =>
      createMiniRepAggregator({ model: model(), history: 'posterior', posteriorHistory: { colision: 0.1 } } as Loose),
    parameter: 'options.posteriorHistory.colision',
    message:
      'unknown option "posteriorHistory.colision" of createMiniRepAggregator; did you mean "posteriorHistory.collision"?',
  },
  "createAggregator('plurality')": {
    call: () => createAggregator('plurality', { k: 3 } as Loose),
    parameter: 'options.k',
    message: "unknown option \"k\" of createAggregator('plurality'); createAggregator('plurality') takes no options",
  },
  "createAggregator('weighted-plurality')": {
    call: () => createAggregator('weighted-plurality', { weights: {} } as Loose),
    parameter: 'options.weights',
    message: 'unknown option "weights" of createAggregator(\'weighted-plurality\');',
  },
  "createAggregator('minirep')": {
    call: () => createAggregator('minirep', { model: model(), rejectFactor: 0 } as Loose),
    parameter: 'options.rejectFactor',
    message: 'unknown option "rejectFactor" of createMiniRepAggregator; did you mean "rejectedFactor"?',
  },
  createBlocTracker: {
    call: () => createBlocTracker({ treshold: 0.5 } as Loose),
    parameter: 'options.treshold',
    message: 'unknown option "treshold" of createBlocTracker; did you mean "threshold"?',
  },
  createPeerHistory: {
    call: () => createPeerHistory({ priorAgre: 1 } as Loose),
    parameter: 'options.priorAgre',
    message: 'unknown option "priorAgre" of createPeerHistory; did you mean "priorAgree"?',
  },
  createPosteriorHistory: {
    call: () => createPosteriorHistory({ noneScor: 0 } as Loose),
    parameter: 'options.noneScor',
    message: 'unknown option "noneScor" of createPosteriorHistory; did you mean "noneScore"?',
  },
  createSimulatedVerifier: {
    call: () => createSimulatedVerifier({ seed: 1, isCorrect: () => true, sensitivty: 0.9 } as Loose),
    parameter: 'options.sensitivty',
    message:
      'unknown option "sensitivty" of createSimulatedVerifier; did you mean "sensitivity"? Known options: isCorrect, seed, sensitivity, specificity',
  },
  analyzeProposals: {
    call: () => analyzeProposals({ task, proposals: [], agents: [], verdict: {} } as Loose),
    parameter: 'verdict',
    message: 'unknown option "verdict" of analyzeProposals; did you mean "verdicts"?',
  },
  'analyzeProposals options': {
    call: () => analyzeProposals({ task, proposals: [], agents: [], options: { verifierWieght: 0.5 } } as Loose),
    parameter: 'options.verifierWieght',
    message: 'unknown option "verifierWieght" of analyzeProposals; did you mean "verifierWeight"?',
  },
  'checkBehaviour options': {
    call: () => checkBehaviour({ proposals: [], options: { flagCap: 0.3 } } as Loose),
    parameter: 'options.flagCap',
    message:
      'unknown option "flagCap" of checkBehaviour; did you mean "flagCapFraction"? Known options: overrideSuspicion, falseClaimSuspicion, flipSuspicion, flagCapFraction',
  },

  // Agents.
  createLiveAgent: {
    call: () => createLiveAgent({ identity, complete: async () => ({}), peerTextLimt: 100 } as Loose),
    parameter: 'peerTextLimt',
    message:
      'unknown option "peerTextLimt" of createLiveAgent; did you mean "peerTextLimit"? Known options: identity, complete, prompts, peerTextLimit',
  },
  'createLiveAgent prompts': {
    call: () => createLiveAgent({ identity, complete: async () => ({}), prompts: { proposal: () => '' } } as Loose),
    parameter: 'prompts.proposal',
    message:
      'unknown option "prompts.proposal" of createLiveAgent; did you mean "prompts.propose"? Known prompts options: system, propose, revise, rate, audit, refineSubscription',
  },
  createReplayedAgent: {
    call: () => createReplayedAgent({ identity, answer: new Map() } as Loose),
    parameter: 'answer',
    message: 'unknown option "answer" of createReplayedAgent; did you mean "answers"? Known options: identity, answers',
  },
  createSimulatedAgent: {
    call: () => createSimulatedAgent({ identity, profile: { skill: 0.7 }, world: {}, seed: 1, latency: 5 } as Loose),
    parameter: 'latency',
    message: 'unknown option "latency" of createSimulatedAgent; did you mean "latencyMs"?',
  },
  'createSimulatedAgent profile': {
    call: () =>
      createSimulatedAgent({ identity, profile: { skill: 0.7, conformaty: 0.3 }, world: {}, seed: 1 } as Loose),
    parameter: 'profile.conformaty',
    message: 'unknown option "profile.conformaty" of createSimulatedAgent; did you mean "profile.conformity"?',
  },
  'createSimulatedAgent profile.adversary': {
    call: () =>
      createSimulatedAgent({
        identity,
        profile: { skill: 0.7, adversary: { strategy: 'payload', coalitoin: 'x' } },
        world: {},
        seed: 1,
      } as Loose),
    parameter: 'profile.adversary.coalitoin',
    message:
      'unknown option "profile.adversary.coalitoin" of createSimulatedAgent; did you mean "profile.adversary.coalition"? Known profile.adversary options: strategy, coalition, claimAgreement, injection',
  },
  createSimulationWorld: {
    call: () => createSimulationWorld({ tasks: [], seed: 1, distractors: 6 } as Loose),
    parameter: 'distractors',
    message:
      'unknown option "distractors" of createSimulationWorld; remove it. Known options: tasks, seed, distractorCount, answerKey',
  },
  createDemoTeam: {
    call: () => createDemoTeam({ world: {}, seed: 1, attacked: false, attack: true } as Loose),
    parameter: 'attack',
    message: 'unknown option "attack" of createDemoTeam; did you mean "attacked"?',
  },

  // Store, tasks, tracing, answer kinds, embeddings, transport.
  openStore: {
    call: () => openStore({ path: ':memory:', readOnly: true } as Loose),
    parameter: 'readOnly',
    message:
      'unknown option "readOnly" of openStore; did you mean "readonly"? Known options: path, now, readonly, busyTimeoutMs',
  },
  createStoreTraceSink: {
    call: () => createStoreTraceSink({ store: {}, runId: 'r1', methd: 'drf' } as Loose),
    parameter: 'methd',
    message: 'unknown option "methd" of createStoreTraceSink; did you mean "method"?',
  },
  generateTasks: {
    call: () => generateTasks({ cout: 5 } as Loose),
    parameter: 'cout',
    message: 'unknown option "cout" of generateTasks; did you mean "count"? Known options: count, seed, idPrefix',
  },
  createTracer: {
    call: () => createTracer({ clock: () => 0 } as Loose),
    parameter: 'clock',
    message: 'unknown option "clock" of createTracer; remove it. Known options: sink, now, generateId',
  },
  createExactAnswerKind: {
    call: () => createExactAnswerKind({ ignorecase: true } as Loose),
    parameter: 'options.ignorecase',
    message: 'unknown option "ignorecase" of createExactAnswerKind; did you mean "ignoreCase"?',
  },
  normalizeExactAnswer: {
    call: () => normalizeExactAnswer('The cat', { removeArticle: true } as Loose),
    parameter: 'options.removeArticle',
    message: 'unknown option "removeArticle" of normalizeExactAnswer; did you mean "removeArticles"?',
  },
  createNumberAnswerKind: {
    call: () => createNumberAnswerKind({ relativeTolerence: 1e-6 } as Loose),
    parameter: 'options.relativeTolerence',
    message: 'unknown option "relativeTolerence" of createNumberAnswerKind; did you mean "relativeTolerance"?',
  },
  createMathAnswerKind: {
    call: () => createMathAnswerKind({ cachesize: 10 } as Loose),
    parameter: 'options.cachesize',
    message: 'unknown option "cachesize" of createMathAnswerKind; did you mean "cacheSize"?',
  },
  createHashedNgramEmbedder: {
    call: () => createHashedNgramEmbedder({ dimension: 64 } as Loose),
    parameter: 'options.dimension',
    message: 'unknown option "dimension" of createHashedNgramEmbedder; did you mean "dimensions"?',
  },
  createInProcessBus: {
    call: () => createInProcessBus({ maxDelivery: 3 } as Loose),
    parameter: 'options.maxDelivery',
    message: 'unknown option "maxDelivery" of createInProcessBus; did you mean "maxDeliver"?',
  },
  connectNatsTransport: {
    call: () => connectNatsTransport({ servers: 'nats://127.0.0.1:1', stream: 'S', subjects: [], ackWait: 5 } as Loose),
    parameter: 'options.ackWait',
    message: 'unknown option "ackWait" of connectNatsTransport; did you mean "ackWaitMs"?',
  },
  startNatsServer: {
    call: () => startNatsServer({ bin: '/nowhere' } as Loose),
    parameter: 'options.bin',
    message: 'unknown option "bin" of startNatsServer; did you mean "binary"? Known options: binary, port, storeDir',
  },

  // Protocols.
  runDebate: {
    call: () => runDebate({ team: [], task, aggregator: {}, rng: () => 0, round: 2 } as Loose),
    parameter: 'round',
    message: 'unknown option "round" of runDebate; did you mean "rounds"?',
  },
  runDebateSession: {
    call: () => runDebateSession({ agents: [], roundz: 1 } as Loose),
    parameter: 'roundz',
    message: 'unknown option "roundz" of runDebateSession; did you mean "rounds"?',
  },
  'runDebateSession method': {
    call: () => runDebateSession({ agents: [], method: { name: 'm', aggregator: {}, ratngs: true } } as Loose),
    parameter: 'method.ratngs',
    message: 'unknown option "method.ratngs" of runDebateSession; did you mean "method.ratings"?',
  },
  createDebateMethod: {
    call: () => createDebateMethod('majority', { agents: [], size: 3 } as Loose),
    parameter: 'options.size',
    message: 'unknown option "size" of createDebateMethod; remove it. Known options: agents, k',
  },
  reputationPeerFilter: {
    call: () => reputationPeerFilter(model(), { threshold: 0.5 } as Loose),
    parameter: 'options.threshold',
    message: 'unknown option "threshold" of reputationPeerFilter; remove it. Known options: relativeThreshold',
  },
  miniRepPeerFilter: {
    call: () => miniRepPeerFilter(model(), { suspicion: 0.5 } as Loose),
    parameter: 'options.suspicion',
    message: 'unknown option "suspicion" of miniRepPeerFilter; did you mean "suspicionThreshold"?',
  },
  runDrf: {
    call: () => runDrf({ pool: [], tasks: [], selector: {}, reputation: {}, rng: () => 0, treshold: 0.3 } as Loose),
    parameter: 'treshold',
    message: 'unknown option "treshold" of runDrf; did you mean "threshold"?',
  },
  runDrfSession: {
    call: () => runDrfSession({ agents: [], comapre: [] } as Loose),
    parameter: 'comapre',
    message: 'unknown option "comapre" of runDrfSession; did you mean "compare"?',
  },
  // The team file's `type` is not a protocol option; the CLI leaves it out.
  'runDrfSession protocol': {
    call: () => runDrfSession({ agents: [], protocol: { type: 'drf', k: 3 } } as Loose),
    parameter: 'protocol.type',
    message:
      'unknown option "protocol.type" of runDrfSession; remove it. Known protocol options: k, variant, delta, threshold, exploration, minEligible, defence, credibilityFloor, w0, beta, initialReputation, priorTokens',
  },
  createDrfParts: {
    call: () => createDrfParts({ agents, exploraton: 1 } as Loose),
    parameter: 'exploraton',
    message: 'unknown option "exploraton" of createDrfParts; did you mean "exploration"?',
  },
  createExpectedCostLedger: {
    call: () => createExpectedCostLedger({ agents, prices: {}, priorToken: { input: 1, output: 1 } } as Loose),
    parameter: 'priorToken',
    message: 'unknown option "priorToken" of createExpectedCostLedger; did you mean "priorTokens"?',
  },
  agreementRatingSource: {
    call: () => agreementRatingSource({ distnce: 'exact' } as Loose),
    parameter: 'distnce',
    message:
      'unknown option "distnce" of agreementRatingSource; did you mean "distance"? Known options: sameAnswer, distance',
  },
  simulatedJudgeRatingSource: {
    call: () => simulatedJudgeRatingSource({ isCorrect: () => true, seed: 1, acuracy: 0.8 } as Loose),
    parameter: 'acuracy',
    message: 'unknown option "acuracy" of simulatedJudgeRatingSource; did you mean "accuracy"?',
  },
  runRaps: {
    call: () => runRaps({ agents: [], subscriptions: {}, tasks: [], topk: 2 } as Loose),
    parameter: 'topk',
    message: 'unknown option "topk" of runRaps; did you mean "topK"?',
  },
  'runRaps beta': {
    call: () => runRaps({ agents: [], subscriptions: {}, tasks: [], beta: { lamda: 0.9 } } as Loose),
    parameter: 'beta.lamda',
    message:
      'unknown option "beta.lamda" of runRaps; did you mean "beta.lambda"? Known beta options: lambda, delta, omega, tau, witnessCredibility',
  },
  'runRapsSession protocol': {
    call: () => runRapsSession({ agents: [], protocol: { transport: 'nats' } } as Loose),
    parameter: 'protocol.transport',
    message: 'unknown option "protocol.transport" of runRapsSession; remove it. Known protocol options: topK, tau,',
  },
  createBroker: {
    call: () => createBroker({ dimensions: 8, topk: 3 } as Loose),
    parameter: 'options.topk',
    message: 'unknown option "topk" of createBroker; did you mean "topK"?',
  },
  startRapsNode: {
    call: () => startRapsNode({ transport: {}, runId: 'r1', agent: {}, onErr: () => {} } as Loose),
    parameter: 'onErr',
    message: 'unknown option "onErr" of startRapsNode; did you mean "onError"?',
  },
  createPromptRouteSelector: {
    call: () => createPromptRouteSelector({ generate: async () => '[]', model: 'm' } as Loose),
    parameter: 'model',
    message: 'unknown option "model" of createPromptRouteSelector; remove it. Known options: generate',
  },

  // Evaluation entry points.
  runReplay: {
    call: () => runReplay({ path: 'nowhere', workerz: 2 } as Loose),
    parameter: 'workerz',
    message: 'unknown option "workerz" of runReplay; did you mean "workers"?',
  },
  runDemo: {
    call: () => runDemo({ store: {}, round: 2 } as Loose),
    parameter: 'round',
    message: 'unknown option "round" of runDemo; did you mean "rounds"?',
  },
  runCapabilityExperiment: {
    call: () => runCapabilityExperiment({ seed: 3 } as Loose),
    parameter: 'seed',
    message: 'unknown option "seed" of runCapabilityExperiment; did you mean "seeds"?',
  },
  runCollusionExperiment: {
    call: () => runCollusionExperiment({ windw: 5 } as Loose),
    parameter: 'windw',
    message: 'unknown option "windw" of runCollusionExperiment; did you mean "window"?',
  },
  runCostExperiment: {
    call: () => runCostExperiment({ name: 'd', agents: [], tasks: [] } as Loose, { poolsize: 3 } as Loose),
    parameter: 'poolsize',
    message: 'unknown option "poolsize" of runCostExperiment; did you mean "poolSize"?',
  },
  runSignExperiment: {
    call: () => runSignExperiment({ cost: 'per-round' } as Loose),
    parameter: 'cost',
    message: 'unknown option "cost" of runSignExperiment; did you mean "costs"?',
  },
  runDrfTuning: {
    call: () => runDrfTuning({ seed: 1 } as Loose),
    parameter: 'seed',
    message: 'unknown option "seed" of runDrfTuning; did you mean "seeds"? Known options: baseSeed, seeds, configs',
  },
  createRapsScenario: {
    call: () => createRapsScenario('adversarial', { taskcount: 3 } as Loose),
    parameter: 'parameters.taskcount',
    message: 'unknown option "parameters.taskcount" of createRapsScenario; did you mean "parameters.taskCount"?',
  },
  runRapsScenario: {
    call: () => runRapsScenario('adversarial', { replyTimeout: 5 } as Loose),
    parameter: 'options.replyTimeout',
    message: 'unknown option "replyTimeout" of runRapsScenario; did you mean "replyTimeoutMs"?',
  },
  runScaling: {
    call: () => runScaling({ size: [10] } as Loose),
    parameter: 'size',
    message: 'unknown option "size" of runScaling; did you mean "sizes"?',
  },
  'runRapsScenarioOverNats parameters': {
    call: () => runRapsScenarioOverNats('adversarial', { parameters: { sed: 1 } } as Loose),
    parameter: 'options.parameters.sed',
    message: 'unknown option "parameters.sed" of runRapsScenarioOverNats; did you mean "parameters.seed"?',
  },
  serveRapsNodeOverNats: {
    call: () =>
      serveRapsNodeOverNats({ servers: 'nats://127.0.0.1:1', runId: 'r1', agent: {}, secretEnvs: [] } as Loose),
    parameter: 'secretEnvs',
    message: 'unknown option "secretEnvs" of serveRapsNodeOverNats; did you mean "secretEnv"?',
  },
  spawnRapsNodeProcess: {
    call: () =>
      spawnRapsNodeProcess({
        scenario: 'adversarial',
        parameters: {},
        agentId: 'a1',
        natsUrl: 'nats://127.0.0.1:1',
        onStdErr: () => {},
      } as Loose),
    parameter: 'onStdErr',
    message: 'unknown option "onStdErr" of spawnRapsNodeProcess; did you mean "onStderr"?',
  },
  runAdversarialSeeds: {
    call: () => runAdversarialSeeds({ seed: 1, witnesses: false } as Loose),
    parameter: 'witnesses',
    message: 'unknown option "witnesses" of runAdversarialSeeds; did you mean "witness"?',
  },
  buildQaTeam: {
    call: () => buildQaTeam({ size: 5, adversaries: 1, seed: 1, taskCount: 3, skillLo: 0.5 } as Loose),
    parameter: 'skillLo',
    message: 'unknown option "skillLo" of buildQaTeam; did you mean "skillLow"?',
  },
  createReviewerAgent: {
    call: () => createReviewerAgent({ identity, role: 'security', halucinating: true } as Loose),
    parameter: 'halucinating',
    message: 'unknown option "halucinating" of createReviewerAgent; did you mean "hallucinating"?',
  },
  createExecutionVerifier: {
    call: () => createExecutionVerifier({ tests: () => undefined, concurency: 2 } as Loose),
    parameter: 'options.concurency',
    message: 'unknown option "concurency" of createExecutionVerifier; did you mean "concurrency"?',
  },
  'createExecutionVerifier sandbox': {
    call: () => createExecutionVerifier({ tests: () => undefined, sandbox: { timeout: 5 } } as Loose),
    parameter: 'options.sandbox.timeout',
    message: 'unknown option "sandbox.timeout" of createExecutionVerifier; did you mean "sandbox.timeoutMs"?',
  },
  runCodeTests: {
    call: () => runCodeTests({ code: '', test: '', language: 'python', timeout: 5 } as Loose),
    parameter: 'timeout',
    message: 'unknown option "timeout" of runCodeTests; did you mean "timeoutMs"?',
  },
  scoreCodeAnswer: {
    call: () => scoreCodeAnswer({ text: '', test: '', memory: 64 } as Loose),
    parameter: 'memory',
    message: 'unknown option "memory" of scoreCodeAnswer; did you mean "memoryMb"?',
  },
  readLines: {
    call: () => readLines('nowhere.jsonl', { expect: 'records' } as Loose).next(),
    parameter: 'options.expect',
    message: 'unknown option "expect" of readLines; did you mean "expected"? Known options: expected',
  },

  // LLM factories.
  createLanguageModel: {
    call: () => createLanguageModel({ provider: 'openai', model: 'm', apiKeyEnvv: 'KEY' } as Loose),
    parameter: 'apiKeyEnvv',
    message: 'unknown option "apiKeyEnvv" of createLanguageModel; did you mean "apiKeyEnv"?',
  },
  'createLanguageModel retry': {
    call: () => createLanguageModel({ provider: 'openai', model: 'm', retry: { maxRetires: 1 } } as Loose),
    parameter: 'retry.maxRetires',
    message: 'unknown option "retry.maxRetires" of createLanguageModel; did you mean "retry.maxRetries"?',
  },
  wrapWithPlumbing: {
    call: () => wrapWithPlumbing({ model: {}, headers: {} } as Loose),
    parameter: 'headers',
    message: 'unknown option "headers" of wrapWithPlumbing; remove it. Known options: cache, cacheMode, ledger,',
  },
  'wrapWithPlumbing price': {
    call: () => wrapWithPlumbing({ model: {}, price: { inputPerMilion: 1 } } as Loose),
    parameter: 'price.inputPerMilion',
    message:
      'unknown option "price.inputPerMilion" of wrapWithPlumbing; did you mean "price.inputPerMillion"? Known price options: inputPerMillion, outputPerMillion, perCall',
  },
  createCacheMiddleware: {
    call: () => createCacheMiddleware({ cache: {}, namespce: 'x' } as Loose),
    parameter: 'namespce',
    message: 'unknown option "namespce" of createCacheMiddleware; did you mean "namespace"?',
  },
  createCompletion: {
    call: () => createCompletion({ model: {}, runid: 'r1' } as Loose),
    parameter: 'runid',
    message: 'unknown option "runid" of createCompletion; did you mean "runId"? Known options: model, runId, price',
  },
  createLedgerMiddleware: {
    call: () => createLedgerMiddleware({ onCal: () => {} } as Loose),
    parameter: 'onCal',
    message: 'unknown option "onCal" of createLedgerMiddleware; did you mean "onCall"?',
  },
  createRetryMiddleware: {
    call: () => createRetryMiddleware({ maxDelay: 100 } as Loose),
    parameter: 'maxDelay',
    message: 'unknown option "maxDelay" of createRetryMiddleware; did you mean "maxDelayMs"?',
  },
  createTimeoutMiddleware: {
    call: () => createTimeoutMiddleware({ timeout: 5 } as Loose),
    parameter: 'timeout',
    message: 'unknown option "timeout" of createTimeoutMiddleware; did you mean "timeoutMs"?',
  },
  createConcurrencyMiddleware: {
    call: () => createConcurrencyMiddleware({ semaphore: {}, limit: 2 } as Loose),
    parameter: 'limit',
    message: 'unknown option "limit" of createConcurrencyMiddleware; remove it. Known options: semaphore',
  },
  createProviderLimiter: {
    call: () => createProviderLimiter({ default: 4 } as Loose),
    parameter: 'default',
    message:
      'unknown option "default" of createProviderLimiter; did you mean "defaultLimit"? Known options: defaultLimit, limits',
  },
  createAiSdkEmbedder: {
    call: () => createAiSdkEmbedder({ model: {}, dimensions: 8, maxParallel: 2 } as Loose),
    parameter: 'options.maxParallel',
    message: 'unknown option "maxParallel" of createAiSdkEmbedder; did you mean "maxParallelCalls"?',
  },
  createOpenAICompatibleEmbedder: {
    call: () => createOpenAICompatibleEmbedder({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', baseUrl: 'x' } as Loose),
    parameter: 'options.baseUrl',
    message: 'unknown option "baseUrl" of createOpenAICompatibleEmbedder; did you mean "baseURL"?',
  },
  createLlmJudgeVerifier: {
    call: () => createLlmJudgeVerifier({ model: 'm', systemPrompt: 'judge' } as Loose),
    parameter: 'systemPrompt',
    message:
      'unknown option "systemPrompt" of createLlmJudgeVerifier; did you mean "system"? Known options: model, name, runId, system',
  },
};

describe('unknown option keys', () => {
  it.each(Object.entries(cases))('%s refuses a misspelt key', async (_name, { call, parameter, message }) => {
    let error: unknown;
    try {
      await call();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ code: 'invalid_argument', parameter });
    expect((error as Error).message.startsWith(message), (error as Error).message).toBe(true);
  });
});

describe('a secret passed under an unknown key', () => {
  it('stays out of the error: its value is the key, and neither message nor inspection shows the secret', () => {
    // The AI SDK's providers take `apiKey`; ours take the NAME of the variable. A user who passes the
    // key itself must get an error that can be printed and logged as it is.
    const secret = 'sk-test-0123456789abcdef';
    let error: unknown;
    try {
      createLanguageModel({ provider: 'openai', model: 'm', apiKeyEnv: 'OPENAI_API_KEY', apiKey: secret } as Loose);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ parameter: 'apiKey', value: 'apiKey' });
    expect(inspect(error, { depth: 8 })).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
  });
});
