// MiniRep-DS history (ours, not in the MiniRep paper): each agent's reliability p_i is learnt without
// labels from the probability that its answer is right GIVEN THE OTHER clone groups' answers, the
// leave-one-out posterior of a naive-Bayes vote (one online EM step of Dawid & Skene 1979's
// one-coin model). A vote for answer a multiplies the odds of a by p/((1 − p)·q), where q is the
// chance that a wrong voter hits one particular other answer, so the optimal weight of a vote is
// ln(p/((1 − p)·q)) (Nitzan & Paroush 1982 with answer collisions). The agent's own vote and its
// clones never enter its own evidence, so the signal cannot confirm itself.
//   s_{-i}(a) = Σ_{h ≠ g_i} [max_{j∈h, a_j=a} v_j + ε·Σ_{rest} v_j],   v_j = weight_j · e_j (e_j: the caller's evidence factor)
//   y_i = exp(s_{-i}(a_i)) / (Σ_{a ∈ A_{-i} ∪ {a_i}} exp(s_{-i}(a)) + exp(s₀)),   0 for an unparseable answer
//   (MiniRep-VB adds a per-answer log-score x(a), the verifier's LLR, to every s_{-i}(a): `extraScores`)
//   c_i ← λ·c_i + y_i,  n_i ← λ·n_i + 1,  p_i = (c_i + a₀) / (n_i + a₀ + b₀)
//   weight_i = clamp(ln(p_i / ((1 − p_i)·q)), 0, ℓ_max)
import type { AgentId } from '../core/agent-identity.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { createDecayedCounts, type DecayedCountsSnapshot } from './_decayed-counts.js';

/** Options of {@link createPosteriorHistory}. */
export interface PosteriorHistoryOptions {
  /** Forgetting factor λ in (0, 1] applied to an agent's counts at each observation. @default 0.95 */
  readonly decay?: number;
  /** Prior pseudo-count a₀ > 0 of right answers. @default 2 */
  readonly priorAgree?: number;
  /** Prior pseudo-count b₀ > 0 of wrong answers. @default 2 */
  readonly priorDisagree?: number;
  /** Collision rate q in (0, 1): the chance that a wrong answer equals one particular other answer. @default 0.15 */
  readonly collision?: number;
  /** Log-score s₀ of "the right answer is none of those given" in the leave-one-out posterior. @default 0 */
  readonly noneScore?: number;
  /** Largest vote weight ℓ_max. @default 6 */
  readonly maxWeight?: number;
  /** Smallest vote weight ℓ_min ≥ 0 (an agent no better than chance keeps this much). @default 0 */
  readonly minWeight?: number;
  /** Share ε in [0, 1] of each clone's vote beyond the heaviest one of its group on the same answer. @default 0.1 */
  readonly epsilon?: number;
}

/** Defaults of {@link PosteriorHistoryOptions}. */
export const posteriorHistoryDefaults = {
  decay: 0.95,
  priorAgree: 2,
  priorDisagree: 2,
  collision: 0.15,
  noneScore: 0,
  maxWeight: 6,
  minWeight: 0,
  epsilon: 0.1,
} as const;

/** One proposal of a task, with the factor e in [0, 1] its vote carries as evidence for the others. */
export interface PosteriorEntry {
  readonly agentId: AgentId;
  readonly group: string;
  readonly answer: string | null;
  /** Factor on this agent's vote in the others' posteriors (flags, risk, cooldown); 1 = full. */
  readonly evidence: number;
}

/** Persisted state of a posterior history: [agent, decayed posteriors c, decayed observations n]. */
export type PosteriorHistorySnapshot = DecayedCountsSnapshot;

/** The per-agent history of MiniRep-DS. */
export interface PosteriorHistory {
  /** Estimated reliability p_i in (0, 1); the prior mean a₀/(a₀ + b₀) for an unseen agent. */
  probability(agentId: AgentId): number;
  /** Vote weight clamp(ln(p/((1 − p)·q)), 0, ℓ_max). */
  weight(agentId: AgentId): number;
  /**
   * The leave-one-out posterior y_i of every proposal of one task, from the current weights. Pure.
   * `extraScores` adds a log-score per answer that is not an agent's vote (MiniRep-VB: the verifier's
   * log-likelihood ratio), so it enters every agent's evidence.
   */
  posteriors(entries: readonly PosteriorEntry[], extraScores?: ReadonlyMap<string, number>): Map<AgentId, number>;
  /** Adds one observation y in [0, 1] for an agent (a posterior, or external feedback). */
  observe(agentId: AgentId, value: number): void;
  /** Learns from one decided task without external feedback: observes each proposal's leave-one-out posterior. */
  observeTask(entries: readonly PosteriorEntry[], extraScores?: ReadonlyMap<string, number>): void;
  snapshot(): PosteriorHistorySnapshot;
  restore(snapshot: PosteriorHistorySnapshot): void;
}

