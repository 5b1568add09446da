// The verifiers of the replay: how each one judges a team proposal, and what the pool tells them.
//   - `simulated`, model `correlated` (the default): one verdict per (task, answer key), drawn from
//     the curves of `aggregation/correlated-verifier.ts`, calibrated on the pool's honest proposals
//     of the sampled tasks and seeded by the run seed only, so every condition, placement and method
//     sees the same verdict for the same answer;
//   - `simulated`, model `independent` (the former model): one independent draw per (condition,
//     task, agent, answer) at the flags' rates (`aggregation/simulated-verifier.ts`);
//   - `judge`: a recorded model of the dataset as the judge, taken out of the pool; a proposal is
//     judged right when its answer key equals the judge's own recorded key on the task.
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import {
  calibrateCorrelatedVerifier,
  correlatedVerdict,
  correlatedVerifierShape,
  type CorrelatedVerifierCalibration,
} from '../../aggregation/correlated-verifier.js';
import { simulatedVerdict } from '../../aggregation/simulated-verifier.js';
import type { PreparedReplay, PreparedTask, ReplayVerifierSettings } from './types.js';

/** Whether a key is right on a prepared task: an honest key the dataset grades exactly right. */
function honestRight(task: PreparedTask, key: string): boolean {
  return (Object.hasOwn(task.scores, key) ? task.scores[key]?.exact : 0) === 1;
}

/** What the pool's honest answers say about each sampled task. */
export interface PoolAnswerStats {
  /** Per task, per honest key: the share of the pool giving it, in (0, 1]. */
  readonly shares: readonly ReadonlyMap<string, number>[];
  /** Per task: the share of the pool that is not right on it (unparseable and missing count as wrong), in [0, 1]. */
  readonly difficulty: readonly number[];
  /** For every parseable wrong pool proposal: the share of the pool giving its key on its task. */
  readonly wrongShares: readonly number[];
  /** For every right pool proposal: its task's difficulty. */
  readonly rightDifficulties: readonly number[];
}

const statsCache = new WeakMap<PreparedReplay, PoolAnswerStats>();

/**
 * The share of the pool behind each honest key and each task's difficulty, over the prepared pool
 * (the judge, if any, already taken out). Cached per prepared replay.
 *
 * @example
 * poolAnswerStats(prepared).difficulty[0]; // share of the pool wrong on the first sampled task
 */
