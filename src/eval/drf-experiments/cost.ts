// Experiment `cost`: DRF claims better quality at lower cost than asking everyone. On recorded
// answers (ZeroEval MATH level 5 by default), compare accuracy and LLM calls per task of DRF with a
// team of k = 3, 4, 5 out of 10 against the full team of 10 (plain plurality, and DRF with k = 10).
import type { Agent } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { resolveOptions } from '../../core/options.js';
import type { Proposal } from '../../core/proposal.js';
import { createRng, deriveSeed, shuffle } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import {
  assertInRange,
  assertInteger,
  assertKnownOptions,
  assertOneOf,
  defineOptionKeys,
} from '../../core/validate.js';
import { agreementRatingSource, simulatedJudgeRatingSource } from '../../protocols/drf/rating-source.js';
import { runDrf } from '../../protocols/drf/run-drf.js';
import { decideTeamAnswer } from '../../protocols/drf/team-answer.js';
import {
  drfConfigParts,
  drfEquationVariant,
  drfPrintedConfig,
  drfReviewConfig,
  type DrfExperimentConfig,
} from './drf-config.js';
import type { ExperimentHooks } from './experiment-hooks.js';
import { prepareReplayPool, tieBreakOrder, type ReplayData, type ReplayItem } from './replay-pool.js';
import { nonNegativeRange, tInterval, unitRange, type MeanInterval } from './stats.js';

export type { ReplayData, ReplayItem } from './replay-pool.js';

/** Options of {@link runCostExperiment}. */
export interface CostExperimentOptions extends ExperimentHooks {
  /** Seeds (task orders and tie-breaks), ≥ 2. @default 10 */
  readonly seeds?: number;
  /** First seed. @default 2027 */
  readonly baseSeed?: number;
  /** Pool size taken from the dataset. @default 10 */
  readonly poolSize?: number;
  /** Team sizes k to run DRF with. @default [3, 4, 5] */
  readonly teamSizes?: readonly number[];
  /** Tasks per seed (a seeded sample; 0 = all). @default 0 */
  readonly tasks?: number;
  /** Ratings: `agreement` with the rater's own answer, or a simulated judge of `judgeAccuracy`. @default 'agreement' */
  readonly rating?: 'agreement' | 'judge';
  /** Accuracy of the simulated judge when `rating` is `judge`. @default 0.8 */
  readonly judgeAccuracy?: number;
  /** Weight δ of reputation against cost (all prices equal: the data has none). @default 0.7 */
  readonly delta?: number;
  /** Filter threshold on reputation. @default 0.3 */
  readonly threshold?: number;
  /** Canonical key of a raw answer, so equivalent answers vote together. @default the task kind's canonicalAnswerKey */
  readonly answerKey?: (answer: string, kind: AnswerKind) => string | null;
  /** Which tasks to run: the declared held-out split (default), the tuning split, or all. @default 'heldout' */
  readonly split?: 'heldout' | 'tuning' | 'all';
  /** Cost term of Eq. 9: U(0, 1) per agent and round (Section 5.1; the data has no prices) or per agent (all 1). @default 'per-round' */
  readonly costs?: 'per-round' | 'per-agent';
  /** DRF configurations to run at every team size. @default the review's corrections, then the paper as printed */
  readonly configs?: readonly DrfExperimentConfig[];
  /** Also run DRF with the strict filter (minEligible 1) for the first configuration. @default false */
  readonly strict?: boolean;
}

/** One method's results. */
export interface CostRow {
  /** Method label, e.g. `DRF k=3` or `full team, plurality`. */
  readonly method: string;
  /** Team size k asked for. */
  readonly teamSize: number;
  /** Mean agents actually asked per task (below k when the strict filter shrinks the team). */
  readonly meanTeamSize: number;
  /** Fraction of tasks whose team answer the dataset flags correct, in [0, 1], over seeds. */
  readonly accuracy: MeanInterval;
  /** Measured LLM calls per task: proposals plus one call per rating (n + n·(n − 1) for a team of n). */
  readonly callsPerTask: number;
  /** Calls per task if a rater judged all its peers in one call (n + n for a team of n ≥ 2). */
  readonly batchedCallsPerTask: number;
  /** Accuracy relative to the full team's plurality, per seed then averaged (1 = equal). */
  readonly relativeAccuracy: MeanInterval;
  /** Calls per task as a share of the full team's (one call per agent). */
  readonly callShare: number;
  /** Batched calls per task as a share of the full team's. */
  readonly batchedCallShare: number;
}

