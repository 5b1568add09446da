import { InternalError } from '../../core/errors.js';
import { tallyVotes } from '../../aggregation/plurality.js';
import type { AnswerOps } from './answer-ops.js';
import { scoreKey } from './run-condition.js';
import type { AttackName, Condition, ConditionResult, MethodRun, PreparedReplay } from './types.js';
import { attackNames } from './types.js';
import { deriveSeed } from '../../core/rng.js';
import { significantlyBetter } from './significance.js';

/** Ties closer than this do not count as a strict win. */
export const strictWinTolerance = 1e-12;

/** One row of the per-condition table (and CSV). Ratios are `null` where the paper's definition has no denominator. */
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
  /** Mean sample F1 over tasks (= exact match for single-answer kinds), in [0, 1]. */
  readonly accuracy: number;
  /** Mean exact match over tasks, in [0, 1]. */
  readonly exact: number;
  /** Clean accuracy of the same method and composition minus this accuracy (0 for clean rows). */
  readonly loss: number;
  /** loss / clean accuracy of the same method and composition (`null` for clean rows and a clean accuracy of 0). */
  readonly relativeDrop: number | null;
  /** Tasks on which the attack was active (≥ 1 payload proposed). */
  readonly activeTasks: number;
  /** PoolExp: share of active-attack tasks on which ≥ 1 payload entered the aggregation pool. */
  readonly poolExp: number | null;
  /** PayloadHit: share of the PoolExp tasks whose decided answer equals a payload. */
  readonly payloadHit: number | null;
  /** NextExcl: share of active-attack tasks (with a later one) whose attackers are all absent from the next active-attack task's pool. */
  readonly nextExcl: number | null;
  /** CF-Harm: share of active-attack tasks whose score is below the same task's score in the clean run of the same method and composition. */
  readonly cfHarm: number | null;
  /** Ours: the attackers' share of the decision weight, mean over active-attack tasks. */
  readonly attackerWeightShare: number | null;
  /** 1 when this method beat every other method here by more than 1e-12. */
  readonly strictWin: 0 | 1;
  /**
   * 1 for a strict win whose paired 95% bootstrap interval over tasks of the score difference to the
   * best other method excludes 0 (`significance.ts`).
   */
  readonly significantWin: 0 | 1;
}

/** The summary of one method, averaged the MiniRep paper's way (§C.3). All accuracies in [0, 1]. */
export interface MethodSummary {
  /** One sentence: the composition of the method. */
  readonly description: string;
  /** Clean accuracy: mean over compositions (each clean run once). */
  readonly clean: number;
  /** Attacked accuracy: mean over every attacked condition, equally weighted. */
  readonly attacked: number;
  /** Exact-match version of `clean` (differs from it for label sets only). */
  readonly cleanExact: number;
  /** Exact-match version of `attacked`, in [0, 1]. */
  readonly attackedExact: number;
  /** Mean paired loss: clean(composition) − attacked(condition), over attacked conditions. */
  readonly loss: number;
  /** Relative drop: loss / clean computed per attacked condition, then averaged (conditions with clean 0 omitted). `null` when no attacked condition defines it. */
  readonly relativeDrop: number | null;
  /** Attacked conditions where this method beat every other method by more than 1e-12. */
  readonly strictWins: number;
  /** Strict wins whose paired bootstrap interval over tasks of the difference to the best other method excludes 0. */
  readonly significantWins: number;
  /** PoolExp per condition, averaged over attacked conditions with an active-attack task. `null` when no attacked condition defines it. */
  readonly poolExp: number | null;
  /** PayloadHit per condition, averaged over attacked conditions where a payload entered the pool. `null` when no attacked condition defines it. */
  readonly payloadHit: number | null;
  /** NextExcl per condition, averaged over attacked conditions with an eligible task. `null` when no attacked condition defines it. */
  readonly nextExcl: number | null;
  /** CF-Harm per condition, averaged over attacked conditions with an active-attack task. `null` when no attacked condition defines it. */
  readonly cfHarm: number | null;
  /** Ours (v1's PoolExp): the attackers' share of the decision weight, averaged over attacked conditions. `null` when no attacked condition defines it. */
  readonly attackerWeightShare: number | null;
  /** Attacked accuracy per attack (mean over compositions × placements). */
  readonly byAttack: Readonly<Record<string, number>>;
}