/**
 * Creates the history of MiniRep-DS: decayed counts of leave-one-out posteriors per agent, a
 * Beta(a₀, b₀) prior, and the vote weight clamp(ln(p/((1 − p)·q)), 0, ℓ_max).
 *
 * @example
 * const history = createPosteriorHistory();
 * history.weight('a'); // p = 2/4 = 0.5 → ln(1/0.15) = 1.8971
 */
export function createPosteriorHistory(options: PosteriorHistoryOptions = {}): PosteriorHistory {
  assertKnownOptions('options', options, knownPosteriorHistoryOptions, 'createPosteriorHistory');
  const decay = options.decay ?? posteriorHistoryDefaults.decay;
  const priorAgree = options.priorAgree ?? posteriorHistoryDefaults.priorAgree;
  const priorDisagree = options.priorDisagree ?? posteriorHistoryDefaults.priorDisagree;
  const collision = options.collision ?? posteriorHistoryDefaults.collision;
  const noneScore = options.noneScore ?? posteriorHistoryDefaults.noneScore;
  const maxWeight = options.maxWeight ?? posteriorHistoryDefaults.maxWeight;
  const epsilon = options.epsilon ?? posteriorHistoryDefaults.epsilon;
  const minWeight = options.minWeight ?? posteriorHistoryDefaults.minWeight;
  assertInRange('posteriorHistory.collision', collision, 0, 1, {
    minExclusive: true,
    maxExclusive: true,
    hint: 'pass e.g. { collision: 0.15 }',
  });
  assertInRange('posteriorHistory.noneScore', noneScore, -100, 100, { hint: 'pass e.g. { noneScore: 0 }' });
  assertInRange('posteriorHistory.minWeight', minWeight, 0, 100, { hint: 'pass e.g. { minWeight: 0 }' });
  assertInRange('posteriorHistory.maxWeight', maxWeight, minWeight, 100, {
    hint: `maxWeight must be ≥ minWeight (${minWeight}); pass e.g. { maxWeight: 6 }`,
  });
  assertInRange('posteriorHistory.epsilon', epsilon, 0, 1, { hint: 'pass e.g. { epsilon: 0.1 }' });
  const counts = createDecayedCounts('posteriorHistory', { decay, priorAgree, priorDisagree });
  const { probability } = counts;
  const weight = (agentId: AgentId): number => {
    const p = probability(agentId);
    // ℓ = ln(p / ((1 − p)·q)), clamped to [ℓ_min, ℓ_max]
    return Math.min(maxWeight, Math.max(minWeight, Math.log(p / ((1 - p) * collision))));
  };
  const api: PosteriorHistory = {
    probability,
    weight,
    posteriors(entries, extraScores) {
      // Per group and answer: the heaviest vote and ε times the rest (the clone cap).
      const votes = entries.map((entry) => (entry.answer === null ? 0 : weight(entry.agentId) * entry.evidence));
      const result = new Map<AgentId, number>();
      entries.forEach((self, index) => {
        if (self.answer === null) {
          result.set(self.agentId, 0);
          return;
        }
        const best = new Map<string, Map<string, number[]>>();
        entries.forEach((other, at) => {
          if (at === index || other.group === self.group || other.answer === null) return;
          let byAnswer = best.get(other.group);
          if (byAnswer === undefined) best.set(other.group, (byAnswer = new Map()));
          const list = byAnswer.get(other.answer);
          if (list === undefined) byAnswer.set(other.answer, [votes[at] as number]);
          else list.push(votes[at] as number);
        });
        const score = new Map<string, number>([[self.answer, 0]]);
        for (const byAnswer of best.values())
          for (const [answer, list] of byAnswer) {
            let top = 0;
            let sum = 0;
            for (const vote of list) {
              sum += vote;
              if (vote > top) top = vote;
            }
            score.set(answer, (score.get(answer) ?? 0) + top + epsilon * (sum - top));
          }
        // s(a) += the extra log-score of a (a verdict's LLR), for every answer in play.
        if (extraScores !== undefined)
          for (const [answer, value] of score) score.set(answer, value + (extraScores.get(answer) ?? 0));
        let shift = noneScore;
        for (const value of score.values()) if (value > shift) shift = value;
        let total = Math.exp(noneScore - shift);
        for (const value of score.values()) total += Math.exp(value - shift);
        result.set(self.agentId, Math.exp((score.get(self.answer) as number) - shift) / total);
      });
      return result;
    },
    observeTask(entries, extraScores) {
      for (const [agentId, value] of api.posteriors(entries, extraScores)) counts.add(agentId, value);
    },
    observe(agentId, value) {
      assertInRange(`posteriorHistory.observe(${agentId})`, value, 0, 1, {
        hint: 'an observation is a posterior or external quality in [0, 1]',
      });
      counts.add(agentId, value);
    },
    snapshot: () => counts.snapshot(),
    restore: (snapshot) => counts.restore(snapshot),
  };
  return api;
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownPosteriorHistoryOptions = defineOptionKeys<PosteriorHistoryOptions>()([
  'decay',
  'priorAgree',
  'priorDisagree',
  'collision',
  'noneScore',
  'maxWeight',
  'minWeight',
  'epsilon',
]);
