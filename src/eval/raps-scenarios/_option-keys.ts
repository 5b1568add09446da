// Internal: the keys of the scenario parameters, which the scenario builder, the in-process run
// and the NATS run all check (defineOptionKeys fails `tsc` when the type gains an unlisted key).
// Not re-exported.
import { defineOptionKeys } from '../../core/validate.js';
import type { RapsScenarioParameters } from './scenarios.js';

export const knownScenarioParameters = defineOptionKeys<RapsScenarioParameters>()([
  'seed',
  'agentCount',
  'taskCount',
  'topK',
  'runId',
  'adversaryCount',
  'witness',
  'additions',
  'honestOnly',
  'witnessCredibility',
  'recovery',
]);