/** Clean and attacked accuracy and strict wins of one method in one composition. */
export interface CompositionSummary {
  /** Clean accuracy of the composition's clean run, in [0, 1]. */
  readonly clean: number;
  /** Mean accuracy over the composition's attacked conditions, in [0, 1]. */
  readonly attacked: number;
  /** Strict wins among the composition's attacked conditions. */
  readonly strictWins: number;
  /** Significant wins among the composition's attacked conditions. */
  readonly significantWins: number;
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

/** {@link DatasetLimits} plus, per composition, the accuracy of the team's best single member on the sampled tasks. */
export type TeamLimits = DatasetLimits & { readonly bestSingleInTeam: Record<string, number> };

/** Reputation trajectory of one method: mean normalised weight of attackers and honest members per task, over attacked conditions. */
export interface WeightTrajectory {
  /** Per task: mean normalised pre-task weight of the attackers, in [0, 1]. */
  readonly attackers: readonly number[];
  /** Per task: mean normalised pre-task weight of the honest members, in [0, 1]. */
  readonly honest: readonly number[];
}

const mean = (values: ArrayLike<number>) => {
  if (values.length === 0) return 0;
  let sum = 0;
  for (let index = 0; index < values.length; index++) sum += values[index] as number;
  return sum / values.length;
};
const ratio = (sum: number, count: number) => (count === 0 ? null : sum / count);
/** Mean of the defined values; `null` when none is (a metric no condition defines is not 0). */
const present = (values: readonly (number | null)[]): number | null => {
  const defined = values.filter((value): value is number => value !== null);
  return defined.length === 0 ? null : mean(defined);
};
/** Computes the dataset limits on the sampled tasks, and the best single member of each of `teams`. */
export function computeLimits(
  prepared: PreparedReplay,
  ops: AnswerOps,
  teams: Readonly<Record<string, readonly string[]>> = {},
): TeamLimits {
  let covered = 0;
  let majority = 0;
  const perAgent = new Array<number>(prepared.agents.length).fill(0);
  for (const task of prepared.tasks) {
    const scores = task.keys.map((key) => scoreKey(task, key, ops).f1);
    if (scores.some((score) => score >= 1)) covered++;
    scores.forEach((score, index) => (perAgent[index] = (perAgent[index] ?? 0) + score));
    const tally = tallyVotes(
      prepared.agents.map((agent, index) => ({ agentId: agent.id, answer: task.keys[index] ?? null, weight: 1 })),
    );
    majority += scoreKey(task, tally.answer, ops).f1;
  }
  const count = Math.max(1, prepared.tasks.length);
  let best = 0;
  perAgent.forEach((value, index) => {
    if (value > (perAgent[best] ?? 0)) best = index;
  });
  const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
  const bestSingleInTeam = Object.fromEntries(
    Object.entries(teams).map(([name, team]) => [
      name,
      Math.max(0, ...team.map((agent) => perAgent[position.get(agent) ?? -1] ?? 0)) / count,
    ]),
  );
  return {
    coverage: covered / count,
    majorityAll: majority / count,
    bestSingle: (perAgent[best] ?? 0) / count,
    bestSingleAgent: prepared.agents[best]?.id ?? '',
    bestSingleInTeam,
  };
}

/** What {@link summarise} returns for one seed. */
export interface SeedSummary {
  /** One row per (condition, method), in grid order. */
  readonly rows: ConditionRow[];
  /** Per method, averaged the paper's way. */
  readonly methods: Record<string, MethodSummary>;
  /** R_b = loss_b − loss_minirep per baseline b (positive: MiniRep loses fewer points); empty without `minirep`. */
  readonly retention: Record<string, number>;
  /** Per composition, per method: clean, attacked, strict wins. */
  readonly byComposition: Record<string, Record<string, CompositionSummary>>;
  /** Mean normalised weight of attackers vs honest members per task, per method. */
  readonly trajectories: Record<string, WeightTrajectory>;
}

/**
 * Turns merged condition results into per-condition rows, per-method summaries, the MiniRep
 * retention table and weight trajectories, with the MiniRep paper's §C.3 definitions:
 * - clean = mean over compositions of the clean run's accuracy; attacked = mean over attacked
 *   conditions; loss_c = clean(composition(c)) − accuracy(c), averaged over attacked conditions;
 * - relative drop = loss_c / clean(composition(c)) per attacked condition, then averaged;
 * - retention R_b = loss_b − loss_minirep (the mean paired losses);
 * - PoolExp, PayloadHit, NextExcl, CF-Harm per condition (see {@link ConditionRow}), then averaged
 *   over the attacked conditions where they are defined.
 * `results` must be sorted by condition index (the merge order).
 */
export function summarise({
  conditions,
  results,
  descriptions,
}: {
  conditions: readonly Condition[];
  results: readonly ConditionResult[];
  descriptions: Readonly<Record<string, string>>;
}): SeedSummary {
  const summariser = createSeedSummariser({
    conditions,
    methods: results[0]?.runs.map((run) => run.method) ?? [],
    descriptions,
  });
  for (const result of results) summariser.add(result);
  return summariser.finish();
}

/** Folds condition results into a {@link SeedSummary} as they arrive, keeping no per-task results of finished conditions. */
export interface SeedSummariser {
  /** Adds one condition's result, in any order (results wait until every earlier condition is in). */
  add(result: ConditionResult): void;
  /** The summary; throws an {@link InternalError} naming a condition whose result never came. */
  finish(): SeedSummary;
}

/**
 * The streaming form of {@link summarise}, with the same figures bit for bit: each result is
 * reduced to its rows in grid order as soon as the conditions before it are in, and the weight
 * trajectories are summed per task in that order. What it holds beyond the rows is one clean run
 * per (composition, method) for CF-Harm, the per-task trajectory sums and the few results that
 * arrived ahead of their turn, so memory does not grow with the number of conditions × tasks.
 *
 * @example
 * const summariser = createSeedSummariser({ conditions, methods: ['majority', 'minirep'], descriptions });
 * for (const result of results) summariser.add(result);
 * const { rows, methods } = summariser.finish();
 */
export function createSeedSummariser({
  conditions,
  methods: methodNames,
  descriptions,
}: {
  conditions: readonly Condition[];
  methods: readonly string[];
  descriptions: Readonly<Record<string, string>>;
}): SeedSummariser {
  const cleanOf = new Map<string, Condition>();
  for (const condition of conditions) if (condition.attack === null) cleanOf.set(condition.composition, condition);
  const runOf = (condition: Condition, result: ConditionResult | undefined, method: string): MethodRun => {
    const run = result?.runs.find((candidate) => candidate.method === method);
    if (run === undefined) throw new InternalError(`missing result for ${condition.id} / ${method}`);
    return run;
  };
  // Per task, Σ over attacked conditions (grid order) of the attackers' and honest members' weights.
  const trajectorySums = new Map<string, { attackers: Float64Array; honest: Float64Array }>();
  let attackedCount = 0;
  const waiting = new Map<number, ConditionResult>();
  /** Clean result of each composition, captured when it arrives (CF-Harm pairs every attacked task with it). */
  const cleanResults = new Map<string, ConditionResult>();
  const rows: ConditionRow[] = [];
  let next = 0;
  const fold = (condition: Condition, result: ConditionResult) => {
    const clean = cleanOf.get(condition.composition);
    const cleanResult = clean === undefined ? undefined : cleanResults.get(condition.composition);
    const accuracies = methodNames.map((method) => mean(runOf(condition, result, method).f1));
    methodNames.forEach((method, position) => {
      const run = runOf(condition, result, method);
      const accuracy = accuracies[position] ?? 0;
      const cleanRun = clean ? runOf(clean, cleanResult, method) : undefined;
      const cleanAccuracy = cleanRun ? mean(cleanRun.f1) : accuracy;
      const attacked = condition.attack !== null;
      let activeTasks = 0;
      let harmed = 0;
      run.active.forEach((active, task) => {
        if (active === 0) return;
        activeTasks++;
        // CF-Harm counts a lower score than the paired clean score (frequency, not magnitude).
        if (cleanRun !== undefined && (run.f1[task] ?? 0) < (cleanRun.f1[task] ?? 0) - 1e-12) harmed++;
      });
      const loss = attacked ? cleanAccuracy - accuracy : 0;
      const others = accuracies.filter((_, other) => other !== position);
      const strictWin =
        attacked && others.length > 0 && others.every((other) => accuracy > other + strictWinTolerance) ? 1 : 0;
      // The runner-up: the best other method (the first of equals in method order).
      let runnerUp = -1;
      accuracies.forEach((other, index) => {
        if (index !== position && (runnerUp < 0 || other > (accuracies[runnerUp] ?? 0))) runnerUp = index;
      });
      const significantWin =
        strictWin === 1 &&
        significantlyBetter(
          run.f1,
          runOf(condition, result, methodNames[runnerUp] as string).f1,
          deriveSeed('significance', condition.id, method),
        )
          ? 1
          : 0;
      rows.push({
        condition: condition.id,
        composition: condition.composition,
        placement: condition.placement ?? '',
        attack: condition.attack ?? 'clean',
        method,
        accuracy,
        exact: mean(run.exact),
        loss,
        relativeDrop: attacked && cleanAccuracy > 0 ? loss / cleanAccuracy : null,
        activeTasks,
        poolExp: ratio(run.poolExpTasks, activeTasks),
        payloadHit: ratio(run.payloadHitTasks, run.poolExpTasks),
        nextExcl: ratio(run.nextExclTasks, run.nextExclEligible),
        cfHarm: cleanRun === undefined ? null : ratio(harmed, activeTasks),
        attackerWeightShare: ratio(run.weightShareSum, run.weightShareCount),
        strictWin,
        significantWin,
      });
      if (attacked) {
        // The first attacked run fixes the trajectory length (as the per-task means did).
        let sums = trajectorySums.get(method);
        if (sums === undefined) {
          const length = run.attackerWeight.length;
          sums = { attackers: new Float64Array(length), honest: new Float64Array(length) };
          trajectorySums.set(method, sums);
        }
        for (let task = 0; task < sums.attackers.length; task++) {
          sums.attackers[task] = (sums.attackers[task] as number) + (run.attackerWeight[task] ?? 0);
          sums.honest[task] = (sums.honest[task] as number) + (run.honestWeight[task] ?? 0);
        }
      }
    });
    if (condition.attack !== null) attackedCount++;
  };
  const drain = () => {
    for (; next < conditions.length; next++) {
      const condition = conditions[next] as Condition;
      const result = waiting.get(condition.index);
      if (result === undefined) return;
      // An attacked condition waits for its composition's clean run.
      const clean = cleanOf.get(condition.composition);
      if (clean !== undefined && clean !== condition && !cleanResults.has(condition.composition)) return;
      waiting.delete(condition.index);
      fold(condition, result);
    }
  };
  return {
    add(result) {
      waiting.set(result.index, result);
      for (const [composition, clean] of cleanOf)
        if (clean.index === result.index) cleanResults.set(composition, result);
      drain();
    },
    finish() {
      drain();
      // Without methods there is nothing to read from any result (summarise of no results).
      if (next < conditions.length && methodNames.length > 0) {
        const condition = conditions[next] as Condition;
        throw new InternalError(`missing result for ${condition.id} / ${methodNames[0] ?? '(no method)'}`);
      }
      return finishSummary({ conditions, methodNames, descriptions, rows, trajectorySums, attackedCount });
    },
  };
}

function finishSummary({
  conditions,
  methodNames,
  descriptions,
  rows,
  trajectorySums,
  attackedCount,
}: {
  conditions: readonly Condition[];
  methodNames: readonly string[];
  descriptions: Readonly<Record<string, string>>;
  rows: ConditionRow[];
  trajectorySums: ReadonlyMap<string, { attackers: Float64Array; honest: Float64Array }>;
  attackedCount: number;
}): SeedSummary {
  const methods: Record<string, MethodSummary> = {};
  const trajectories: Record<string, WeightTrajectory> = {};
  for (const method of methodNames) {
    const mine = rows.filter((row) => row.method === method);
    const cleanRows = mine.filter((row) => row.attack === 'clean');
    const attackedRows = mine.filter((row) => row.attack !== 'clean');
    const byAttack: Record<string, number> = {};
    for (const attack of attackNames as readonly AttackName[]) {
      const selected = attackedRows.filter((row) => row.attack === attack);
      if (selected.length > 0) byAttack[attack] = mean(selected.map((row) => row.accuracy));
    }
    methods[method] = {
      description: descriptions[method] ?? '',
      clean: mean(cleanRows.map((row) => row.accuracy)),
      attacked: mean(attackedRows.map((row) => row.accuracy)),
      cleanExact: mean(cleanRows.map((row) => row.exact)),
      attackedExact: mean(attackedRows.map((row) => row.exact)),
      loss: mean(attackedRows.map((row) => row.loss)),
      relativeDrop: present(attackedRows.map((row) => row.relativeDrop)),
      strictWins: attackedRows.reduce((sum, row) => sum + row.strictWin, 0),
      significantWins: attackedRows.reduce((sum, row) => sum + row.significantWin, 0),
      poolExp: present(attackedRows.map((row) => row.poolExp)),
      payloadHit: present(attackedRows.map((row) => row.payloadHit)),
      nextExcl: present(attackedRows.map((row) => row.nextExcl)),
      cfHarm: present(attackedRows.map((row) => row.cfHarm)),
      attackerWeightShare: present(attackedRows.map((row) => row.attackerWeightShare)),
      byAttack,
    };
    // Mean over attacked conditions of each task's weight: Σ (grid order) / count, as mean() sums.
    const sums = trajectorySums.get(method);
    const perTask = (values: Float64Array | undefined) =>
      Array.from(values ?? [], (sum) => (attackedCount === 0 ? 0 : sum / attackedCount));
    trajectories[method] = { attackers: perTask(sums?.attackers), honest: perTask(sums?.honest) };
  }
  const retention: Record<string, number> = {};
  const miniRep = methods.minirep;
  if (miniRep !== undefined)
    for (const method of methodNames)
      if (method !== 'minirep') retention[method] = (methods[method]?.loss ?? 0) - miniRep.loss; // R_b = loss_b − loss_MiniRep
  const byComposition: Record<string, Record<string, CompositionSummary>> = {};
  for (const composition of [...new Set(conditions.map((condition) => condition.composition))]) {
    byComposition[composition] = {};
    for (const method of methodNames) {
      const mine = rows.filter((row) => row.method === method && row.composition === composition);
      const attackedRows = mine.filter((row) => row.attack !== 'clean');
      (byComposition[composition] as Record<string, CompositionSummary>)[method] = {
        clean: mean(mine.filter((row) => row.attack === 'clean').map((row) => row.accuracy)),
        attacked: mean(attackedRows.map((row) => row.accuracy)),
        strictWins: attackedRows.reduce((sum, row) => sum + row.strictWin, 0),
        significantWins: attackedRows.reduce((sum, row) => sum + row.significantWin, 0),
      };
    }
  }
  return { rows, methods, retention, byComposition, trajectories };
}
