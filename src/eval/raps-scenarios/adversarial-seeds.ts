// `adversarial` over many seeds: RAPS (decided by a known-honest agent's watchdog), the same run
// decided by the team view, plain majority, the clean team (no adversary) and the honest-only
// ceiling (the honest agents alone, same protocol), per seed and on average with 95% intervals.
import { signedUnitRange, tInterval, unitRange, type MeanInterval } from '../drf-experiments/stats.js';
import type { QaTeam } from './qa-team.js';
import {
  runRapsScenario,
  summarizeAdversarial,
  type AdversarialSummary,
  type RapsScenario,
  type RapsScenarioParameters,
} from './scenarios.js';
import type { RapsResult } from '../../protocols/pubsub/run-raps.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';

/** One seed of {@link runAdversarialSeeds}; accuracies in [0, 1]. */
export interface AdversarialSeedRow {
  /** Seed of the team, tasks and draws. */
  readonly seed: number;
  /** RAPS decided by the known-honest decider's watchdog. */
  readonly accuracy: number;
  /** The same run decided by the team view (no known-honest decider). */
  readonly teamViewAccuracy: number;
  /** Unweighted plurality of all five agents' last answers. */
  readonly majorityAccuracy: number;
  /** The decider's own last answers. */
  readonly deciderAloneAccuracy: number;
  /** RAPS with the same five agents, none adversarial. */
  readonly cleanAccuracy: number;
  /** RAPS with the honest agents alone (the adversaries removed), same protocol and decider. */
  readonly honestOnlyAccuracy: number;
  /** First global round after which every adversary stays below τ for the decider (null if never). */
  readonly adversariesBelowTauFromRound: number | null;
  /** Witness reports checked and refused in the adversarial run. */
  readonly witnessChecks: number;
  /** Witness reports refused by the deviation test in the adversarial run. */
  readonly witnessRejected: number;
}

/** Result of {@link runAdversarialSeeds}. */
export interface AdversarialSeedsSummary {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Name of the scenario. */
  readonly scenario: 'adversarial';
  /** First seed (seed i = seed + i). */
  readonly seed: number;
  /** Seeds run, in order. */
  readonly seeds: readonly number[];
  /** Tasks per seed. */
  readonly tasks: number;
  /** Trust threshold τ. */
  readonly tau: number;
  /** Whether witness checks ran. */
  readonly witness: boolean;
  /** Whether our additions to the RAPS base were on. */
  readonly additions: boolean;
  /** Where witness credibility was kept. */
  readonly witnessCredibility: 'separate' | 'shared';
  /** Recovery factor ρ (1 = off). */
  readonly recovery: number;
  /** Mean RAPS accuracy over seeds. */
  readonly accuracy: number;
  /** Mean honest-only ceiling over seeds. */
  readonly honestOnly: number;
  /** Means with 95% Student-t intervals over seeds, and the paired gap RAPS − honest-only. */
  readonly average: {
    readonly accuracy: MeanInterval;
    readonly teamView: MeanInterval;
    readonly majority: MeanInterval;
    readonly deciderAlone: MeanInterval;
    readonly clean: MeanInterval;
    readonly honestOnly: MeanInterval;
    /** Paired per-seed RAPS − honest-only. */
    readonly gapToHonestOnly: MeanInterval;
  };
  /** True when the mean RAPS accuracy is within 2 points (0.02) of the honest-only ceiling or above it. */
  readonly withinTwoPointsOfHonestOnly: boolean;
  /** One row per seed. */
  readonly perSeed: readonly AdversarialSeedRow[];
  /** The first seed's full summary (reputation per round, counters). */
  readonly first: AdversarialSummary;
}

/** Runs one scenario (in-process by default; the CLI passes a NATS runner). */
export type AdversarialRunner = (
  parameters: RapsScenarioParameters,
) => Promise<{ scenario: RapsScenario; result: RapsResult }>;

const knownAdversarialSeedsOptions = defineOptionKeys<NonNullable<Parameters<typeof runAdversarialSeeds>[0]>>()([
  'seed',
  'seeds',
  'taskCount',
  'witness',
  'additions',
  'witnessCredibility',
  'recovery',
  'run',
]);

/**
 * Runs `adversarial` on `seeds` consecutive seeds from `seed`, each with its clean team and its
 * honest-only ceiling, and summarises per seed and on average.
 *
 * @example
 * const summary = await runAdversarialSeeds({ seed: 1, seeds: 20 });
 * summary.average.gapToHonestOnly.mean;
 */