export function poolAnswerStats(prepared: PreparedReplay): PoolAnswerStats {
  const cached = statsCache.get(prepared);
  if (cached !== undefined) return cached;
  const n = prepared.agents.length;
  const shares: Map<string, number>[] = [];
  const difficulty: number[] = [];
  const wrongShares: number[] = [];
  const rightDifficulties: number[] = [];
  for (const task of prepared.tasks) {
    const counts = new Map<string, number>();
    for (let index = 0; index < n; index++) {
      const key = task.keys[index] ?? null;
      if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    let right = 0;
    const share = new Map<string, number>();
    for (const [key, count] of counts) {
      share.set(key, count / n);
      if (honestRight(task, key)) right += count;
    }
    const d = (n - right) / n;
    shares.push(share);
    difficulty.push(d);
    for (const [key, count] of counts) {
      const list = honestRight(task, key) ? rightDifficulties : wrongShares;
      const value = honestRight(task, key) ? d : count / n;
      for (let copy = 0; copy < count; copy++) list.push(value);
    }
  }
  const stats = { shares, difficulty, wrongShares, rightDifficulties };
  statsCache.set(prepared, stats);
  return stats;
}

const calibrationCache = new WeakMap<PreparedReplay, Map<string, CorrelatedVerifierCalibration>>();

/** The correlated verifier's curves calibrated on the prepared pool at the flags' rates. Cached. */
export function replayCalibration(
  prepared: PreparedReplay,
  sensitivity: number,
  specificity: number,
): CorrelatedVerifierCalibration {
  let byRates = calibrationCache.get(prepared);
  if (byRates === undefined) {
    byRates = new Map();
    calibrationCache.set(prepared, byRates);
  }
  const key = `${sensitivity}/${specificity}`;
  let calibration = byRates.get(key);
  if (calibration === undefined) {
    const stats = poolAnswerStats(prepared);
    calibration = calibrateCorrelatedVerifier({
      wrongShares: stats.wrongShares,
      rightDifficulties: stats.rightDifficulties,
      sensitivity,
      specificity,
      shape: correlatedVerifierShape,
    });
    byRates.set(key, calibration);
  }
  return calibration;
}

/**
 * A replay verifier bound to one condition: the verdict (0 or 1) on a proposal of task `taskIndex`;
 * `correct` says whether the proposal is right (only the simulated verifiers ask).
 */
export type ReplayJudge = (taskIndex: number, task: Task, proposal: Proposal, correct: () => boolean) => 0 | 1;

/**
 * The verifier of a replay run for one condition, or `undefined` without one. The independent
 * model draws per (seed, condition, task, agent, answer); the correlated one per (seed, task,
 * answer), the same in every condition; the judge draws nothing.
 *
 * @example
 * const judge = createReplayJudge({ prepared, settings: verifier, seed: 1, conditionId: 'all-strong/clean' });
 */
export function createReplayJudge({
  prepared,
  settings,
  seed,
  conditionId,
}: {
  prepared: PreparedReplay;
  settings: ReplayVerifierSettings;
  seed: number;
  conditionId: string;
}): ReplayJudge | undefined {
  if (settings.kind === 'none') return undefined;
  if (settings.kind === 'judge') {
    const judge = prepared.judge;
    if (judge === undefined)
      throw new InvalidArgumentError({
        parameter: 'verifier',
        value: `judge:${settings.judge ?? ''}`,
        message: 'a judge verifier needs the prepared replay to carry the judge (prepare it with withJudge)',
      });
    return (taskIndex, _task, proposal) =>
      proposal.answer !== null && proposal.answer === (judge.keys[taskIndex] ?? null) ? 1 : 0;
  }
  const { sensitivity, specificity } = settings;
  if (settings.model === 'independent') {
    const conditionSeed = deriveSeed(seed, conditionId, 'verifier');
    return (_taskIndex, task, proposal, correct) =>
      proposal.answer === null
        ? 0
        : simulatedVerdict({
            correct: correct(),
            sensitivity,
            specificity,
            draw: createRng(deriveSeed(conditionSeed, task.id, proposal.agentId, proposal.answer))(),
          });
  }
  const calibration = replayCalibration(prepared, sensitivity, specificity);
  const stats = poolAnswerStats(prepared);
  const runSeed = deriveSeed(seed, 'correlated-verifier');
  return (taskIndex, task, proposal, correct) =>
    proposal.answer === null
      ? 0
      : correlatedVerdict({
          calibration,
          correct: correct(),
          share: stats.shares[taskIndex]?.get(proposal.answer),
          difficulty: stats.difficulty[taskIndex] ?? 0,
          draw: createRng(deriveSeed(runSeed, task.id, proposal.answer))(),
        });
}

/** Sensitivity and specificity a verifier showed on the pool's parseable honest proposals. */
export interface MeasuredVerifier {
  /** P(judged wrong | wrong) over the parseable wrong proposals, in [0, 1] (`null` without any). */
  readonly sensitivity: number | null;
  /** P(judged right | right) over the right proposals, in [0, 1] (`null` without any). */
  readonly specificity: number | null;
  /** Parseable wrong proposals counted. */
  readonly wrong: number;
  /** Right proposals counted. */
  readonly right: number;
}

/**
 * Measures a replay verifier on every parseable honest proposal of the prepared pool (the judge
 * taken out), as judged in a condition named `pool`.
 *
 * @example
 * measureReplayVerifier({ prepared, settings, seed: 1 }); // { sensitivity: 0.86, specificity: 0.79, ... }
 */
export function measureReplayVerifier({
  prepared,
  settings,
  seed,
}: {
  prepared: PreparedReplay;
  settings: ReplayVerifierSettings;
  seed: number;
}): MeasuredVerifier | undefined {
  const judge = createReplayJudge({ prepared, settings, seed, conditionId: 'pool' });
  if (judge === undefined) return undefined;
  let wrong = 0;
  let caught = 0;
  let right = 0;
  let accepted = 0;
  prepared.tasks.forEach((prepTask, taskIndex) => {
    const task: Task = { id: prepTask.id, kind: prepTask.kind, prompt: prepTask.prompt };
    prepared.agents.forEach((agent, position) => {
      const answer = prepTask.keys[position] ?? null;
      if (answer === null) return;
      const proposal: Proposal = { agentId: agent.id as AgentId, taskId: task.id, round: 0, text: answer, answer };
      const isRight = honestRight(prepTask, answer);
      const verdict = judge(taskIndex, task, proposal, () => isRight);
      if (isRight) {
        right++;
        accepted += verdict;
      } else {
        wrong++;
        caught += 1 - verdict;
      }
    });
  });
  return {
    sensitivity: wrong === 0 ? null : caught / wrong,
    specificity: right === 0 ? null : accepted / right,
    wrong,
    right,
  };
}

/**
 * Takes the judge out of the prepared pool: the pool without it (ranking order kept) and the judge's
 * own key per task. Throws {@link InvalidArgumentError} naming the pool when the agent is not in it.
 *
 * @example
 * const judged = withJudge(prepared, 'gpt-4o-2024-05-13');
 */
export function withJudge(prepared: PreparedReplay, judge: string): PreparedReplay {
  const position = prepared.agents.findIndex((agent) => agent.id === judge);
  if (position < 0)
    throw new InvalidArgumentError({
      parameter: 'verifier',
      value: `judge:${judge}`,
      message: `judge ${JSON.stringify(judge)} is not an agent of the dataset; pass --verifier judge:<agent> with one of ${prepared.agents.map((agent) => agent.id).join(', ')}`,
    });
  const keep = <T>(values: readonly T[]) => values.filter((_, index) => index !== position);
  return {
    ...prepared,
    agents: keep(prepared.agents),
    accuracy: keep(prepared.accuracy),
    tasks: prepared.tasks.map((task) => ({
      ...task,
      keys: keep(task.keys),
      texts: keep(task.texts),
      present: keep(task.present),
    })),
    judge: { agent: judge, keys: prepared.tasks.map((task) => task.keys[position] ?? null) },
  };
}
