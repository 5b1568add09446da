import { availableParallelism } from 'node:os';
import { DataFormatError, InternalError, InvalidArgumentError } from '../../core/errors.js';
import { assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { resolveOptions } from '../../core/options.js';
import type { DatasetFormat } from '../proposals/format.js';
import { loadDataset } from '../proposals/load-dataset.js';
import type { ProposalsDataset } from '../proposals/format.js';
import { answerKinds, type AnswerKind } from '../../core/answers/answer-kind.js';
import {
  auditKeys,
  describeKinds,
  flagLimits,
  mixedKeyThreshold,
  type FlagLimits,
  type KeyAudit,
  type MixedKeyExample,
} from './audit-keys.js';
import type { AnswerOps } from './answer-ops.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { memoizeAnswerOps } from './_memo-answer-ops.js';
import { loadAnswerKeyCache, writeBackAnswerKeyCache, type AnswerKeyCache } from './_answer-key-cache.js';
import { buildGrid } from './grid.js';
import type { ReplayMethod } from './method.js';
import {
  replayMethodNames,
  resolveReplayMethods,
  verifierOnlyMethodNames,
  verifierReplayMethodNames,
} from './methods.js';
import type {
  CompositionSummary,
  ConditionRow,
  DatasetLimits,
  MethodSummary,
  SeedSummary,
  WeightTrajectory,
} from './metrics.js';
import { computeLimits, createSeedSummariser } from './metrics.js';
import { bootstrapIntervals, combineSeeds, type ReplayIntervals } from './seeds.js';
import { planGrid, type GridPlan } from './plan-grid.js';
import { prepareReplay, splitChoices, type PreparationCounts, type SplitChoice } from './prepare.js';
import { runCondition } from './run-condition.js';
import type {
  CompositionName,
  Condition,
  ConditionResult,
  FeedbackMode,
  ReplayVerifierSettings,
  VerifierKind,
  VerifierModel,
} from './types.js';
import { allCompositionNames, compositionNames, feedbackModes, verifierKinds, verifierModels } from './types.js';
import { simulatedVerifierDefaults } from '../../aggregation/simulated-verifier.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';
import { measureReplayVerifier, withJudge, type MeasuredVerifier } from './replay-verifier.js';
import { createGridSchedule } from './_grid-schedule.js';

/** Options of {@link runReplay}. */
export interface ReplayOptions {
  /** Dataset directory or Repute proposals file. */
  path: string;
  /** Dataset format; detected from the path when omitted. @default undefined */
  format?: DatasetFormat;
  /** Tasks sampled (seeded, fixed order); all tasks when the dataset has fewer; `'all'` = every task of the split. @default 100 */
  tasks?: number | 'all';
  /** Seed of every random choice (sample, teams, placements, attacks, selectors, verifier). @default 2027 */
  seed?: number;
  /** Seeds to run the grid with, one after the other (overrides `seed`); figures are means over seeds with bootstrap intervals. @default [seed] */
  seeds?: readonly number[];
  /** Side of the declared task split to sample from (`splits.ts`); `all` ignores the split. @default 'heldout' */
  split?: SplitChoice;
  /** Team compositions of the grid. @default compositionNames (the paper's four) */
  compositions?: readonly CompositionName[];
  /**
   * Post-task feedback of the stateful methods: agreement with the decision, the verifier's verdicts,
   * or the truth. `'verifier'` without a `verifier` turns on the simulated one (the former
   * `--feedback verifier`). @default 'verifier' when `verifier` is `'simulated'`, else 'consensus'
   */
  feedback?: FeedbackMode;
  /**
   * The verifier that judges every team proposal: MiniRep reads its verdicts before aggregation, and
   * they are the post-task quality of every stateful method under `verifier` feedback. `'simulated'`
   * (model from `verifierModel`), or `'judge:<agent>'`: that recorded model of the dataset judges
   * (a proposal is right when its key equals the judge's own key on the task) and leaves the pool.
   * @default 'none' ('simulated' when `feedback` is 'verifier')
   */
  verifier?: Exclude<VerifierKind, 'judge'> | `judge:${string}`;
  /** Error model of the simulated verifier. @default 'correlated' */
  verifierModel?: VerifierModel;
  /** P(judged wrong | wrong) of the simulated verifier, in [0, 1]. @default 0.85 */
  verifierSensitivity?: number;
  /** P(judged right | right) of the simulated verifier, in [0, 1]. @default 0.8 */
  verifierSpecificity?: number;
  /** Methods by name (all registered ones by default), or method objects (single worker only). @default replayMethodNames */
  methods?: readonly (string | ReplayMethod)[];
  /**
   * Threads replaying conditions, the calling thread included: N starts N − 1 worker threads that take
   * conditions from the same queue as the calling thread; 1 runs in the calling thread alone.
   * @default min(2, available cores)
   */
  workers?: number;
  /** Called after each finished condition (progress). @default undefined */
  onProgress?: (done: number, total: number) => void;
  /** Answer operations (tests inject their own). @default createDefaultAnswerOps() */
  ops?: AnswerOps;
  /**
   * Directory of the answer-key cache: the canonical keys, equivalences and scores the default answer
   * operations computed, saved after the run and read by the next run of the same answer code (a file
   * per code version, see {@link defaultCacheDirectory} for the CLI's default). Results are the same
   * with or without it. Ignored with custom `ops`. @default undefined (no cache)
   */
  keyCache?: string;
  /** Answer kind for every task, overriding what the dataset declares. @default undefined (the dataset's kinds) */
  kind?: AnswerKind;
  /**
   * Refuse to run (a {@link DataFormatError}, exit code 3 in the CLI) when more than 0.5 % of the
   * (task, key) groups mix correct and incorrect flags. @default false
   */
  strictKeys?: boolean;
  /** Called once the data is loaded and audited, before the grid runs (the CLI prints the kind and any warning). @default undefined */
  onData?: (data: ReplayDataAudit) => void;
}

/** The answer-kind part of `summary.json`'s `data`: which kind, why, and the merged-answer audit. */
export interface ReplayDataAudit {
  /** Tasks per answer kind, after any `kind` override. */
  readonly kinds: Readonly<Partial<Record<AnswerKind, number>>>;
  /** Where the kinds come from: `--kind`, or the dataset's declaration (e.g. `models.json "task": "crux"`). */
  readonly kindSource: string;
  /** (task, key) groups of flagged proposals over the whole dataset. */
  readonly keyGroups: number;
  /** Groups whose proposals carry both correct and incorrect flags. */
  readonly mixedKeys: number;
  /** The first five mixed groups. */
  readonly mixedKeyExamples: readonly MixedKeyExample[];
  /** Proposals of `literal` tasks keyed as text because they are no Python literal. */
  readonly literalFallbacks: number;
  /** Coverage and best single agent of the sampled tasks from the `correct` flags alone (`null` without flags). */
  readonly flagLimits: FlagLimits | null;
}

/** Figures of one seed, for the per-seed table. */
export interface SeedFigures {
  /** The seed. */
  readonly seed: number;
  /** Per method: clean, attacked, loss (in [0, 1]), strict and significant wins. */
  readonly methods: Readonly<
    Record<
      string,
      {
        readonly clean: number;
        readonly attacked: number;
        readonly loss: number;
        readonly strictWins: number;
        readonly significantWins: number;
      }
    >
  >;
}

/** `summary.json`: everything the replay measured, in a versioned, deterministic shape. */
export interface ReplaySummary {
  /** Shape version of this record; 2 since the paper's §C.3 metrics (v1 summaries are refused by {@link parseReplaySummary}). */
  readonly schemaVersion: 2;
  /** The options that produced it (path as given). */
  readonly options: {
    readonly path: string;
    readonly format: DatasetFormat;
    readonly tasks: number | 'all';
    readonly seeds: readonly number[];
    readonly split: SplitChoice;
    readonly compositions: readonly CompositionName[];
    readonly feedback: FeedbackMode;
    readonly verifier: ReplayVerifierSettings;
    readonly methods: readonly string[];
  };
  /**
   * The run's verifier (absent without one): its name, and the sensitivity and specificity it showed
   * on the pool's parseable honest proposals of the sampled tasks (the judge taken out), mean over seeds.
   */
  readonly verifier?: { readonly name: string; readonly measured: MeasuredVerifier };
  /** Dataset counts (sampling counts of the first seed; `teamMissingProposals` summed over seeds). */
  readonly data: PreparationCounts &
    ReplayDataAudit & {
      readonly name: string;
      readonly correctness: string;
      readonly skipped: Readonly<Record<string, number>>;
      readonly teamMissingProposals: number;
    };
  /** Grid size per seed, and the teams of the first seed. */
  readonly grid: {
    readonly conditions: number;
    readonly clean: number;
    readonly attacked: number;
    readonly teams: Readonly<Record<string, readonly string[]>>;
  };
  /** Limits of the sampled tasks over the whole pool, and the best single member of each team (means over seeds). */
  readonly limits: DatasetLimits & { readonly bestSingleInTeam: Readonly<Record<string, number>> };
  /** Summary of each method (paper definitions), mean over seeds. */
  readonly methods: Readonly<Record<string, MethodSummary>>;
  /** Retention advantage R_b = loss_b − loss_minirep per baseline b, mean over seeds (empty without minirep). */
  readonly retention: Readonly<Record<string, number>>;
  /** Per composition, per method: clean, attacked and strict wins, mean over seeds. */
  readonly byComposition: Readonly<Record<string, Readonly<Record<string, CompositionSummary>>>>;
  /** 95% bootstrap intervals over seeds and conditions, and paired MiniRep − baseline differences. */
  readonly intervals: ReplayIntervals;
  /** The headline figures of every seed. */
  readonly perSeed: readonly SeedFigures[];
  /** Mean normalised weight of attackers vs honest members per task, per method (mean over seeds). */
  readonly trajectories: Readonly<Record<string, WeightTrajectory>>;
}

/**
 * Checks that a parsed `summary.json` is a version-2 replay summary and returns it typed. Version 1
 * (before the paper's metrics) and unknown shapes throw a {@link DataFormatError} naming the file.
 *
 * @example
 * const summary = parseReplaySummary(JSON.parse(readFileSync('replay-out/summary.json', 'utf8')), 'replay-out/summary.json');
 */
export function parseReplaySummary(value: unknown, file = 'summary.json'): ReplaySummary {
  const version =
    typeof value === 'object' && value !== null ? (value as { schemaVersion?: unknown }).schemaVersion : undefined;
  if (version === 1) {
    throw new DataFormatError({
      file,
      message:
        'schemaVersion 1 replay summaries use the pre-paper metrics (PoolExp as a weight share, NextExcl per attacker pair, relative drop of the means) and cannot be read as version 2; re-run `repute replay` to regenerate it',
    });
  }
  if (version !== 2) {
    throw new DataFormatError({
      file,
      message: `expected a replay summary with schemaVersion 2, got schemaVersion ${JSON.stringify(version)}; pass a summary.json written by \`repute replay\``,
    });
  }
  const summary = value as ReplaySummary;
  if (
    typeof summary.methods !== 'object' ||
    summary.methods === null ||
    typeof summary.retention !== 'object' ||
    typeof summary.byComposition !== 'object'
  ) {
    throw new DataFormatError({
      file,
      message:
        'a schemaVersion 2 replay summary needs `methods`, `retention` and `byComposition` objects; regenerate it with `repute replay`',
    });
  }
  return summary;
}

/** A per-condition row with the seed of its grid. */
export type SeededConditionRow = ConditionRow & { readonly seed: number };

/** What {@link runReplay} returns: the summary, per-condition rows, and timing (not part of the summary). */
export interface ReplayReport {
  /** The deterministic summary written as `summary.json`. */
  readonly summary: ReplaySummary;
  /** One row per (seed, condition, method), written as `conditions.csv`. */
  readonly rows: readonly SeededConditionRow[];
  /** Wall and CPU times of the run's phases in ms, plus the work done; varies between runs. */
  readonly timing: {
    /** Wall time of loading the dataset, in ms. */
    readonly loadMs: number;
    /** Wall time of canonicalising, ranking and sampling, in ms. */
    readonly prepareMs: number;
    /** Planning every attack and scoring every payload, in ms (in the calling thread, one condition at a time; overlaps the workers' replay). */
    readonly planMs: number;
    /** Planning and replaying every condition. */
    readonly gridMs: number;
    /**
     * CPU time of each worker thread (the calling thread's lane not included), start-up included, in ms
     * (Linux; empty otherwise and with 1 worker).
     */
    readonly workerCpuMs: readonly number[];
    /** Proposals aggregated over every condition and method. */
    readonly proposalsEvaluated: number;
  };
  /** The answer-key cache, when the run used one ({@link ReplayOptions.keyCache}). */
  readonly keyCache?: KeyCacheUse;
}

/** How a run used the answer-key cache. */
export interface KeyCacheUse {
  /** The cache file of this answer code. */
  readonly file: string;
  /** Answers read from it. */
  readonly loaded: number;
  /** Answers the run computed (not in the cache). */
  readonly computed: number;
  /**
   * Answers read from the cache that the run never asked for (another seed's or sample's), left out
   * of the file it wrote back, which holds this run's working set. 0 when the run stopped early or
   * could not write the file (it then keeps them).
   */
  readonly dropped: number;
  /** Why an existing cache file was not read, or why saving failed; `undefined` when all went well. */
  readonly problem: string | undefined;
}

const defaults = {
  format: undefined,
  tasks: 100,
  seed: 2027,
  seeds: undefined,
  split: 'heldout' as SplitChoice,
  compositions: compositionNames,
  feedback: undefined,
  verifier: undefined,
  verifierModel: undefined,
  verifierSensitivity: simulatedVerifierDefaults.sensitivity,
  verifierSpecificity: simulatedVerifierDefaults.specificity,
  methods: undefined,
  workers: undefined,
  onProgress: undefined,
  ops: undefined,
  keyCache: undefined,
  kind: undefined,
  strictKeys: false,
  onData: undefined,
};

/**
 * Resolves the feedback mode and the verifier together: `verifier: 'simulated'` defaults the
 * feedback to its verdicts, and `feedback: 'verifier'` alone turns the simulated verifier on (the
 * former `--feedback verifier`). `verifierAccuracy` (the former symmetric rate) is refused, and so
 * are the simulated verifier's rates without a simulated verifier (they would be ignored).
 */
export function resolveReplayVerifier(
  options: Pick<
    ReplayOptions,
    'feedback' | 'verifier' | 'verifierModel' | 'verifierSensitivity' | 'verifierSpecificity'
  > & {
    verifierAccuracy?: unknown;
  },
): { feedback: FeedbackMode; verifier: ReplayVerifierSettings } {
  if (options.verifierAccuracy !== undefined) {
    throw new InvalidArgumentError({
      parameter: 'verifierAccuracy',
      value: options.verifierAccuracy,
      message:
        'verifierAccuracy was replaced by verifierSensitivity (P(judged wrong | wrong)) and verifierSpecificity (P(judged right | right)); pass e.g. { verifier: "simulated", verifierSensitivity: 0.8, verifierSpecificity: 0.8 } for the former accuracy 0.8',
    });
  }
  if (options.feedback !== undefined && !feedbackModes.includes(options.feedback)) {
    throw new InvalidArgumentError({
      parameter: 'feedback',
      value: options.feedback,
      message: `feedback must be one of ${feedbackModes.join(', ')}, got ${JSON.stringify(options.feedback)}`,
    });
  }
  const given = options.verifier as string | undefined;
  const judge = given?.startsWith('judge:') === true ? given.slice('judge:'.length) : undefined;
  if (
    given !== undefined &&
    (judge === '' || (judge === undefined && !verifierKinds.includes(given as VerifierKind)) || given === 'judge')
  ) {
    throw new InvalidArgumentError({
      parameter: 'verifier',
      value: given,
      message: `verifier must be none, simulated or judge:<agent>, got ${JSON.stringify(given)}; pass e.g. --verifier simulated or --verifier judge:gpt-4o-2024-05-13`,
    });
  }
  if (options.verifierModel !== undefined && !verifierModels.includes(options.verifierModel)) {
    throw new InvalidArgumentError({
      parameter: 'verifierModel',
      value: options.verifierModel,
      message: `verifierModel must be one of ${verifierModels.join(', ')}, got ${JSON.stringify(options.verifierModel)}; pass e.g. --verifier-model independent`,
    });
  }
  if (options.feedback === 'verifier' && options.verifier === 'none') {
    throw new InvalidArgumentError({
      parameter: 'feedback',
      value: 'verifier',
      message:
        'feedback verifier needs a verifier, but verifier is none; pass --verifier simulated (or leave --verifier out) or --feedback consensus|truth',
    });
  }
  const kind: VerifierKind =
    judge !== undefined
      ? 'judge'
      : ((given as VerifierKind | undefined) ?? (options.feedback === 'verifier' ? 'simulated' : 'none'));
  const feedback: FeedbackMode = options.feedback ?? (kind === 'none' ? 'consensus' : 'verifier');
  const sensitivity = options.verifierSensitivity ?? simulatedVerifierDefaults.sensitivity;
  const specificity = options.verifierSpecificity ?? simulatedVerifierDefaults.specificity;
  assertInRange('verifierSensitivity', sensitivity, 0, 1, {
    hint: 'sensitivity is P(judged wrong | wrong); pass e.g. --verifier-sensitivity 0.85',
  });
  assertInRange('verifierSpecificity', specificity, 0, 1, {
    hint: 'specificity is P(judged right | right); pass e.g. --verifier-specificity 0.8',
  });
  if (
    kind !== 'simulated' &&
    (options.verifierSensitivity !== undefined ||
      options.verifierSpecificity !== undefined ||
      options.verifierModel !== undefined)
  ) {
    const rate =
      options.verifierSensitivity !== undefined
        ? 'verifierSensitivity'
        : options.verifierSpecificity !== undefined
          ? 'verifierSpecificity'
          : 'verifierModel';
    throw new InvalidArgumentError({
      parameter: rate,
      value: options[rate],
      message: `${rate} sets the simulated verifier, but the verifier is ${kind}, so it would be ignored; pass --verifier simulated with it, or leave it out`,
    });
  }
  return {
    feedback,
    verifier: {
      kind,
      model: options.verifierModel ?? 'correlated',
      sensitivity,
      specificity,
      ...(judge === undefined ? {} : { judge }),
    },
  };
}

/** The name of a run's verifier in reports: `judge:<agent>`, `correlated(S/P)` or `independent(S/P)`. */
export function verifierName(verifier: ReplayVerifierSettings): string {
  if (verifier.kind === 'judge') return `judge:${verifier.judge ?? ''}`;
  return `${verifier.model}(${verifier.sensitivity}/${verifier.specificity})`;
}

/** Mean over seeds of the measured rates (a seed without a defined rate is left out of that mean). */
function averageMeasured(list: readonly MeasuredVerifier[]): MeasuredVerifier {
  const meanOf = (pick: (measured: MeasuredVerifier) => number | null) => {
    const values = list.map(pick).filter((value): value is number => value !== null);
    return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
  };
  return {
    sensitivity: meanOf((measured) => measured.sensitivity),
    specificity: meanOf((measured) => measured.specificity),
    wrong: list.reduce((sum, measured) => sum + measured.wrong, 0) / list.length,
    right: list.reduce((sum, measured) => sum + measured.right, 0) / list.length,
  };
}

/** Throws {@link InvalidArgumentError} naming `parameter` unless `value` is an array (a string or a single value from JavaScript is not). */
function assertList(parameter: string, value: unknown, hint: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value))
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be an array, got ${JSON.stringify(value)}; ${hint}`,
    });
}

const knownReplayOptions = defineOptionKeys<ReplayOptions>()([
  'path',
  'format',
  'tasks',
  'seed',
  'seeds',
  'split',
  'compositions',
  'feedback',
  'verifier',
  'verifierModel',
  'verifierSensitivity',
  'verifierSpecificity',
  'methods',
  'workers',
  'onProgress',
  'ops',
  'keyCache',
  'kind',
  'strictKeys',
  'onData',
]);

/**
 * Runs the attack-replay benchmark: loads the dataset, and per seed samples held-out tasks, builds
 * the grid (the paper's 4 compositions × (clean + 4 placements × 7 attacks) by default), replays
 * every condition for every method on worker threads, and summarises; several seeds are averaged
 * with bootstrap intervals. The result does not depend on the worker count.
 *
 * @example
 * const { summary } = await runReplay({ path: '../shared/data/zeroeval-math-l5', seeds: [1, 2, 3] });
 * summary.methods.minirep?.attacked;
 */
export async function runReplay(options: ReplayOptions): Promise<ReplayReport> {
  // The retired verifierAccuracy gets the message that says what replaced it, not the generic one.
  const retired = (options as { verifierAccuracy?: unknown }).verifierAccuracy;
  if (retired !== undefined) resolveReplayVerifier({ verifierAccuracy: retired });
  assertKnownOptions('', options, knownReplayOptions, 'runReplay');
  const resolved = resolveOptions(defaults as unknown as Required<ReplayOptions>, options);
  if (resolved.tasks !== 'all')
    assertInteger('tasks', resolved.tasks, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. --tasks 100, or --tasks all');
  const taskCount = resolved.tasks === 'all' ? Number.MAX_SAFE_INTEGER : resolved.tasks;
  assertInteger('seed', resolved.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'pass e.g. --seed 2027');
  const seeds = options.seeds ?? [resolved.seed];
  assertList('seeds', seeds, 'pass e.g. seeds: [1, 2, 3] (--seeds 1..3)');
  if (seeds.length === 0)
    throw new InvalidArgumentError({
      parameter: 'seeds',
      value: seeds,
      message: 'seeds must list at least one seed; pass e.g. --seeds 1..10',
    });
  seeds.forEach((seed, index) =>
    assertInteger(`seeds[${index}]`, seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'pass e.g. --seeds 1..10'),
  );
  if (new Set(seeds).size !== seeds.length)
    throw new InvalidArgumentError({
      parameter: 'seeds',
      value: seeds,
      message: `seeds must not repeat, got ${seeds.join(',')}; pass e.g. --seeds 1..10`,
    });
  if (!splitChoices.includes(resolved.split)) {
    throw new InvalidArgumentError({
      parameter: 'split',
      value: resolved.split,
      message: `split must be one of ${splitChoices.join(', ')}, got ${JSON.stringify(resolved.split)}; pass e.g. --split heldout`,
    });
  }
  const compositions = resolved.compositions;
  assertList('compositions', compositions, `pass e.g. compositions: ['${compositionNames.join("', '")}']`);
  if (
    compositions.length === 0 ||
    compositions.some((composition) => !allCompositionNames.includes(composition)) ||
    new Set(compositions).size !== compositions.length
  ) {
    throw new InvalidArgumentError({
      parameter: 'compositions',
      value: compositions,
      message: `compositions must be distinct names among ${allCompositionNames.join(', ')}; pass e.g. --compositions ${compositionNames.join(',')}`,
    });
  }
  const { feedback, verifier } = resolveReplayVerifier(options);
  const workers = options.workers ?? Math.min(2, availableParallelism());
  assertInteger('workers', workers, 1, 64, 'pass e.g. --workers 2');
  const requested = options.methods ?? (verifier.kind === 'none' ? replayMethodNames : verifierReplayMethodNames);
  if (verifier.kind === 'none') {
    const needy = requested.find((method) => typeof method === 'string' && verifierOnlyMethodNames.includes(method)) as
      | string
      | undefined;
    if (needy !== undefined)
      throw new InvalidArgumentError({
        parameter: 'methods',
        value: needy,
        message: `method ${needy} votes over the proposals a verifier accepts, but this run has no verifier; pass --verifier simulated (or judge:<agent>), or leave ${needy} out`,
      });
  }
  assertList('methods', requested, `pass e.g. methods: ['majority', 'minirep']`);
  if (requested.length === 0)
    throw new InvalidArgumentError({
      parameter: 'methods',
      value: requested,
      message: `methods must name at least one method; pass e.g. --methods ${replayMethodNames.join(',')}, or leave it out for those`,
    });
  const methods = requested.map((method) =>
    typeof method === 'string' ? resolveReplayMethods([method])[0] : method,
  ) as ReplayMethod[];
  if (new Set(methods.map((method) => method.name)).size !== methods.length) {
    throw new InvalidArgumentError({
      parameter: 'methods',
      value: methods.map((method) => method.name),
      message: 'methods must not repeat a name',
    });
  }
  if (workers > 1 && requested.some((method) => typeof method !== 'string')) {
    throw new InvalidArgumentError({
      parameter: 'methods',
      value: '(method objects)',
      message: 'method objects cannot be sent to worker threads; pass registered method names or workers: 1',
    });
  }
  // One table per run: the audit, preparation and planning ask the same questions many times. With a
  // key cache the table starts from the saved answers.
  let cache: AnswerKeyCache | undefined;
  let cacheFailure: KeyCacheUse | undefined;
  if (options.keyCache !== undefined && options.ops === undefined) {
    try {
      cache = loadAnswerKeyCache(options.keyCache, resolved.path);
    } catch (error) {
      // The cache only saves time: a run whose code cannot be fingerprinted runs without it, and says so.
      cacheFailure = {
        file: options.keyCache,
        loaded: 0,
        computed: 0,
        dropped: 0,
        problem: `not used: ${(error as Error).message}`,
      };
    }
  }
  const ops = memoizeAnswerOps(options.ops ?? createDefaultAnswerOps(), cache?.tables);
  if (options.ops !== undefined && workers > 1) {
    throw new InvalidArgumentError({
      parameter: 'ops',
      value: '(custom ops)',
      message: 'custom answer ops cannot be sent to worker threads; use workers: 1',
    });
  }

  if (options.kind !== undefined && !answerKinds.includes(options.kind)) {
    throw new InvalidArgumentError({
      parameter: 'kind',
      value: options.kind,
      message: `kind must be one of ${answerKinds.join(', ')}, got ${JSON.stringify(options.kind)}; omit it to use the kinds the dataset declares`,
    });
  }

  // With N workers, N − 1 worker threads replay next to this thread (one fewer isolate to start and
  // warm up than N workers beside an idle one). They start first, so that their start-up overlaps
  // loading and auditing the dataset, and serve every seed.
  const pool: WorkerPool | undefined = workers > 1 ? createWorkerPool(workers - 1) : undefined;
  const loadStart = performance.now();
  let loadMs: number;
  let dataset: ProposalsDataset;
  let audit: KeyAudit;
  try {
    const loaded = await loadDataset(resolved.path, options.format);
    loadMs = performance.now() - loadStart;
    const kind = options.kind;
    dataset =
      kind === undefined
        ? loaded
        : {
            ...loaded,
            tasks: loaded.tasks.map((task) => ({ ...task, kind })),
            kindSource: `--kind ${kind} (the dataset says: ${loaded.kindSource ?? 'nothing'})`,
          };
    audit = auditKeys({ dataset, ops });
  } catch (error) {
    await pool?.close();
    throw error;
  }
  let dataAudit: ReplayDataAudit | undefined;
  let prepareMs = 0;
  let planMs = 0;
  let gridMs = 0;
  let proposalsEvaluated = 0;
  let teamMissingProposals = 0;
  const workerCpuMs: number[] = [];
  const perSeedSummaries: SeedSummary[] = [];
  const measuredPerSeed: MeasuredVerifier[] = [];
  const perSeedRows: ConditionRow[][] = [];
  const limitsPerSeed: (DatasetLimits & { bestSingleInTeam: Record<string, number> })[] = [];
  let firstCounts: PreparationCounts | undefined;
  let firstConditions: Condition[] = [];
  const descriptions = Object.fromEntries(methods.map((method) => [method.name, method.description]));
  const methodNames = methods.map((method) => method.name);
  const byName = new Map(methods.map((method) => [method.name, method]));
  const methodsNamed = (names: readonly string[]) => names.map((name) => byName.get(name) as ReplayMethod);
  let done = 0;
  let keyCacheUse: KeyCacheUse | undefined;
  let finished = false;
  try {
    for (const seed of seeds) {
      const prepareStart = performance.now();
      const { prepared: sampled, counts } = prepareReplay({
        dataset,
        ops,
        seed,
        tasks: taskCount,
        split: resolved.split,
        file: resolved.path,
      });
      // A judge leaves the pool before the teams are built: it never sits in a team.
      const prepared = verifier.judge === undefined ? sampled : withJudge(sampled, verifier.judge);
      const measured = measureReplayVerifier({ prepared, settings: verifier, seed });
      if (measured !== undefined) measuredPerSeed.push(measured);
      const conditions: Condition[] = buildGrid(prepared.agents, seed, { compositions });
      prepareMs += performance.now() - prepareStart;
      firstCounts ??= counts;
      if (dataAudit === undefined) {
        // The merged-answer audit covers the whole dataset; its flag limits use the first seed's sample.
        dataAudit = {
          kinds: audit.kinds,
          kindSource: dataset.kindSource ?? 'not stated by the loader',
          keyGroups: audit.keyGroups,
          mixedKeys: audit.mixedKeys,
          mixedKeyExamples: audit.examples,
          literalFallbacks: audit.literalFallbacks,
          flagLimits:
            dataset.correctness === 'equivalence'
              ? null
              : flagLimits({ dataset, taskIds: prepared.tasks.map((task) => task.id) }),
        };
        options.onData?.(dataAudit);
        if (resolved.strictKeys && audit.mixedRate > mixedKeyThreshold) {
          const examples = audit.examples
            .map((example) => `${example.task}: ${example.key} (${example.answers.join(', ')})`)
            .join('; ');
          throw new DataFormatError({
            file: resolved.path,
            message: `${audit.mixedKeys} of ${audit.keyGroups} (task, key) groups (${(100 * audit.mixedRate).toFixed(2)}%, above ${100 * mixedKeyThreshold}%) mix answers the dataset flags correct and wrong under kind ${describeKinds(audit.kinds)} (${dataAudit.kindSource}), e.g. ${examples}; pass --kind <kind> to key answers by the dataset's rule, or drop --strict-keys to replay anyway`,
          });
        }
      }
      if (firstConditions.length === 0) firstConditions = conditions;
      const total = conditions.length * seeds.length;
      const progress = () => options.onProgress?.(++done, total);
      const gridStart = performance.now();
      const settings = { seed, feedback, verifier, ops };
      // Every answer-kind decision (attack plans, payload scores) is made in this thread, one condition
      // at a time as its first unit is handed out, so workers start at once and no thread holds the
      // whole plan.
      const planCondition = (index: number): GridPlan => {
        const planStart = performance.now();
        const condition = conditions[index];
        if (condition === undefined) throw new InternalError(`replay: no condition ${index} in the grid`);
        const plan = planGrid({ prepared, conditions: [condition], seed, ops });
        planMs += performance.now() - planStart;
        return plan;
      };
      const schedule = createGridSchedule({
        conditions,
        methods,
        lanes: pool === undefined ? 1 : workers,
        plan: planCondition,
      });
      // Results are folded into the seed's summary as they arrive; none is kept once summarised.
      const summariser = createSeedSummariser({ conditions, methods: methodNames, descriptions });
      const collect = (unitResult: ConditionResult) => {
        const result = schedule.merge(unitResult);
        if (result === undefined) return;
        summariser.add(result);
        teamMissingProposals += result.missing;
        for (const run of result.runs) proposalsEvaluated += run.proposals;
        progress();
      };
      const poolRun =
        pool === undefined
          ? undefined
          : pool.run(
              { prepared, conditions, methods: methodNames, seed, feedback, verifier },
              schedule.take,
              schedule.planFor,
              collect,
            );
      // A pool failure stops this thread's lane at its next condition; the await below rethrows it.
      let poolFailed = false;
      poolRun?.catch(() => {
        poolFailed = true;
      });
      // This thread is lane 0: it replays units of the same grid as the workers, and between two of
      // them it answers the workers (results in, plans out).
      for (let unit = schedule.take(0); unit !== undefined && !poolFailed; unit = schedule.take(0)) {
        const condition = conditions[unit.index] as Condition;
        const plan = schedule.planFor(unit.index);
        const unitMethods = unit.methods.length === methods.length ? methods : methodsNamed(unit.methods);
        collect(
          runCondition({
            prepared,
            condition,
            methods: unitMethods,
            settings,
            plan,
            attacks: unit.attacks,
            reportAttacks: unit.reportAttacks === true,
          }),
        );
        if (poolRun !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (poolRun !== undefined) {
        const outcome = await poolRun;
        // Each worker's thread CPU time so far, start-up included and earlier seeds included.
        outcome.threadCpuMs.forEach((value, index) => (workerCpuMs[index] = value));
      }
      gridMs += performance.now() - gridStart;
      const seedSummary = summariser.finish();
      perSeedSummaries.push(seedSummary);
      perSeedRows.push(seedSummary.rows);
      limitsPerSeed.push(
        computeLimits(
          prepared,
          ops,
          Object.fromEntries(
            conditions
              .filter((condition) => condition.attack === null)
              .map((condition) => [condition.composition, condition.team]),
          ),
        ),
      );
    }
    finished = true;
  } finally {
    await pool?.close();
    keyCacheUse =
      cache === undefined
        ? cacheFailure && { ...cacheFailure, computed: ops.computed() }
        : writeBackAnswerKeyCache(cache, ops, finished);
  }

  const combined = combineSeeds(perSeedSummaries);
  const teams: Record<string, readonly string[]> = {};
  for (const condition of firstConditions) teams[condition.composition] = condition.team;
  const averageLimit = (pick: (limits: DatasetLimits) => number) =>
    limitsPerSeed.reduce((sum, limits) => sum + pick(limits), 0) / limitsPerSeed.length;
  const summary: ReplaySummary = {
    schemaVersion: 2,
    options: {
      path: resolved.path,
      format: dataset.format,
      tasks: resolved.tasks,
      seeds: [...seeds],
      split: resolved.split,
      compositions: [...compositions],
      feedback,
      verifier,
      methods: methodNames,
    },
    ...(measuredPerSeed.length === 0
      ? {}
      : { verifier: { name: verifierName(verifier), measured: averageMeasured(measuredPerSeed) } }),
    data: {
      name: dataset.name,
      correctness: dataset.correctness,
      skipped: dataset.skipped,
      ...(firstCounts as PreparationCounts),
      teamMissingProposals,
      ...(dataAudit as ReplayDataAudit),
    },
    grid: {
      conditions: firstConditions.length,
      clean: firstConditions.filter((condition) => condition.attack === null).length,
      attacked: firstConditions.filter((condition) => condition.attack !== null).length,
      teams,
    },
    limits: {
      coverage: averageLimit((limits) => limits.coverage),
      majorityAll: averageLimit((limits) => limits.majorityAll),
      bestSingle: averageLimit((limits) => limits.bestSingle),
      bestSingleAgent: limitsPerSeed[0]?.bestSingleAgent ?? '',
      bestSingleInTeam: Object.fromEntries(
        compositions.map((composition) => [
          composition,
          limitsPerSeed.reduce((sum, limits) => sum + (limits.bestSingleInTeam[composition] ?? 0), 0) /
            limitsPerSeed.length,
        ]),
      ),
    },
    methods: combined.methods,
    retention: combined.retention,
    byComposition: combined.byComposition,
    intervals: bootstrapIntervals({ seeds, rows: perSeedRows, methods: methodNames }),
    perSeed: perSeedSummaries.map((seedSummary, index) => ({
      seed: seeds[index] as number,
      methods: Object.fromEntries(
        Object.entries(seedSummary.methods).map(([name, method]) => [
          name,
          {
            clean: method.clean,
            attacked: method.attacked,
            loss: method.loss,
            strictWins: method.strictWins,
            significantWins: method.significantWins,
          },
        ]),
      ),
    })),
    trajectories: combined.trajectories,
  };
  const rows = perSeedRows.flatMap((seedRows, index) =>
    seedRows.map((row) => ({ seed: seeds[index] as number, ...row })),
  );
  return {
    summary,
    rows,
    timing: { loadMs, prepareMs, planMs, gridMs, workerCpuMs, proposalsEvaluated },
    ...(keyCacheUse === undefined ? {} : { keyCache: keyCacheUse }),
  };
}
