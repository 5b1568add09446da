import { InternalError } from '../../core/errors.js';
import { tallyVotes } from '../../aggregation/plurality.js';
import type { AnswerOps } from './answer-ops.js';
import { scoreKey } from './run-condition.js';
import type { AttackName, Condition, ConditionResult, MethodRun, PreparedReplay } from './types.js';
import { attackNames } from './types.js';

/** Ties closer than this do not count as a strict win. */
export const strictWinTolerance = 1e-12;

/** One row of the per-condition table (and CSV). */
export interface ConditionRow {
  /** Condition id, e.g. `all-strong/B/RAND` or `all-strong/clean`. */
  readonly condition: string;
  /** Team composition of the condition. */
  readonly composition: string;
  /** Placement of the corrupted members (`''` for clean rows). */
  readonly placement: string;
  /** Attack name, or `clean`. */
  readonly attack: string;
  /** Name of the replay method. */
  readonly method: string;
  /** Mean sample F1 over tasks (= exact match for single-answer kinds). */
  readonly accuracy: number;
  /** Mean exact match over tasks. */
  readonly exact: number;
  /** Clean accuracy of the same method and composition minus this accuracy (0 for clean rows). */
  readonly loss: number;
  /** Weight share on attacker proposals, mean over attacked tasks (`null` when none). */
  readonly poolExp: number | null;
  /** Share of attacked tasks decided for an attacker payload (`null` when none). */
  readonly payloadHit: number | null;
  /** Share of (attacker, attacked task) pairs excluded or down-weighted on the next task (`null` when none). */
  readonly nextExcl: number | null;
  /** Share of tasks right in the clean run and wrong here. */
  readonly cfHarm: number;
  /** 1 when this method beat every other method here by more than 1e-12. */
  readonly strictWin: 0 | 1;
}

/** The summary of one method, averaged the MiniRep way. */
export interface MethodSummary {
  /** One sentence: the composition of the method. */
  readonly description: string;
  /** Clean accuracy: mean over compositions (each clean run once). */
  readonly clean: number;
  /** Attacked accuracy: mean over every attacked condition, equally weighted. */
  readonly attacked: number;
  /** Exact-match versions of `clean` and `attacked` (differ from them for label sets only). */
  readonly cleanExact: number;
  /** Exact-match version of `attacked`, in [0, 1]. */
  readonly attackedExact: number;
  /** Mean paired loss: clean(composition) − attacked(condition), over attacked conditions. */
  readonly loss: number;
  /** loss / clean (0 when clean is 0). */
  readonly relativeDrop: number;
  /** attacked/clean of this method minus attacked/clean of majority. */
  readonly retentionAdvantage: number;
  /** Attacked conditions where this method beat every other method by more than 1e-12. */
  readonly strictWins: number;
  /** Mean of the per-condition PoolExp over attacked conditions. */
  readonly poolExp: number;
  /** Mean of the per-condition PayloadHit over attacked conditions. */
  readonly payloadHit: number;
  /** Mean of the per-condition NextExcl over attacked conditions that have any pair. */
  readonly nextExcl: number;
  /** Mean of the per-condition CF-Harm over attacked conditions. */
  readonly cfHarm: number;
  /** Attacked accuracy per attack (mean over compositions × placements). */
  readonly byAttack: Readonly<Record<string, number>>;
  /** Clean accuracy per composition. */
  readonly byComposition: Readonly<Record<string, number>>;
}

/** Per-dataset limits on the sampled tasks, over the whole pool. */
export interface DatasetLimits {
  /** Share of tasks where some pool agent is right. */
  readonly coverage: number;
  /** Accuracy of unweighted plurality over every pool agent (ties to the key that sorts first). */
  readonly majorityAll: number;
  /** Accuracy of the best single pool agent on the sampled tasks. */
  readonly bestSingle: number;
  /** That agent. */
  readonly bestSingleAgent: string;
}

