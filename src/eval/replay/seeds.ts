// Several seeds of the replay grid: the mean of each summary figure over seeds, and 95% percentile
// bootstrap intervals over seeds and conditions (Efron & Tibshirani 1993, ch. 13: the percentile
// interval [θ*_(0.025), θ*_(0.975)] of the resampled statistic), resampling first the seeds, then
// the conditions within each drawn seed (a two-stage, hierarchical bootstrap).
import { InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, randomInt } from '../../core/rng.js';
import type { CompositionSummary, ConditionRow, MethodSummary, SeedSummary, WeightTrajectory } from './metrics.js';
import { quantile } from './significance.js';

export { quantile };

/** A point estimate with its 95% bootstrap interval. */
export interface Interval {
  /** Mean over seeds (of the per-seed figure). */
  readonly mean: number;
  /** 2.5th percentile of the bootstrap distribution. */
  readonly low: number;
  /** 97.5th percentile of the bootstrap distribution. */
  readonly high: number;
}

/** Intervals of one method: accuracies and loss in [0, 1], strict wins as a count per seed. */
export interface MethodIntervals {
  /** Clean accuracy (clean conditions resampled). */
  readonly clean: Interval;
  /** Attacked accuracy (attacked conditions resampled). */
  readonly attacked: Interval;
  /** Mean paired loss. */
  readonly loss: Interval;
  /** Strict wins per seed, scaled to the number of attacked conditions of one seed. */
  readonly strictWins: Interval;
}

/** Paired MiniRep − baseline differences on the same resampled seeds and conditions. */
export interface PairedIntervals {
  /** clean(minirep) − clean(baseline). */
  readonly clean: Interval;
  /** attacked(minirep) − attacked(baseline). */
  readonly attacked: Interval;
  /** loss(baseline) − loss(minirep) = R_b (positive: MiniRep loses fewer points). */
  readonly retention: Interval;
}

/** The `intervals` block of summary.json. */
export interface ReplayIntervals {
  /** Bootstrap resamples. */
  readonly resamples: number;
  /** Seeds the intervals are over. */
  readonly seeds: readonly number[];
  /** Per method. */
  readonly methods: Readonly<Record<string, MethodIntervals>>;
  /** Per baseline: MiniRep minus that baseline (empty without `minirep`). */
  readonly paired: Readonly<Record<string, PairedIntervals>>;
}

/** Bootstrap resamples of {@link bootstrapIntervals}. @default 2000 */
export const defaultResamples = 2000;

const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;

/** Averages each numeric figure over seeds (the per-seed summaries must share methods and compositions). */
export function combineSeeds(summaries: readonly SeedSummary[]): Omit<SeedSummary, 'rows'> {
  const first = summaries[0];
  if (first === undefined)
    throw new InvalidArgumentError({
      parameter: 'seeds',
      value: [],
      message: 'at least one seed is needed; pass e.g. --seeds 1..10',
    });
  const average = (pick: (summary: SeedSummary) => number | undefined) =>
    mean(summaries.map(pick).filter((value): value is number => value !== undefined));
  // A metric a seed does not define (null) is left out of the mean, not counted as 0; null when no seed defines it.
  const averageDefined = (pick: (summary: SeedSummary) => number | null | undefined): number | null => {
    const defined = summaries.map(pick).filter((value): value is number => value !== undefined && value !== null);
    return defined.length === 0 ? null : mean(defined);
  };
  const methods: Record<string, MethodSummary> = {};
  for (const [name, method] of Object.entries(first.methods)) {
    const of = (
      field: 'clean' | 'attacked' | 'cleanExact' | 'attackedExact' | 'loss' | 'strictWins' | 'significantWins',
    ) => average((summary) => summary.methods[name]?.[field]);
    const ofDefined = (
      field: 'relativeDrop' | 'poolExp' | 'payloadHit' | 'nextExcl' | 'cfHarm' | 'attackerWeightShare',
    ) => averageDefined((summary) => summary.methods[name]?.[field]);
    methods[name] = {
      description: method.description,
      clean: of('clean'),
      attacked: of('attacked'),
      cleanExact: of('cleanExact'),
      attackedExact: of('attackedExact'),
      loss: of('loss'),
      relativeDrop: ofDefined('relativeDrop'),
      strictWins: of('strictWins'),
      significantWins: of('significantWins'),
      poolExp: ofDefined('poolExp'),
      payloadHit: ofDefined('payloadHit'),
      nextExcl: ofDefined('nextExcl'),
      cfHarm: ofDefined('cfHarm'),
      attackerWeightShare: ofDefined('attackerWeightShare'),
      byAttack: Object.fromEntries(
        Object.keys(method.byAttack).map((attack) => [
          attack,
          average((summary) => summary.methods[name]?.byAttack[attack]),
        ]),
      ),
    };
  }
  const retention = Object.fromEntries(
    Object.keys(first.retention).map((baseline) => [baseline, average((summary) => summary.retention[baseline])]),
  );
  const byComposition: Record<string, Record<string, CompositionSummary>> = {};
  for (const [composition, perMethod] of Object.entries(first.byComposition)) {
    byComposition[composition] = Object.fromEntries(
      Object.keys(perMethod).map((name) => {
        const of = (field: keyof CompositionSummary) =>
          average((summary) => summary.byComposition[composition]?.[name]?.[field]);
        return [
          name,
          {
            clean: of('clean'),
            attacked: of('attacked'),
            strictWins: of('strictWins'),
            significantWins: of('significantWins'),
          },
        ];
      }),
    );
  }
  const trajectories: Record<string, WeightTrajectory> = {};
  for (const [name, trajectory] of Object.entries(first.trajectories)) {
    const perTask = (side: keyof WeightTrajectory) =>
      trajectory[side].map((_, task) => average((summary) => summary.trajectories[name]?.[side][task]));
    trajectories[name] = { attackers: perTask('attackers'), honest: perTask('honest') };
  }
  return { methods, retention, byComposition, trajectories };
}

