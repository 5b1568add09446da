// Experiment `budget`: DRF against the baselines of its paper's comparison, at equal call budgets,
// on recorded answers. The paper (arXiv 2509.05764) compares DRF with DyLAN, Reflexion, CodeT and
// LLM-Debate on HumanEval and BigBench; offline we can replay recorded answers only, so:
//   majority      m = B agents drawn at random per task, plurality of their answers;
//   LLM-Debate    ⌊B/2⌋ agents drawn at random per task, two rounds (answer, revise), final
//                 plurality; recorded answers cannot be re-asked, so a revision repeats the recorded
//                 answer and the debate's gain from revision is not measured (it counts its calls);
//   DyLAN-style   the whole pool answers and rates each other on the first W tasks; each agent's
//                 importance is the mean peer rating it received there (a one-layer reading of
//                 DyLAN's Agent Importance Score); the top m by importance answer the rest, plurality;
//                 m is the largest whose mean calls per task (warm-up included) fit the budget;
//   DRF           the review's corrections with the largest team k whose calls fit the budget.
// Ratings (DRF and DyLAN) come from agreement with the rater's own answer or a simulated judge.
// "≥ 98% of the full team's accuracy at ≤ 50% of its calls" is our reading, not the paper's claim;
// it is checked at every budget.
import type { Agent } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
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
import {
  agreementRatingSource,
  simulatedJudgeRatingSource,
  type RatingSource,
} from '../../protocols/drf/rating-source.js';
import { runDrf } from '../../protocols/drf/run-drf.js';
import { decideTeamAnswer } from '../../protocols/drf/team-answer.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import type { ReplayData } from './cost.js';
import { drfConfigParts, drfReviewConfig } from './drf-config.js';
import { prepareReplayPool, tieBreakOrder, type ReplayPool } from './replay-pool.js';
import { nonNegativeRange, tInterval, unitRange, type MeanInterval } from './stats.js';

/** The methods compared at each budget. */
export type BudgetMethod = 'majority' | 'llm-debate' | 'dylan' | 'drf';

/** Options of {@link runBudgetExperiment}. */
export interface BudgetExperimentOptions {
  /** Seeds (task orders, random teams), ≥ 2. @default 20 */
  readonly seeds?: number;
  /** First seed. @default 1 */
  readonly baseSeed?: number;
  /** Pool size taken from the dataset (the full team). @default 10 */
  readonly poolSize?: number;
  /** Budgets in LLM calls per task (the full team's plurality costs `poolSize`). @default [3, 4, 5, 6, 8, 10] */
  readonly budgets?: readonly number[];
  /** How a rater's ratings are counted: one call per rater (`batched`) or one per rating (`every`). @default 'batched' */
  readonly callCounting?: 'batched' | 'every';
  /** Ratings used by DRF and DyLAN: both kinds by default. @default ['agreement', 'judge'] */
  readonly ratings?: ReadonlyArray<'agreement' | 'judge'>;
  /** Accuracy of the simulated judge. @default 0.8 */
  readonly judgeAccuracy?: number;
  /** DyLAN-style warm-up tasks answered and rated by the whole pool. @default 20 */
  readonly warmup?: number;
  /** Which tasks to run: the declared held-out split (default), the tuning split, or all. @default 'heldout' */
  readonly split?: 'heldout' | 'tuning' | 'all';
  /** Tasks per seed (a seeded sample; 0 = all). @default 0 */
  readonly tasks?: number;
  /** Canonical key of a raw answer. @default the task kind's canonicalAnswerKey */
  readonly answerKey?: (answer: string, kind: AnswerKind) => string | null;
}

/** One method at one budget. */
export interface BudgetRow {
  /** Budget in calls per task. */
  readonly budget: number;
  /** Budget as a share of the full team's calls. */
  readonly budgetShare: number;
  /** Which method. */
  readonly method: BudgetMethod;
  /** Ratings used (DRF and DyLAN), or `none`. */
  readonly rating: 'agreement' | 'judge' | 'none';
  /** Agents per task the budget allows: m (majority, debate, DyLAN after warm-up) or k (DRF); 0 when none fits. */
  readonly agents: number;
  /** Measured mean LLM calls per task (warm-up included). */
  readonly callsPerTask: number;
  /** Calls per task as a share of the full team's plurality (the call ratio). */
  readonly callRatio: number;
  /** Accuracy on the tasks, over seeds; null when no team fits the budget. */
  readonly accuracy: MeanInterval | null;
  /** Accuracy relative to the full team's plurality per seed (the accuracy ratio); null when no team fits. */
  readonly accuracyRatio: MeanInterval | null;
  /** Our reading of DRF's efficiency: accuracy ratio ≥ 0.98 at call ratio ≤ 0.5. */
  readonly meetsOurClaim: boolean;
}

