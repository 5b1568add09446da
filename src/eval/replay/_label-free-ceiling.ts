// Internal: the reference points of scripts/label-free-ceiling.ts, which asks how close any
// agreement-weighted vote can come to a clean team's best member without labels, and how many
// attacked conditions such a vote could win against the baselines. A clone-capped weighted vote
// (MiniRep's cap, section 3 of docs/minirep.md), log-odds weights, and Dawid & Skene's one-coin model
// fitted by EM on every task of the team at once (transductive: it sees all the answers, past and
// future, which no online method does) or online. Not a replay method and not exported.
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { capGroups } from '../../aggregation/minirep-aggregator.js';
import { compareKeys } from '../../aggregation/plurality.js';
import type { ProposalsDataset } from '../proposals/format.js';
import type { AnswerOps } from './answer-ops.js';
import { buildGrid } from './grid.js';
import { planGrid, type ConditionPlan } from './plan-grid.js';
import { prepareReplay, type SplitChoice } from './prepare.js';
import type { AttackName, Condition, CompositionName, PreparedReplay } from './types.js';

/** One team's answers: `answers[t][i]` is member i's canonical key on task t (`null` = none). */
export interface TeamAnswers {
  /** Member ids, in member order. */
  readonly agents: readonly AgentId[];
  /** Clone group of each member. */
  readonly groups: readonly string[];
  /** Per task, each member's key. */
  readonly answers: readonly (readonly (string | null)[])[];
}

/** MiniRep's ε: a clone beyond the strongest one backing the same answer counts this share of its weight. */
const cloneEpsilon = 0.1;
/** Weight ceiling, as MiniRep-DS's ℓ_max. */
const maxWeight = 6;

/**
 * Log-odds vote weight clamp(ln(p / ((1 − p)·q)), 0, 6), p clamped to [0.001, 0.999]: the weight of a
 * voter of accuracy p when a wrong voter lands on one particular wrong answer with probability q.
 *
 * @example
 * logOddsWeight(0.8, 1); // ln 4 ≈ 1.386
 */
export function logOddsWeight(p: number, collision: number): number {
  const bounded = Math.min(0.999, Math.max(0.001, p));
  return Math.min(maxWeight, Math.max(0, Math.log(bounded / ((1 - bounded) * collision))));
}

/**
 * Clone-capped support of each answer on one task: Σ over clone groups of (the largest weight
 * backing the answer + ε · the rest), ε = 0.1, as MiniRep's vote. Answers in first-seen order.
 */
export function cappedSupport(
  team: Pick<TeamAnswers, 'agents' | 'groups'>,
  keys: readonly (string | null)[],
  weights: readonly number[],
): Map<string, number> {
  const entries = team.agents.map((agentId, index) => ({
    agentId,
    group: team.groups[index] as string,
    answer: keys[index] ?? null,
    weight: weights[index] as number,
  }));
  const factors = capGroups(entries, cloneEpsilon);
  const support = new Map<string, number>();
  for (const entry of entries) {
    if (entry.answer === null) continue;
    support.set(entry.answer, (support.get(entry.answer) ?? 0) + (factors.get(entry.agentId) ?? 0) * entry.weight);
  }
  return support;
}

/** The answer with the largest support; exact ties to the key that sorts first; `null` without answers. */
export function winner(support: ReadonlyMap<string, number>): string | null {
  let best: string | null = null;
  let bestSupport = Number.NEGATIVE_INFINITY;
  for (const [key, value] of support) {
    if (value > bestSupport || (value === bestSupport && best !== null && compareKeys(key, best) < 0)) {
      best = key;
      bestSupport = value;
    }
  }
  return best;
}

/** Options of {@link fitOneCoin}. */
export interface OneCoinOptions {
  /** q of the E-step's weights, in (0, 1.5]. */
  readonly collision: number;
  /** EM iterations. @default 50 */
  readonly iterations?: number;
  /** Starting accuracy of every member, or of each member in member order. @default 0.6 */
  readonly start?: number | readonly number[];
}