/** Per seed, per condition (grid order), per method: the row figures the bootstrap resamples. */
interface SeedMatrix {
  readonly clean: number[][];
  readonly attacked: number[][];
  readonly loss: number[][];
  readonly wins: number[][];
}

function matrixOf(rows: readonly ConditionRow[], methods: readonly string[]): SeedMatrix {
  const column = new Map(methods.map((method, index) => [method, index]));
  const byCondition = new Map<string, ConditionRow[]>();
  for (const row of rows) {
    const list = byCondition.get(row.condition) ?? [];
    list.push(row);
    byCondition.set(row.condition, list);
  }
  const matrix: SeedMatrix = { clean: [], attacked: [], loss: [], wins: [] };
  for (const list of byCondition.values()) {
    const line = (pick: (row: ConditionRow) => number) => {
      const values = new Array<number>(methods.length).fill(0);
      for (const row of list) values[column.get(row.method) ?? 0] = pick(row);
      return values;
    };
    if (list[0]?.attack === 'clean') matrix.clean.push(line((row) => row.accuracy));
    else {
      matrix.attacked.push(line((row) => row.accuracy));
      matrix.loss.push(line((row) => row.loss));
      matrix.wins.push(line((row) => row.strictWin));
    }
  }
  return matrix;
}

/**
 * 95% percentile bootstrap intervals over seeds and conditions: each resample draws S seeds with
 * replacement and, inside each drawn seed, its clean and attacked conditions with replacement; the
 * statistic is the mean over the drawn seeds of the per-seed figure (strict wins: the count of wins
 * among the drawn attacked conditions). Paired differences reuse the same draws for both methods.
 * Seeded by `bootstrapSeed` (the resamples do not touch the replay's own draws).
 *
 * @example
 * const intervals = bootstrapIntervals({ seeds: [1, 2], rows: [rowsOfSeed1, rowsOfSeed2], methods: ['majority', 'minirep'] });
 */