/** Result of the budget experiment. */
export interface BudgetExperimentResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Name of the experiment. */
  readonly experiment: 'budget';
  /** Name of the replayed dataset. */
  readonly dataset: string;
  /** Resolved settings plus what the interval and the claim are. */
  readonly settings: Omit<Required<BudgetExperimentOptions>, 'answerKey'> & {
    readonly interval: string;
    readonly taskCount: number;
    readonly claim: string;
  };
  /** The pool, best first, with each agent's dataset accuracy (used only to choose the pool). */
  readonly pool: ReadonlyArray<{ readonly agentId: AgentId; readonly accuracy: number }>;
  /** The full team's plurality (n calls per task), the reference of every ratio. */
  readonly fullTeam: MeanInterval;
  /** One row per budget, method and rating. */
  readonly rows: readonly BudgetRow[];
  /** Budgets (≤ 50% of the full team's calls) at which some DRF row meets our claim. */
  readonly drfMeetsOurClaimAt: readonly number[];
}

const defaults: Omit<Required<BudgetExperimentOptions>, 'answerKey'> = {
  seeds: 20,
  baseSeed: 1,
  poolSize: 10,
  budgets: [3, 4, 5, 6, 8, 10],
  callCounting: 'batched',
  ratings: ['agreement', 'judge'],
  judgeAccuracy: 0.8,
  warmup: 20,
  split: 'heldout',
  tasks: 0,
};

const knownBudgetOptions = defineOptionKeys<BudgetExperimentOptions>()([
  'seeds',
  'baseSeed',
  'poolSize',
  'budgets',
  'callCounting',
  'ratings',
  'judgeAccuracy',
  'warmup',
  'split',
  'tasks',
  'answerKey',
]);

/** Calls of one round of a rated team of `size`: proposals plus ratings (per rater, or per rating). */
export function ratedTeamCalls(size: number, counting: 'batched' | 'every'): number {
  if (size < 2) return size;
  // batched: k proposals + k rating calls; every: k + k·(k − 1)
  return counting === 'batched' ? 2 * size : size * size;
}

/** Largest DRF team k ≥ 2 whose calls per task fit the budget, or 0. */
export function drfTeamForBudget(budget: number, poolSize: number, counting: 'batched' | 'every'): number {
  let best = 0;
  for (let k = 2; k <= poolSize; k++) if (ratedTeamCalls(k, counting) <= budget) best = k;
  return best;
}

/**
 * Largest DyLAN-style team m after a warm-up of `warmup` of `taskCount` tasks by the whole rated
 * pool, such that the mean calls per task fit the budget; 0 when even m = 1 does not fit.
 */
export function dylanTeamForBudget(
  budget: number,
  {
    poolSize,
    warmup,
    taskCount,
    counting,
  }: { poolSize: number; warmup: number; taskCount: number; counting: 'batched' | 'every' },
): number {
  const warm = Math.min(warmup, taskCount);
  let best = 0;
  for (let m = 1; m <= poolSize; m++) {
    // mean calls = (W·calls(pool rated) + (T − W)·m) / T
    const calls = (warm * ratedTeamCalls(poolSize, counting) + (taskCount - warm) * m) / taskCount;
    if (calls <= budget + 1e-12) best = m;
  }
  return best;
}

/**
 * Replays recorded answers through DRF and the majority, LLM-Debate-style and DyLAN-style
 * baselines at each call budget, with agreement and judge ratings, over seeded task orders.
 *
 * @example
 * const result = await runBudgetExperiment(await loadDataset(path), { budgets: [4, 5, 6] });
 * result.rows.filter((row) => row.method === 'drf').map((row) => row.accuracyRatio?.mean);
 */
