import { describe, expect, it } from 'vitest';
import {
  analyzeProposals,
  BetaReputationModel,
  checkBehaviour,
  computeEigentrust,
  createAggregator,
  createBetaModel,
  createBlocTracker,
  createDrfModel,
  createEigenTrustModel,
  createMiniRepAggregator,
  createMiniRepModel,
  createPeerHistory,
  createPosteriorHistory,
  createReputationModel,
  createSelector,
  createSimulatedVerifier,
  createSingleMetricModel,
  createTopKSelector,
  createUcbSelector,
  drfReputationStep,
  DrfReputationModel,
  eigentrust,
  EigenTrustReputationModel,
  InvalidArgumentError,
  MiniRepReputationModel,
  SingleMetricReputationModel,
  type Task,
} from '../../src/index.js';

// Every public factory that takes an options object refuses a key it does not know, naming it in
// `parameter` and suggesting the known key it is nearest to (edit distance ≤ 2, or a prefix). The
// options are typed loosely on purpose: a caller writing plain JavaScript, or building the options
// from a file, gets no help from the compiler.

// biome-ignore lint/suspicious/noExplicitAny: the misspelt options are what the compiler would refuse
type Loose = any;

const agents = ['a1', 'a2'];
const task: Task = { id: 't1', kind: 'exact', prompt: 'q' };
const model = () => createMiniRepModel({ agents });

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