/**
 * Dawid & Skene's one-coin model fitted by EM on all of a team's tasks at once, without labels.
 * E-step: on task t, answer a gets the posterior exp(s_t(a)) / (Σ_b exp(s_t(b)) + 1), s_t the
 * clone-capped support with weights {@link logOddsWeight}(p_i, q) (the + 1 is "none of these
 * answers"). M-step: p_i = (1 + Σ_t post_t(a_ti)) / (2 + T), a Beta(1, 1) prior; a member without
 * an answer on t adds 0 to the sum. Returns each member's estimated accuracy.
 *
 * @example
 * fitOneCoin(team, { collision: 0.5 }); // [0.81, 0.47, ...]
 */
export function fitOneCoin(team: TeamAnswers, options: OneCoinOptions): number[] {
  const { collision } = options;
  if (!(collision > 0 && collision <= 1.5))
    throw new InvalidArgumentError({
      parameter: 'collision',
      value: collision,
      message: `collision must be in (0, 1.5], got ${collision}; pass e.g. 0.5`,
    });
  const iterations = options.iterations ?? 50;
  const start = options.start ?? 0.6;
  let accuracy = team.agents.map((_, index) => (typeof start === 'number' ? start : (start[index] as number)));
  for (let iteration = 0; iteration < iterations; iteration++) {
    const weights = accuracy.map((p) => logOddsWeight(p, collision));
    const agreed = team.agents.map(() => 1);
    for (const keys of team.answers) {
      const support = cappedSupport(team, keys, weights);
      let total = 1;
      for (const value of support.values()) total += Math.exp(value);
      keys.forEach((key, index) => {
        if (key !== null) agreed[index] = (agreed[index] as number) + Math.exp(support.get(key) as number) / total;
      });
    }
    accuracy = agreed.map((sum) => sum / (2 + team.answers.length));
  }
  return accuracy;
}

/** EM's q in the batch and online fits. */
export const ceilingEmCollisions = [0.15, 0.3, 0.5] as const;
/** The vote's q. */
export const ceilingVoteCollisions = [0.15, 0.5, 1, 1.5] as const;

/** Whether `key` is graded correct on task `task` of the team's tasks. */
type Correct = (task: number, key: string) => boolean;

/** Share of tasks where the clone-capped vote with `weights` picks an answer graded correct. */
function voteAccuracy(team: TeamAnswers, correct: Correct, weights: readonly number[]): number {
  let right = 0;
  team.answers.forEach((keys, task) => {
    const answer = winner(cappedSupport(team, keys, weights));
    if (answer !== null && correct(task, answer)) right++;
  });
  return right / team.answers.length;
}

/**
 * Per vote q ({@link ceilingVoteCollisions}), the share of tasks right when each task is decided with
 * the one-coin fit of the tasks before it (warm-started, 5 EM steps; the first task with equal
 * estimates, a clone-capped majority).
 */
export function onlineAccuracy(team: TeamAnswers, correct: Correct, emCollision: number): number[] {
  const right = ceilingVoteCollisions.map(() => 0);
  let estimate = team.agents.map(() => 0.6);
  team.answers.forEach((keys, task) => {
    if (task > 0)
      estimate = fitOneCoin(
        { ...team, answers: team.answers.slice(0, task) },
        { collision: emCollision, iterations: 5, start: estimate },
      );
    ceilingVoteCollisions.forEach((voteCollision, index) => {
      const weights = estimate.map((p) => logOddsWeight(p, voteCollision));
      const answer = winner(cappedSupport(team, keys, weights));
      if (answer !== null && correct(task, answer)) right[index] = (right[index] as number) + 1;
    });
  });
  return right.map((count) => count / team.answers.length);
}

/** One clean team's reference points (accuracies in [0, 1]); settings in the order EM q × vote q. */
export interface CeilingRow {
  /** One vote per member, clone-capped. */
  readonly majority: number;
  /** The batch fit's vote, per (EM q, vote q). */
  readonly batch: readonly number[];
  /** The online refit's vote, per (EM q, vote q). */
  readonly online: readonly number[];
  /** The accuracy of the member the batch fit (EM q 0.5) ranks first. */
  readonly topOne: number;
  /** The vote with the members' true accuracies, per vote q. */
  readonly oracle: readonly number[];
  /** The team's best member. */
  readonly best: number;
}

