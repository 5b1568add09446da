// Internal: the keys of this folder's options types, for assertKnownOptions. Kept in one place
// because the MiniRep aggregator checks the nested options of the parts it creates (bloc tracker,
// histories, analyzer) before creating them. defineOptionKeys fails `tsc` when a type gains a key
// that is not listed here. Not re-exported.
import { defineOptionKeys } from '../core/validate.js';
import type { MiniRepAggregatorOptions } from './minirep-aggregator.js';
import type { AnalyzerOptions } from './minirep-analyzer.js';
import type { BehaviourCheckOptions } from './minirep-behaviour.js';
import type { BlocOptions } from './minirep-bloc.js';
import type { PeerHistoryOptions } from './minirep-peer-history.js';
import type { PosteriorHistoryOptions } from './minirep-posterior-history.js';
import type { SimulatedVerifierOptions } from './simulated-verifier.js';

export const knownBehaviourCheckOptions = defineOptionKeys<BehaviourCheckOptions>()([
  'overrideSuspicion',
  'falseClaimSuspicion',
  'flipSuspicion',
  'flagCapFraction',
]);

export const knownAnalyzerOptions = defineOptionKeys<AnalyzerOptions>()([
  'beta',
  'verifierWeight',
  ...knownBehaviourCheckOptions,
]);

export const knownBlocOptions = defineOptionKeys<BlocOptions>()([
  'decay',
  'threshold',
  'exclusivity',
  'verified',
  'minSize',
  'maxShare',
]);

export const knownPeerHistoryOptions = defineOptionKeys<PeerHistoryOptions>()([
  'decay',
  'priorAgree',
  'priorDisagree',
  'minWeight',
  'maxWeight',
]);

export const knownPosteriorHistoryOptions = defineOptionKeys<PosteriorHistoryOptions>()([
  'decay',
  'priorAgree',
  'priorDisagree',
  'collision',
  'noneScore',
  'maxWeight',
  'minWeight',
  'epsilon',
]);

export const knownMiniRepAggregatorOptions = defineOptionKeys<MiniRepAggregatorOptions>()([
  'model',
  'k',
  'verifier',
  'rejectedFactor',
  'verdictRule',
  'epsilon',
  'minGroups',
  'maxPerGroup',
  'historyExponent',
  'informedHistoryExponent',
  'informedQualityOffset',
  'qualityOffset',
  'flaggedFactor',
  'cooldownFactor',
  'suspicionThreshold',
  'suspiciousFactor',
  'unknownHistory',
  'bloc',
  'history',
  'peerHistory',
  'posteriorHistory',
  'posteriorQualityOffset',
  'logOddsQualityOffset',
  'recentTasks',
  ...knownAnalyzerOptions,
]);

export const knownSimulatedVerifierOptions = defineOptionKeys<SimulatedVerifierOptions>()([
  'isCorrect',
  'seed',
  'sensitivity',
  'specificity',
]);