export async function runBudgetExperiment(
  data: ReplayData,
  options: BudgetExperimentOptions = {},
): Promise<BudgetExperimentResult> {
  assertKnownOptions('', options, knownBudgetOptions, 'runBudgetExperiment');
  const { answerKey, ...rest } = options;
  const settings = resolveOptions(defaults, rest);
  assertInteger('seeds', settings.seeds, 2, 10_000, 'intervals need at least 2 seeds');
  assertInteger('poolSize', settings.poolSize, 2, 1000);
  settings.budgets.forEach((budget, index) => assertInteger(`budgets[${index}]`, budget, 1, 1_000_000));
  assertOneOf('callCounting', settings.callCounting, ['batched', 'every']);
  settings.ratings.forEach((rating, index) => assertOneOf(`ratings[${index}]`, rating, ['agreement', 'judge']));
  assertInRange('judgeAccuracy', settings.judgeAccuracy, 0, 1);
  assertInteger('warmup', settings.warmup, 0, 1_000_000);
  assertOneOf('split', settings.split, ['heldout', 'tuning', 'all']);
  assertInteger('tasks', settings.tasks, 0, 10_000_000);
  const prepared = prepareReplayPool(data, { poolSize: settings.poolSize, split: settings.split, answerKey });
  const n = settings.poolSize;
  const taskCount =
    settings.tasks > 0 ? Math.min(settings.tasks, prepared.splitTasks.length) : prepared.splitTasks.length;

  type Cell = { accuracies: number[]; calls: number; rounds: number; agents: number };
  const cells = new Map<string, Cell>();
  const cell = (budget: number, method: BudgetMethod, rating: BudgetRow['rating'], agents: number): Cell => {
    const key = `${budget}|${method}|${rating}`;
    let found = cells.get(key);
    if (found === undefined) cells.set(key, (found = { accuracies: [], calls: 0, rounds: 0, agents }));
    return found;
  };
  const fullTeam: number[] = [];
  for (let index = 0; index < settings.seeds; index++) {
    const seed = settings.baseSeed + index;
    const ordered = shuffle(createRng(deriveSeed(seed, 'budget-order')), prepared.splitTasks).slice(0, taskCount);
    const tasks: Task[] = ordered.map((item) => ({ id: item.id, kind: item.kind, prompt: item.prompt ?? '' }));
    // A plain plurality sees the agents in a seeded order per task, so that ties do not go to the agent
    // ranked better by dataset accuracy; `ranked` keeps a label-free order of the method's own (DyLAN's importance).
    const plurality = (taskId: string, agentIds: readonly AgentId[], ranked = false) => {
      const members = new Set(agentIds);
      const ordered = ranked
        ? agentIds
        : tieBreakOrder(seed, taskId, prepared.poolIds).filter((agentId) => members.has(agentId));
      return decideTeamAnswer({ taskId, proposals: proposalsOf(prepared, taskId, ordered), weights: {} }).answer;
    };
    const score = (answers: ReadonlyArray<readonly [string, string | null]>) =>
      answers.filter(([taskId, answer]) => prepared.isCorrect(taskId, answer)).length / answers.length;
    fullTeam.push(score(tasks.map((task) => [task.id, plurality(task.id, prepared.poolIds)])));
    const importance = new Map<string, readonly AgentId[]>();
    for (const rating of settings.ratings)
      importance.set(
        rating,
        await rankByImportance(prepared, tasks.slice(0, settings.warmup), sourceFor(rating, seed)),
      );
    for (const budget of settings.budgets) {
      // majority of m = B random agents; debate-style: ⌊B/2⌋ random agents, two rounds
      for (const [method, size, rounds] of [
        ['majority', Math.min(n, budget), 1],
        ['llm-debate', Math.min(n, Math.floor(budget / 2)), 2],
      ] as const) {
        const target = cell(budget, method, 'none', size);
        if (size === 0) continue;
        const answers = tasks.map((task) => {
          const drawn = new Set(
            shuffle(createRng(deriveSeed(seed, 'budget-team', method, budget, task.id)), prepared.poolIds).slice(
              0,
              size,
            ),
          );
          // m = n is exactly the full team's plurality (same tie order)
          return [task.id, plurality(task.id, [...drawn])] as const;
        });
        target.accuracies.push(score(answers));
        target.calls += tasks.length * size * rounds;
        target.rounds += tasks.length;
      }
      for (const rating of settings.ratings) {
        const m = dylanTeamForBudget(budget, {
          poolSize: n,
          warmup: settings.warmup,
          taskCount,
          counting: settings.callCounting,
        });
        const dylan = cell(budget, 'dylan', rating, m);
        if (m > 0) {
          const chosen = (importance.get(rating) as readonly AgentId[]).slice(0, m);
          const warm = Math.min(settings.warmup, tasks.length);
          // warm-up tasks: the whole pool answers (plurality); then the chosen m
          const answers = tasks.map(
            (task, position) =>
              [
                task.id,
                position < warm ? plurality(task.id, prepared.poolIds) : plurality(task.id, chosen, true),
              ] as const,
          );
          dylan.accuracies.push(score(answers));
          dylan.calls += warm * ratedTeamCalls(n, settings.callCounting) + (tasks.length - warm) * m;
          dylan.rounds += tasks.length;
        }
        const k = drfTeamForBudget(budget, n, settings.callCounting);
        const drf = cell(budget, 'drf', rating, k);
        if (k > 0) {
          const result = await runDrf({
            pool: prepared.agents(),
            tasks,
            k,
            threshold: 0.3,
            costModel: 'per-round',
            costSeed: deriveSeed(seed, 'budget-costs'),
            ...drfConfigParts(drfReviewConfig, prepared.poolIds, { ratingSource: sourceFor(rating, seed) }),
            rng: createRng(deriveSeed(seed, 'budget-select', budget, rating)),
          });
          drf.accuracies.push(score(result.rounds.map((round) => [round.taskId, round.decision.answer] as const)));
          for (const round of result.rounds) drf.calls += ratedTeamCalls(round.team.length, settings.callCounting);
          drf.rounds += result.rounds.length;
        }
      }
    }
  }

  function sourceFor(rating: 'agreement' | 'judge', seed: number): RatingSource {
    return rating === 'agreement'
      ? agreementRatingSource()
      : simulatedJudgeRatingSource({
          accuracy: settings.judgeAccuracy,
          isCorrect: (proposal) => prepared.isCorrect(proposal.taskId, proposal.answer),
          seed,
        });
  }

  const rows: BudgetRow[] = [];
  for (const budget of settings.budgets) {
    const order: Array<[BudgetMethod, BudgetRow['rating']]> = [
      ['majority', 'none'],
      ['llm-debate', 'none'],
      ...settings.ratings.flatMap(
        (rating): Array<[BudgetMethod, BudgetRow['rating']]> => [
          ['dylan', rating],
          ['drf', rating],
        ],
      ),
    ];
    for (const [method, rating] of order) {
      const found = cells.get(`${budget}|${method}|${rating}`) as Cell;
      const ran = found.accuracies.length > 0;
      const callsPerTask = ran ? found.calls / found.rounds : 0;
      const accuracyRatio = ran
        ? tInterval(
            found.accuracies.map((value, index) => value / (fullTeam[index] as number)),
            0.95,
            nonNegativeRange,
          )
        : null;
      rows.push({
        budget,
        budgetShare: budget / n,
        method,
        rating,
        agents: found.agents,
        callsPerTask,
        callRatio: callsPerTask / n,
        accuracy: ran ? tInterval(found.accuracies, 0.95, unitRange) : null,
        accuracyRatio,
        // ours: accuracy ratio ≥ 0.98 at a call ratio ≤ 0.5
        meetsOurClaim: accuracyRatio !== null && accuracyRatio.mean >= 0.98 && callsPerTask / n <= 0.5,
      });
    }
  }
  return {
    schemaVersion: 1,
    experiment: 'budget',
    dataset: data.name,
    settings: {
      ...settings,
      taskCount,
      interval: '95% Student-t interval over seeds (task orders)',
      claim: "ours, not the paper's: >= 98% of the full team's accuracy at <= 50% of its calls",
    },
    pool: prepared.picks.map((pick) => ({ agentId: pick.agent.id, accuracy: pick.accuracy })),
    fullTeam: tInterval(fullTeam, 0.95, unitRange),
    rows,
    drfMeetsOurClaimAt: [
      ...new Set(rows.filter((row) => row.method === 'drf' && row.meetsOurClaim).map((row) => row.budget)),
    ],
  };
}