/** Result of the cost experiment. */
export interface CostExperimentResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Name of the experiment that produced the result. */
  readonly experiment: 'cost';
  /** Name of the replayed dataset. */
  readonly dataset: string;
  /** Resolved settings plus descriptions of the interval reported and of how the pool was chosen. */
  readonly settings: Omit<Required<CostExperimentOptions>, 'answerKey' | 'selectorFactory' | 'configs'> & {
    readonly interval: string;
    readonly poolChoice: string;
    readonly configs: readonly string[];
    readonly taskCount: number;
  };
  /** The pool: agent ids with their accuracy on the full dataset (used only to choose the pool). */
  readonly pool: ReadonlyArray<{ readonly agentId: AgentId; readonly accuracy: number }>;
  /** One row per distinct method: full team plurality, DRF per team size, DRF with the full team, then DRF with the strict filter. */
  readonly rows: readonly CostRow[];
  /** Reference points over the same tasks: best single pool agent, and whether any pool agent was right. */
  readonly bestSingle: { readonly agentId: AgentId; readonly accuracy: number };
  /** Fraction of dataset tasks that at least one pool agent answered correctly, in [0, 1]. */
  readonly coverage: number;
  /**
   * DRF's claim "≥ 98% of the full team's accuracy at ≤ 50% of its calls", checked on every DRF row
   * with k ≤ 5: the rows that meet it, counting every rating call and with ratings batched.
   */
  readonly claim: {
    readonly holds: boolean;
    readonly rows: readonly string[];
    readonly holdsBatched: boolean;
    readonly rowsBatched: readonly string[];
  };
}

const defaults: Omit<Required<CostExperimentOptions>, 'answerKey' | 'selectorFactory' | 'configs'> = {
  seeds: 20,
  baseSeed: 1,
  poolSize: 10,
  teamSizes: [2, 3, 4, 5],
  tasks: 0,
  rating: 'agreement',
  judgeAccuracy: 0.8,
  delta: 0.7,
  threshold: 0.3,
  split: 'heldout',
  costs: 'per-round',
  strict: false,
};

const knownCostOptions = defineOptionKeys<CostExperimentOptions>()([
  'seeds',
  'baseSeed',
  'poolSize',
  'teamSizes',
  'tasks',
  'rating',
  'judgeAccuracy',
  'delta',
  'threshold',
  'answerKey',
  'split',
  'costs',
  'configs',
  'strict',
  'selectorFactory',
]);

/**
 * Replays recorded answers through DRF with k = 3, 4, 5 of a 10-agent pool and through the full
 * team, on the same tasks and seeds. The pool: agents that answered every task, ranked by dataset
 * accuracy, taken at evenly spaced ranks (best, ..., worst), so it spans the capability range;
 * accuracy is used only to choose the pool, never by a method.
 *
 * @example
 * const data = await loadDataset('../shared/data/zeroeval-math-l5');
 * const result = await runCostExperiment(data, { seeds: 5 });
 */