/** Reputation trajectory of one method: mean normalised weight of attackers and honest members per task, over attacked conditions. */
export interface WeightTrajectory {
  /** Per task: mean normalised pre-task weight of the attackers, in [0, 1]. */
  readonly attackers: readonly number[];
  /** Per task: mean normalised pre-task weight of the honest members, in [0, 1]. */
  readonly honest: readonly number[];
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
const ratio = (sum: number, count: number) => (count === 0 ? null : sum / count);

/** Computes the dataset limits on the sampled tasks. */
export function computeLimits(prepared: PreparedReplay, ops: AnswerOps): DatasetLimits {
  let covered = 0;
  let majority = 0;
  const perAgent = new Array<number>(prepared.agents.length).fill(0);
  for (const task of prepared.tasks) {
    const scores = task.keys.map((key) => scoreKey(task, key, ops).f1);
    if (scores.some((score) => score >= 1)) covered++;
    scores.forEach((score, index) => (perAgent[index] = (perAgent[index] ?? 0) + score));
    const tally = tallyVotes(prepared.agents.map((agent, index) => ({ agentId: agent.id, answer: task.keys[index] ?? null, weight: 1 })));
    majority += scoreKey(task, tally.answer, ops).f1;
  }
  const count = Math.max(1, prepared.tasks.length);
  let best = 0;
  perAgent.forEach((value, index) => {
    if (value > (perAgent[best] ?? 0)) best = index;
  });
  return { coverage: covered / count, majorityAll: majority / count, bestSingle: (perAgent[best] ?? 0) / count, bestSingleAgent: prepared.agents[best]?.id ?? '' };
}

/**
 * Turns merged condition results into per-condition rows, per-method summaries and weight
 * trajectories. `results` must be sorted by condition index (the merge order).
 */
export function summarise({ conditions, results, descriptions }: { conditions: readonly Condition[]; results: readonly ConditionResult[]; descriptions: Readonly<Record<string, string>> }): {
  rows: ConditionRow[];
  methods: Record<string, MethodSummary>;
  trajectories: Record<string, WeightTrajectory>;
} {
  const methodNames = results[0]?.runs.map((run) => run.method) ?? [];
  const byIndex = new Map(results.map((result) => [result.index, result]));
  const runOf = (condition: Condition, method: string): MethodRun => {
    const run = byIndex.get(condition.index)?.runs.find((candidate) => candidate.method === method);
    if (run === undefined) throw new InternalError(`missing result for ${condition.id} / ${method}`);
    return run;
  };
  const cleanOf = new Map<string, Condition>();
  for (const condition of conditions) if (condition.attack === null) cleanOf.set(condition.composition, condition);
  const rows: ConditionRow[] = [];
  const accuracyOf = new Map<string, number>();
  for (const condition of conditions) for (const method of methodNames) accuracyOf.set(`${condition.index}|${method}`, mean(runOf(condition, method).f1));
  for (const condition of conditions) {
    const clean = cleanOf.get(condition.composition);
    for (const method of methodNames) {
      const run = runOf(condition, method);
      const accuracy = accuracyOf.get(`${condition.index}|${method}`) ?? 0;
      const cleanRun = clean ? runOf(clean, method) : undefined;
      const cleanAccuracy = cleanRun ? mean(cleanRun.f1) : accuracy;
      let harm = 0;
      if (cleanRun) run.exact.forEach((exact, task) => (harm += (cleanRun.exact[task] ?? 0) > 0 && exact === 0 ? 1 : 0));
      const others = methodNames.filter((other) => other !== method).map((other) => accuracyOf.get(`${condition.index}|${other}`) ?? 0);
      rows.push({
        condition: condition.id,
        composition: condition.composition,
        placement: condition.placement ?? '',
        attack: condition.attack ?? 'clean',
        method,
        accuracy,
        exact: mean(run.exact),
        loss: condition.attack === null ? 0 : cleanAccuracy - accuracy,
        poolExp: ratio(run.poolExpSum, run.poolExpCount),
        payloadHit: ratio(run.payloadHitSum, run.payloadHitCount),
        nextExcl: ratio(run.nextExclSum, run.nextExclCount),
        cfHarm: run.exact.length === 0 ? 0 : harm / run.exact.length,
        strictWin: others.length > 0 && others.every((other) => accuracy > other + strictWinTolerance) ? 1 : 0,
      });
    }
  }
  const methods: Record<string, MethodSummary> = {};
  const trajectories: Record<string, WeightTrajectory> = {};
  const majorityRetention = (() => {
    const clean = mean(rows.filter((row) => row.method === 'majority' && row.attack === 'clean').map((row) => row.accuracy));
    const attacked = mean(rows.filter((row) => row.method === 'majority' && row.attack !== 'clean').map((row) => row.accuracy));
    return clean > 0 ? attacked / clean : 0;
  })();
  const hasMajority = methodNames.includes('majority');
  for (const method of methodNames) {
    const mine = rows.filter((row) => row.method === method);
    const cleanRows = mine.filter((row) => row.attack === 'clean');
    const attackedRows = mine.filter((row) => row.attack !== 'clean');
    const clean = mean(cleanRows.map((row) => row.accuracy));
    const attacked = mean(attackedRows.map((row) => row.accuracy));
    const loss = mean(attackedRows.map((row) => row.loss));
    const present = (values: (number | null)[]) => mean(values.filter((value): value is number => value !== null));
    const byAttack: Record<string, number> = {};
    for (const attack of attackNames as readonly AttackName[]) {
      const selected = attackedRows.filter((row) => row.attack === attack);
      if (selected.length > 0) byAttack[attack] = mean(selected.map((row) => row.accuracy));
    }
    methods[method] = {
      description: descriptions[method] ?? '',
      clean,
      attacked,
      cleanExact: mean(cleanRows.map((row) => row.exact)),
      attackedExact: mean(attackedRows.map((row) => row.exact)),
      loss,
      relativeDrop: clean > 0 ? loss / clean : 0,
      retentionAdvantage: hasMajority && clean > 0 ? attacked / clean - majorityRetention : 0,
      strictWins: attackedRows.reduce((sum, row) => sum + row.strictWin, 0),
      poolExp: present(attackedRows.map((row) => row.poolExp)),
      payloadHit: present(attackedRows.map((row) => row.payloadHit)),
      nextExcl: present(attackedRows.map((row) => row.nextExcl)),
      cfHarm: mean(attackedRows.map((row) => row.cfHarm)),
      byAttack,
      byComposition: Object.fromEntries(cleanRows.map((row) => [row.composition, row.accuracy])),
    };
    const attackedRuns = conditions.filter((condition) => condition.attack !== null).map((condition) => runOf(condition, method));
    const length = attackedRuns[0]?.attackerWeight.length ?? 0;
    trajectories[method] = {
      attackers: Array.from({ length }, (_, task) => mean(attackedRuns.map((run) => run.attackerWeight[task] ?? 0))),
      honest: Array.from({ length }, (_, task) => mean(attackedRuns.map((run) => run.honestWeight[task] ?? 0))),
    };
  }
  return { rows, methods, trajectories };
}
