// `repute drf tune`: chooses DRF's numeric options on tuning seeds only (101..120 by default),
// disjoint from the reported seeds (1..20): the capability experiment over `drfTuningGrid`, ranked
// by mean Spearman(reputation, true accuracy), ties by team accuracy.
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { runCapabilityExperiment, type CapabilityExperimentResult, type CapabilityRow } from './capability.js';
import { drfTuningGrid, type DrfExperimentConfig } from './drf-config.js';

/** Result of {@link runDrfTuning}. */
export interface DrfTuningResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Name of the experiment. */
  readonly experiment: 'tune';
  /** The capability experiment on the tuning seeds, one row per grid configuration. */
  readonly capability: CapabilityExperimentResult;
  /** The chosen row. */
  readonly best: CapabilityRow;
}

const knownTuningOptions = defineOptionKeys<NonNullable<Parameters<typeof runDrfTuning>[0]>>()([
  'baseSeed',
  'seeds',
  'configs',
]);

/**
 * Runs the capability experiment for every configuration of the tuning grid on the tuning seeds and
 * returns the best by mean Spearman(reputation, true accuracy), ties by mean team accuracy.
 *
 * @example
 * const { best } = await runDrfTuning({ baseSeed: 101, seeds: 20 });
 */
export async function runDrfTuning(
  options: {
    /** @default 101 */ baseSeed?: number /** @default 20 */;
    seeds?: number /** @default drfTuningGrid */;
    configs?: readonly DrfExperimentConfig[];
  } = {},
): Promise<DrfTuningResult> {
  assertKnownOptions('', options, knownTuningOptions, 'runDrfTuning');
  const { baseSeed = 101, seeds = 20, configs = drfTuningGrid } = options;
  const capability = await runCapabilityExperiment({ baseSeed, seeds, configs });
  // A configuration whose ρ is undefined in every seed ranks below any with a defined ρ.
  const rho = (row: CapabilityRow) => row.spearman?.mean ?? -Infinity;
  const best = capability.rows.reduce((left, right) =>
    rho(right) > rho(left) || (rho(right) === rho(left) && right.accuracy.mean > left.accuracy.mean) ? right : left,
  );
  return { schemaVersion: 1, experiment: 'tune', capability, best };
}
