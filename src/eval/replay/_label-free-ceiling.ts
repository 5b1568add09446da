// Internal: the reference points of scripts/label-free-ceiling.ts, which asks how close any
// agreement-weighted vote can come to a clean team's best member without labels. A clone-capped
// weighted vote (MiniRep's cap, section 3 of docs/minirep.md), log-odds weights, and Dawid & Skene's
// one-coin model fitted by EM on every task of the team at once (transductive: it sees all the
// answers, past and future, which no online method does). Not a replay method and not exported.
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { capGroups } from '../../aggregation/minirep-aggregator.js';
import { compareKeys } from '../../aggregation/plurality.js';

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