export function bootstrapIntervals({
  seeds,
  rows,
  methods,
  resamples = defaultResamples,
  bootstrapSeed = 0,
}: {
  seeds: readonly number[];
  rows: readonly (readonly ConditionRow[])[];
  methods: readonly string[];
  resamples?: number;
  bootstrapSeed?: number;
}): ReplayIntervals {
  const matrices = rows.map((seedRows) => matrixOf(seedRows, methods));
  const count = matrices.length;
  const m = methods.length;
  const miniRep = methods.indexOf('minirep');
  // stats[r][k]: per resample r, k = method·6 + (clean, attacked, loss, wins) and paired diffs after.
  const fields = 4;
  const draws: number[][] = Array.from({ length: m * fields + m * 3 }, () => []);
  const point = (matrix: SeedMatrix, picks: { clean: number[]; attacked: number[] }) => {
    const sums = new Array<number>(m * fields).fill(0);
    for (let method = 0; method < m; method++) {
      let clean = 0;
      for (const index of picks.clean) clean += matrix.clean[index]?.[method] ?? 0;
      let attacked = 0;
      let loss = 0;
      let wins = 0;
      for (const index of picks.attacked) {
        attacked += matrix.attacked[index]?.[method] ?? 0;
        loss += matrix.loss[index]?.[method] ?? 0;
        wins += matrix.wins[index]?.[method] ?? 0;
      }
      sums[method * fields] = picks.clean.length === 0 ? 0 : clean / picks.clean.length;
      sums[method * fields + 1] = picks.attacked.length === 0 ? 0 : attacked / picks.attacked.length;
      sums[method * fields + 2] = picks.attacked.length === 0 ? 0 : loss / picks.attacked.length;
      sums[method * fields + 3] = wins;
    }
    return sums;
  };
  const identity = (length: number) => Array.from({ length }, (_, index) => index);
  const estimate = new Array<number>(m * fields).fill(0);
  for (const matrix of matrices) {
    const sums = point(matrix, { clean: identity(matrix.clean.length), attacked: identity(matrix.attacked.length) });
    sums.forEach((value, index) => (estimate[index] = (estimate[index] ?? 0) + value));
  }
  // Σ over seeds, then ÷ S: the order of combineSeeds, so each mean prints as the summary's own figure.
  for (let index = 0; index < estimate.length; index++) estimate[index] = (estimate[index] ?? 0) / Math.max(1, count);
  const rng = createRng(deriveSeed(bootstrapSeed, 'replay-bootstrap'));
  for (let resample = 0; resample < resamples; resample++) {
    const totals = new Array<number>(m * fields).fill(0);
    for (let draw = 0; draw < count; draw++) {
      const matrix = matrices[randomInt(rng, count)] as SeedMatrix;
      const picks = {
        clean: Array.from({ length: matrix.clean.length }, () => randomInt(rng, matrix.clean.length)),
        attacked: Array.from({ length: matrix.attacked.length }, () => randomInt(rng, matrix.attacked.length)),
      };
      const sums = point(matrix, picks);
      sums.forEach((value, index) => (totals[index] = (totals[index] ?? 0) + value / count));
    }
    totals.forEach((value, index) => draws[index]?.push(value));
    if (miniRep >= 0) {
      for (let method = 0; method < m; method++) {
        const at = m * fields + method * 3;
        draws[at]?.push((totals[miniRep * fields] ?? 0) - (totals[method * fields] ?? 0));
        draws[at + 1]?.push((totals[miniRep * fields + 1] ?? 0) - (totals[method * fields + 1] ?? 0));
        draws[at + 2]?.push((totals[method * fields + 2] ?? 0) - (totals[miniRep * fields + 2] ?? 0));
      }
    }
  }
  const interval = (index: number, value: number): Interval => {
    const sorted = (draws[index] ?? []).slice().sort((left, right) => left - right);
    return { mean: value, low: quantile(sorted, 0.025), high: quantile(sorted, 0.975) };
  };
  const perMethod: Record<string, MethodIntervals> = {};
  const paired: Record<string, PairedIntervals> = {};
  methods.forEach((method, index) => {
    const at = (field: number) => index * fields + field;
    perMethod[method] = {
      clean: interval(at(0), estimate[at(0)] ?? 0),
      attacked: interval(at(1), estimate[at(1)] ?? 0),
      loss: interval(at(2), estimate[at(2)] ?? 0),
      strictWins: interval(at(3), estimate[at(3)] ?? 0),
    };
    if (miniRep >= 0 && index !== miniRep) {
      const base = m * fields + index * 3;
      const of = (field: number) => estimate[miniRep * fields + field] ?? 0;
      const mine = (field: number) => estimate[index * fields + field] ?? 0;
      paired[method] = {
        clean: interval(base, of(0) - mine(0)),
        attacked: interval(base + 1, of(1) - mine(1)),
        retention: interval(base + 2, mine(2) - of(2)),
      };
    }
  });
  return { resamples, seeds: [...seeds], methods: perMethod, paired };
}