/** The reference points of one team on its tasks. */
export function teamCeiling(team: TeamAnswers, correct: Correct): CeilingRow {
  const accuracy = team.agents.map(
    (_, index) =>
      team.answers.filter((keys, task) => keys[index] !== null && correct(task, keys[index] as string)).length /
      team.answers.length,
  );
  const batch: number[] = [];
  const online: number[] = [];
  let topOne = 0;
  for (const emCollision of ceilingEmCollisions) {
    online.push(...onlineAccuracy(team, correct, emCollision));
    const estimate = fitOneCoin(team, { collision: emCollision });
    for (const voteCollision of ceilingVoteCollisions)
      batch.push(
        voteAccuracy(
          team,
          correct,
          estimate.map((p) => logOddsWeight(p, voteCollision)),
        ),
      );
    if (emCollision === 0.5) topOne = accuracy[estimate.indexOf(Math.max(...estimate))] as number;
  }
  return {
    majority: voteAccuracy(
      team,
      correct,
      team.agents.map(() => 1),
    ),
    batch,
    online,
    topOne,
    oracle: ceilingVoteCollisions.map((voteCollision) =>
      voteAccuracy(
        team,
        correct,
        accuracy.map((p) => logOddsWeight(p, voteCollision)),
      ),
    ),
    best: Math.max(...accuracy),
  };
}

/** The replay whose teams the references are computed on: the sample, teams and seeds of `repute replay`. */
export interface CeilingInput {
  readonly dataset: ProposalsDataset;
  readonly ops: AnswerOps;
  readonly seeds: readonly number[];
  /** Tasks sampled per seed. */
  readonly tasks: number;
  readonly split: SplitChoice;
  readonly compositions: readonly CompositionName[];
}

/**
 * The clean teams of `repute replay` (same sample, teams and seeds) with their reference points, by
 * composition, one row per seed.
 */
export function ceilingByComposition({
  dataset,
  ops,
  seeds,
  tasks,
  split,
  compositions,
}: CeilingInput): Map<CompositionName, CeilingRow[]> {
  const rows = new Map<CompositionName, CeilingRow[]>();
  for (const seed of seeds) {
    const { prepared } = prepareReplay({ dataset, ops, seed, tasks, split });
    const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
    for (const condition of buildGrid(prepared.agents, seed, { compositions })) {
      if (condition.attack !== null) continue;
      const members = condition.team.map((id) => position.get(id) as number);
      const team: TeamAnswers = {
        agents: condition.team,
        groups: members.map((member) => prepared.agents[member]?.model as string),
        answers: prepared.tasks.map((task) => members.map((member) => task.keys[member] ?? null)),
      };
      const correct: Correct = (task, key) => (prepared.tasks[task]?.scores[key]?.exact ?? 0) === 1;
      const list = rows.get(condition.composition) ?? [];
      list.push(teamCeiling(team, correct));
      rows.set(condition.composition, list);
    }
  }
  return rows;
}

/**
 * A condition's team answers as the methods see them: each attacker's payload where the plan has one,
 * else its honest key. With `dropAttackers`, every attacker's answer is `null` on every task (the
 * attackers are known and left out, which no method is told).
 */
export function conditionAnswers(
  prepared: PreparedReplay,
  condition: Condition,
  plan: ConditionPlan,
  { dropAttackers }: { dropAttackers: boolean },
): TeamAnswers {
  const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
  const members = condition.team.map((id) => position.get(id) as number);
  const attackers = new Set(condition.attackers);
  return {
    agents: condition.team,
    groups: members.map((member) => prepared.agents[member]?.model as string),
    answers: prepared.tasks.map((task, taskIndex) =>
      condition.team.map((agent, slot) => {
        if (attackers.has(agent)) {
          if (dropAttackers) return null;
          const payload = plan.kind === 'fixed' ? plan.plans[taskIndex]?.payloads[agent] : undefined;
          if (payload !== undefined) return payload;
        }
        return task.keys[members[slot] as number] ?? null;
      }),
    ),
  };
}

/** Two reference votes on one attacked condition (accuracies in [0, 1]). */
export interface AttackedReferenceRow {
  readonly seed: number;
  /** Condition id, as in `conditions.csv`. */
  readonly condition: string;
  readonly composition: CompositionName;
  readonly attack: AttackName;
  /** The vote with each member's true accuracy in this condition (attackers' payloads included), per vote q. */
  readonly oracle: readonly number[];
  /** The attackers left out and the honest members weighted by the online one-coin fit, per (EM q, vote q). */
  readonly honestOnline: readonly number[];
}