export async function runCostExperiment(
  data: ReplayData,
  options: CostExperimentOptions = {},
): Promise<CostExperimentResult> {
  assertKnownOptions('', options, knownCostOptions, 'runCostExperiment');
  const { answerKey, selectorFactory: makeSelector, configs = [drfReviewConfig, drfPrintedConfig], ...rest } = options;
  const settings = resolveOptions(defaults, rest);
  assertInteger('seeds', settings.seeds, 2, 10_000, 'intervals need at least 2 seeds');
  assertInteger('poolSize', settings.poolSize, 2, 1000);
  settings.teamSizes.forEach((k, index) =>
    assertInteger(`teamSizes[${index}]`, k, 2, settings.poolSize, 'DRF ratings need a team of at least 2'),
  );
  assertInteger('tasks', settings.tasks, 0, 10_000_000);
  assertInRange('judgeAccuracy', settings.judgeAccuracy, 0, 1);
  assertOneOf('rating', settings.rating, ['agreement', 'judge']);
  assertOneOf('split', settings.split, ['heldout', 'tuning', 'all']);
  assertOneOf('costs', settings.costs, ['per-round', 'per-agent']);
  if (configs.length === 0)
    throw new InvalidArgumentError({
      parameter: 'configs',
      value: configs,
      message: 'pass at least one DRF configuration',
    });
  const prepared = prepareReplayPool(data, { poolSize: settings.poolSize, split: settings.split, answerKey });
  const { splitTasks, complete, picks, poolIds, keys, correctKeys, isCorrect } = prepared;
  const pool = (): Agent[] => prepared.agents();

  const [first] = configs as [DrfExperimentConfig, ...DrfExperimentConfig[]];
  const methods = [
    { method: 'full team, plurality', k: settings.poolSize, drf: false, minEligible: settings.poolSize, config: first },
    ...configs.flatMap((config) =>
      settings.teamSizes.map((k) => ({ method: `DRF k=${k}, ${config.name}`, k, drf: true, minEligible: k, config })),
    ),
    {
      method: `DRF k=${settings.poolSize} (full team), ${first.name}`,
      k: settings.poolSize,
      drf: true,
      minEligible: settings.poolSize,
      config: first,
    },
    ...(settings.strict
      ? settings.teamSizes.map((k) => ({
          method: `DRF k=${k}, strict filter, ${first.name}`,
          k,
          drf: true,
          minEligible: 1,
          config: first,
        }))
      : []),
  ];
  const unique = methods.filter(
    (method, index) => methods.findIndex((other) => other.method === method.method) === index,
  );
  const accuracies = new Map(unique.map((method) => [method.method, [] as number[]]));
  const calls = new Map(unique.map((method) => [method.method, { calls: 0, batched: 0, asked: 0, rounds: 0 }]));
  let sampleTasks: ReplayItem[] = [];
  for (let index = 0; index < settings.seeds; index++) {
    const seed = settings.baseSeed + index;
    const ordered = shuffle(createRng(deriveSeed(seed, 'cost-order')), splitTasks);
    sampleTasks = settings.tasks > 0 ? ordered.slice(0, settings.tasks) : ordered;
    const tasks: Task[] = sampleTasks.map((item) => ({ id: item.id, kind: item.kind, prompt: item.prompt ?? '' }));
    for (const method of unique) {
      let correct = 0;
      if (!method.drf) {
        for (const task of tasks) {
          const perAgent = keys.get(task.id) as Map<AgentId, string | null>;
          // seeded order per task: a tie must not go to the agent ranked better by dataset accuracy
          const proposals: Proposal[] = tieBreakOrder(seed, task.id, poolIds).map((agentId) => ({
            agentId,
            taskId: task.id,
            round: 0,
            text: '',
            answer: perAgent.get(agentId) ?? null,
          }));
          if (isCorrect(task.id, decideTeamAnswer({ taskId: task.id, proposals, weights: {} }).answer)) correct += 1;
        }
        const tally = calls.get(method.method) as { calls: number; batched: number; asked: number; rounds: number };
        tally.calls += tasks.length * poolIds.length;
        tally.batched += tasks.length * poolIds.length;
        tally.asked += tasks.length * poolIds.length;
        tally.rounds += tasks.length;
      } else {
        const result = await runDrf({
          pool: pool(),
          tasks,
          k: method.k,
          minEligible: method.minEligible,
          threshold: settings.threshold,
          costModel: settings.costs,
          costSeed: deriveSeed(seed, 'cost-costs'),
          ...drfConfigParts(method.config, poolIds, {
            delta: settings.delta,
            ratingSource:
              settings.rating === 'agreement'
                ? agreementRatingSource()
                : simulatedJudgeRatingSource({
                    accuracy: settings.judgeAccuracy,
                    isCorrect: (proposal) => isCorrect(proposal.taskId, proposal.answer),
                    seed,
                  }),
          }),
          ...(makeSelector === undefined
            ? {}
            : {
                selector: makeSelector(
                  drfEquationVariant(method.config, 'eq9') === 'printed' ? 'ucb-printed' : 'ucb-corrected',
                  settings.delta,
                ),
              }),
          rng: createRng(deriveSeed(seed, 'cost-select', method.method)),
        });
        correct = result.rounds.filter((round) => isCorrect(round.taskId, round.decision.answer)).length;
        const tally = calls.get(method.method) as { calls: number; batched: number; asked: number; rounds: number };
        for (const round of result.rounds) {
          const size = round.team.length;
          tally.calls += round.calls;
          tally.batched += size + (size > 1 ? size : 0);
          tally.asked += size;
          tally.rounds += 1;
        }
      }
      accuracies.get(method.method)?.push(correct / tasks.length);
    }
  }
  const taskIds = splitTasks.map((item) => item.id);
  const singles = poolIds.map((agentId) => ({
    agentId,
    accuracy:
      taskIds.filter((taskId) => isCorrect(taskId, keys.get(taskId)?.get(agentId) ?? null)).length / taskIds.length,
  }));
  const best = singles.reduce((left, right) => (right.accuracy > left.accuracy ? right : left));
  const coverage = taskIds.filter((taskId) => (correctKeys.get(taskId)?.size ?? 0) > 0).length / taskIds.length;
  const fullTeam = accuracies.get('full team, plurality') as number[];
  const fullCalls = poolIds.length;
  const rows: CostRow[] = unique.map((method) => {
    const tally = calls.get(method.method) as { calls: number; batched: number; asked: number; rounds: number };
    const perSeed = accuracies.get(method.method) as number[];
    return {
      method: method.method,
      teamSize: method.k,
      accuracy: tInterval(perSeed, 0.95, unitRange),
      meanTeamSize: tally.asked / tally.rounds,
      callsPerTask: tally.calls / tally.rounds,
      batchedCallsPerTask: tally.batched / tally.rounds,
      // relative accuracy per seed: acc_DRF / acc_full (same tasks)
      relativeAccuracy: tInterval(
        perSeed.map((value, index) => value / (fullTeam[index] as number)),
        0.95,
        nonNegativeRange,
      ),
      callShare: tally.calls / tally.rounds / fullCalls,
      batchedCallShare: tally.batched / tally.rounds / fullCalls,
    };
  });
  const candidates = rows.filter((row) => row.method.startsWith('DRF') && row.teamSize <= 5);
  // claim: mean relative accuracy ≥ 0.98 at a call share ≤ 0.5
  const meets = (share: (row: CostRow) => number) =>
    candidates.filter((row) => row.relativeAccuracy.mean >= 0.98 && share(row) <= 0.5).map((row) => row.method);
  const claimRows = meets((row) => row.callShare);
  const claimRowsBatched = meets((row) => row.batchedCallShare);
  return {
    schemaVersion: 1,
    experiment: 'cost',
    dataset: data.name,
    settings: {
      ...settings,
      configs: configs.map((config) => config.name),
      taskCount: sampleTasks.length,
      interval: '95% Student-t interval over seeds (task orders)',
      poolChoice: `agents with an answer to all ${data.tasks.length} tasks (${complete.length}), ranked by dataset accuracy, taken at ${settings.poolSize} evenly spaced ranks`,
    },
    pool: picks.map((pick) => ({ agentId: pick.agent.id, accuracy: pick.accuracy })),
    rows,
    bestSingle: best,
    coverage,
    claim: {
      holds: claimRows.length > 0,
      rows: claimRows,
      holdsBatched: claimRowsBatched.length > 0,
      rowsBatched: claimRowsBatched,
    },
  };
}