function proposalsOf(prepared: ReplayPool, taskId: string, agentIds: readonly AgentId[]): Proposal[] {
  const perAgent = prepared.keys.get(taskId);
  return agentIds.map((agentId) => ({ agentId, taskId, round: 0, text: '', answer: perAgent?.get(agentId) ?? null }));
}

/**
 * DyLAN-style importance: every pool agent rates every other's answer on the warm-up tasks; an
 * agent's importance is the mean rating it received. Returns the pool ids, most important first,
 * equal importance in agent-id order.
 */
async function rankByImportance(
  prepared: ReplayPool,
  warmup: readonly Task[],
  source: RatingSource,
): Promise<readonly AgentId[]> {
  const agents: Agent[] = prepared.agents();
  const received = new Map<AgentId, { sum: number; count: number }>(
    prepared.poolIds.map((agentId) => [agentId, { sum: 0, count: 0 }]),
  );
  for (const task of warmup) {
    const proposals = proposalsOf(prepared, task.id, prepared.poolIds);
    for (const rater of agents) {
      const own = proposals.find((proposal) => proposal.agentId === rater.identity.id);
      for (const proposal of proposals) {
        if (proposal.agentId === rater.identity.id) continue;
        const { value } = await source.rate({ rater, task, proposal, ...(own === undefined ? {} : { own }) });
        const entry = received.get(proposal.agentId) as { sum: number; count: number };
        entry.sum += value.score;
        entry.count += 1;
      }
    }
  }
  const importance = (agentId: AgentId) => {
    const entry = received.get(agentId) as { sum: number; count: number };
    return entry.count === 0 ? 0 : entry.sum / entry.count;
  };
  return [...prepared.poolIds].sort(
    (left, right) => importance(right) - importance(left) || (left < right ? -1 : left > right ? 1 : 0),
  );
}