/**
 * The reference votes of every attacked condition of `repute replay` (same sample, teams, attacks and
 * seeds) but ADAPT, whose attacks follow MiniRep's own run. `emCollisions` defaults to
 * {@link ceilingEmCollisions}.
 */
export function attackedReferences({
  dataset,
  ops,
  seeds,
  tasks,
  split,
  compositions,
  emCollisions = ceilingEmCollisions,
}: CeilingInput & {
  /** EM q of the online fit. @default ceilingEmCollisions */
  emCollisions?: readonly number[];
}): AttackedReferenceRow[] {
  const rows: AttackedReferenceRow[] = [];
  for (const seed of seeds) {
    const { prepared } = prepareReplay({ dataset, ops, seed, tasks, split });
    const correct: Correct = (task, key) => (prepared.tasks[task]?.scores[key]?.exact ?? 0) === 1;
    for (const condition of buildGrid(prepared.agents, seed, { compositions })) {
      if (condition.attack === null || condition.attack === 'ADAPT') continue;
      const plan = planGrid({ prepared, conditions: [condition], seed, ops }).conditions[condition.index];
      if (plan === undefined) continue;
      const attacked = conditionAnswers(prepared, condition, plan, { dropAttackers: false });
      const accuracy = attacked.agents.map(
        (_, index) =>
          attacked.answers.filter((keys, task) => keys[index] !== null && correct(task, keys[index] as string)).length /
          attacked.answers.length,
      );
      const honest = conditionAnswers(prepared, condition, plan, { dropAttackers: true });
      rows.push({
        seed,
        condition: condition.id,
        composition: condition.composition,
        attack: condition.attack,
        oracle: ceilingVoteCollisions.map((voteCollision) =>
          voteAccuracy(
            attacked,
            correct,
            accuracy.map((p) => logOddsWeight(p, voteCollision)),
          ),
        ),
        honestOnline: emCollisions.flatMap((emCollision) => onlineAccuracy(honest, correct, emCollision)),
      });
    }
  }
  return rows;
}

/** Strict wins of each reference setting over the baselines (see {@link referenceWins}). */
export interface ReferenceWins {
  /** Conditions counted. */
  readonly conditions: number;
  /** Per vote q ({@link ceilingVoteCollisions}). */
  readonly oracle: readonly number[];
  /** Per (EM q, vote q), as {@link AttackedReferenceRow.honestOnline}. */
  readonly honestOnline: readonly number[];
}

/**
 * Counts, per setting, the conditions where the reference is above `bestBaseline(seed, condition)`
 * (the best of the baselines' accuracies there) by more than 1e-12, the report's strict-win rule;
 * overall and per attack. A condition without a baseline accuracy is an error (wrong `conditions.csv`).
 */
export function referenceWins(
  rows: readonly AttackedReferenceRow[],
  bestBaseline: (seed: number, condition: string) => number | undefined,
): { all: ReferenceWins; byAttack: Map<AttackName, ReferenceWins> } {
  const tally = () => ({ conditions: 0, oracle: [] as number[], honestOnline: [] as number[] });
  const all = tally();
  const byAttack = new Map<AttackName, ReturnType<typeof tally>>();
  for (const row of rows) {
    const best = bestBaseline(row.seed, row.condition);
    if (best === undefined)
      throw new InvalidArgumentError({
        parameter: 'baselines',
        value: `${row.seed} ${row.condition}`,
        message: `no baseline accuracy for seed ${row.seed}, condition ${row.condition}; pass the conditions.csv of a \`repute replay\` run with the same seeds, split and tasks`,
      });
    const perAttack = byAttack.get(row.attack) ?? tally();
    byAttack.set(row.attack, perAttack);
    for (const target of [all, perAttack]) {
      target.conditions++;
      row.oracle.forEach((value, index) => {
        target.oracle[index] = (target.oracle[index] ?? 0) + (value > best + 1e-12 ? 1 : 0);
      });
      row.honestOnline.forEach((value, index) => {
        target.honestOnline[index] = (target.honestOnline[index] ?? 0) + (value > best + 1e-12 ? 1 : 0);
      });
    }
  }
  return { all, byAttack };
}