export async function runAdversarialSeeds(
  options: {
    /** First seed, any integer (seed i = seed + i). @default 1 */ seed?: number;
    /** Number of seeds, ≥ 2 for intervals. @default 20 */ seeds?: number;
    /** Tasks per seed. @default 30 */ taskCount?: number;
    /** @default true */ witness?: boolean;
    /** @default true */ additions?: boolean;
    /** @default 'separate' */ witnessCredibility?: 'separate' | 'shared';
    /** Recovery factor ρ in [0, 1] of filtered-away beliefs (ours, not RAPS); 1 = off. @default 1 */ recovery?: number;
    /** Runs the adversarial run (to run it over NATS); clean and honest-only runs are in-process. @default in-process */ run?: AdversarialRunner;
  } = {},
): Promise<AdversarialSeedsSummary> {
  assertKnownOptions('', options, knownAdversarialSeedsOptions, 'runAdversarialSeeds');
  const {
    seed = 1,
    seeds = 20,
    taskCount,
    witness = true,
    additions = true,
    witnessCredibility = 'separate',
    recovery = 1,
    run,
  } = options;
  assertInteger('seeds', seeds, 1, 10_000);
  // Seed i is seed + i, as in the DRF experiments; any integer, negative too, as every other command
  // takes (only seed + seeds − 1 must stay a safe integer).
  assertInteger('seed', seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - (seeds - 1));
  const inProcess: AdversarialRunner = (parameters) => runRapsScenario('adversarial', parameters);
  const runAdversarial = run ?? inProcess;
  const rows: AdversarialSeedRow[] = [];
  let first: AdversarialSummary | undefined;
  for (let index = 0; index < seeds; index++) {
    const current = seed + index;
    const parameters: RapsScenarioParameters = {
      seed: current,
      witness,
      additions,
      witnessCredibility,
      ...(recovery === 1 ? {} : { recovery }),
      ...(taskCount === undefined ? {} : { taskCount }),
    };
    const adversarial = await runAdversarial(parameters);
    const clean = await inProcess({ ...parameters, adversaryCount: 0 });
    const honest = await inProcess({ ...parameters, honestOnly: true });
    const summary = summarizeAdversarial(adversarial.scenario, adversarial.result, current, clean);
    first ??= summary;
    const honestTeam = honest.scenario.qaTeam as QaTeam;
    rows.push({
      seed: current,
      accuracy: summary.accuracy,
      teamViewAccuracy: summary.teamViewAccuracy,
      majorityAccuracy: summary.majorityAccuracy,
      deciderAloneAccuracy: summary.deciderAloneAccuracy,
      cleanAccuracy: summary.cleanAccuracy as number,
      honestOnlyAccuracy: average(
        honest.result.decisions.map((decision) =>
          honestTeam.world.isCorrect(decision.taskId, decision.answer) ? 1 : 0,
        ),
      ),
      adversariesBelowTauFromRound: summary.adversariesBelowTauFromRound,
      witnessChecks: summary.totals.witnessChecks,
      witnessRejected: summary.totals.witnessRejected,
    });
  }
  const column = (pick: (row: AdversarialSeedRow) => number) => rows.map(pick);
  // Accuracies in [0, 1]; the gap to honest-only is a difference of two of them.
  const interval = (values: number[]) => tInterval(values, 0.95, unitRange);
  const accuracy = interval(column((row) => row.accuracy));
  const honestOnly = interval(column((row) => row.honestOnlyAccuracy));
  return {
    schemaVersion: 1,
    scenario: 'adversarial',
    seed,
    seeds: rows.map((row) => row.seed),
    tasks: (first as AdversarialSummary).tasks,
    tau: (first as AdversarialSummary).tau,
    witness,
    additions,
    witnessCredibility,
    recovery,
    accuracy: accuracy.mean,
    honestOnly: honestOnly.mean,
    average: {
      accuracy,
      teamView: interval(column((row) => row.teamViewAccuracy)),
      majority: interval(column((row) => row.majorityAccuracy)),
      deciderAlone: interval(column((row) => row.deciderAloneAccuracy)),
      clean: interval(column((row) => row.cleanAccuracy)),
      honestOnly,
      gapToHonestOnly: tInterval(
        column((row) => row.accuracy - row.honestOnlyAccuracy),
        0.95,
        signedUnitRange,
      ),
    },
    // within 2 points: mean(RAPS) ≥ mean(honest-only) − 0.02
    withinTwoPointsOfHonestOnly: accuracy.mean >= honestOnly.mean - 0.02,
    perSeed: rows,
    first: first as AdversarialSummary,
  };
}

function average(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
