// Evidence shrinkage of MiniRep's history (ours, issue 36; not the MiniRep paper's design). Each
// agent's history factor is pulled towards the team's mean factor by how weak the evidence that
// separates the agents is, so that with little or no such evidence the weights fall back to a plain
// vote. It is the normal–normal empirical-Bayes estimator (Efron & Morris 1975, "Data analysis using
// Stein's estimator and its generalizations", JASA 70; Morris 1983, "Parametric empirical Bayes
// inference", JASA 78): the spread of the agents' estimated accuracies beyond what sampling noise
// explains is the between-agent variance τ², and an agent keeps the share τ²/(τ² + c·σ_i²) of its
// distance from the team mean. The evidence is label-free and cannot confirm itself: the agent's
// agreement with the OTHER clone groups (the share of them holding its answer, or their plurality),
// never with the decision its own weight helped make (the lock-in of docs/minirep.md, section 7).
//   y_i(t) = mean_{h ≠ g_i} share_h(a_i)  (or peerAgreement_i(t)),  c_i ← λ·c_i + y_i,  n_i ← λ·n_i + 1
//   p̂_i = (c_i + ½)/(n_i + 1),  p̄ = mean_i p̂_i                       (the task's m answering agents)
//   σ_i² = p̄(1 − p̄)/(n_i + 1)                                           sampling variance of p̂_i
//   τ̂² = max(0, Σ_i (p̂_i − p̄)²/(m − 1) − c·mean_i σ_i²)                between-agent variance beyond noise
//   s_i = τ̂² / (τ̂² + c·σ_i²)   (0 when τ̂² = 0 or m < 2)
//   f̃_i = f̄ + s_i·(f_i − f̄)   for the history factor f (H^γ, or MiniRep-LO/DS's weight), f̄ = mean_i f_i
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { createDecayedCounts, type DecayedCountsSnapshot } from './_decayed-counts.js';

/** Options of {@link createEvidenceShrinkage}. */
export interface EvidenceShrinkageOptions {
  /** Forgetting factor λ in (0, 1] of an agent's evidence counts at each observation. @default 0.98 */
  readonly decay?: number;
  /**
   * Strictness c ≥ 0: the sampling variance is multiplied by c wherever it enters (c = 1 is the plain
   * empirical-Bayes estimator with a Bernoulli bound on the variance, which overstates the variance of a share; c = 0 never shrinks; tuned on the tuning split, docs/minirep.md). @default 0.1
   */
  readonly strictness?: number;
  /**
   * Grow the pool towards the whole team as the evidence weakens: k' = k + round((1 − s̄)·(n − k)),
   * s̄ the mean keep share of the parseable proposals, so that zero evidence votes with everyone. @default true
   */
  readonly widenPool?: boolean;
  /**
   * The label-free evidence y_i: `'cross-model'` = the share of the other clone groups that gave the
   * agent's answer (the analyzer's f₂, each group counting once); `'plurality'` = agreement with the
   * other clone groups' plurality (`peerAgreement`, 1/t on a t-way tie). @default 'cross-model'
   */
  readonly signal?: 'cross-model' | 'plurality';
}

/** Defaults of {@link EvidenceShrinkageOptions}. */
export const evidenceShrinkageDefaults = {
  decay: 0.98,
  strictness: 0.1,
  widenPool: true,
  signal: 'cross-model',
} as const;

/** Persisted state: the decayed counts [agent, Σ y, n]. */
export type EvidenceShrinkageSnapshot = DecayedCountsSnapshot;

/** The evidence each agent's history may keep, learnt from label-free peer agreement. */
export interface EvidenceShrinkage {
  readonly strictness: number;
  readonly widenPool: boolean;
  readonly signal: 'cross-model' | 'plurality';
  /** Keep shares s_i in [0, 1] for the given agents (the task's answering agents). */
  keepShares(agentIds: readonly AgentId[]): Map<AgentId, number>;
  /** Adds one observation y in [0, 1] (peer agreement) for an agent. */
  observe(agentId: AgentId, value: number): void;
  snapshot(): EvidenceShrinkageSnapshot;
  restore(snapshot: EvidenceShrinkageSnapshot): void;
}

/**
 * Keep shares s_i = τ̂²/(τ̂² + c·σ_i²) from per-agent evidence (decayed agreement sum `agree` and
 * decayed count `seen`). Pure. Agents without evidence (seen 0) have the largest σ² and so the
 * smallest share; with no evidence at all, or fewer than two agents, every share is 0.
 *
 * @example
 * // a: 9 of 10, b: 1 of 10 → p̂ = 9.5/11, 1.5/11; p̄ = 0.5; σ² = 0.25/11 = 0.022727;
 * // τ̂² = (0.363636² · 2)/1 − 0.022727 = 0.241736; s = 0.241736/(0.241736 + 0.022727) = 0.914063
 * evidenceKeepShares([{ agentId: 'a', agree: 9, seen: 10 }, { agentId: 'b', agree: 1, seen: 10 }], 1);
 */
export function evidenceKeepShares(
  evidence: ReadonlyArray<{ agentId: AgentId; agree: number; seen: number }>,
  strictness: number,
): Map<AgentId, number> {
  const shares = new Map<AgentId, number>();
  const m = evidence.length;
  if (m < 2) {
    for (const entry of evidence) shares.set(entry.agentId, 0);
    return shares;
  }
  // p̂_i = (c_i + ½)/(n_i + 1)
  const estimates = evidence.map((entry) => (entry.agree + 0.5) / (entry.seen + 1));
  const mean = estimates.reduce((sum, value) => sum + value, 0) / m;
  // σ_i² = p̄(1 − p̄)/(n_i + 1)
  const variances = evidence.map((entry) => (mean * (1 - mean)) / (entry.seen + 1));
  const noise = variances.reduce((sum, value) => sum + value, 0) / m;
  // τ̂² = max(0, Σ(p̂_i − p̄)²/(m − 1) − c·mean σ²)
  const spread = estimates.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (m - 1);
  const between = Math.max(0, spread - strictness * noise);
  evidence.forEach((entry, index) => {
    const denominator = between + strictness * (variances[index] as number);
    // s_i = τ̂²/(τ̂² + c·σ_i²); c = 0 with τ̂² = 0 keeps everything (no shrinkage asked for)
    shares.set(entry.agentId, denominator <= 0 ? (strictness === 0 ? 1 : 0) : between / denominator);
  });
  return shares;
}

/**
 * f̃_i = f̄ + s_i·(f_i − f̄): each factor pulled towards the mean of the given factors by 1 − s_i. Pure.
 *
 * @example
 * shrinkTowardsMean([{ agentId: 'a', factor: 1 }, { agentId: 'b', factor: 0.5 }], new Map([['a', 0.5], ['b', 0]]));
 * // f̄ = 0.75 → a: 0.75 + 0.5·0.25 = 0.875, b: 0.75
 */
export function shrinkTowardsMean(
  factors: ReadonlyArray<{ agentId: AgentId; factor: number }>,
  shares: ReadonlyMap<AgentId, number>,
): Map<AgentId, number> {
  const result = new Map<AgentId, number>();
  if (factors.length === 0) return result;
  const mean = factors.reduce((sum, entry) => sum + entry.factor, 0) / factors.length;
  for (const entry of factors) {
    const share = shares.get(entry.agentId) ?? 0;
    result.set(entry.agentId, mean + share * (entry.factor - mean));
  }
  return result;
}

/**
 * The pool size k' = k + round((1 − s̄)·(n − k)) for n candidates and mean keep share s̄; k when n ≤ k.
 *
 * @example
 * widenedPoolSize(7, 10, 0.5); // 7 + round(0.5 · 3) = 9
 */
export function widenedPoolSize(k: number, candidates: number, meanShare: number): number {
  if (candidates <= k) return k;
  return k + Math.round((1 - Math.min(1, Math.max(0, meanShare))) * (candidates - k));
}

/**
 * Creates the evidence tracker of MiniRep's evidence shrinkage (ours).
 *
 * @example
 * const shrinkage = createEvidenceShrinkage();
 * shrinkage.keepShares(['a', 'b']); // no evidence: a → 0, b → 0 (a plain vote)
 */
export function createEvidenceShrinkage(options: EvidenceShrinkageOptions = {}): EvidenceShrinkage {
  assertKnownOptions('options', options, knownEvidenceShrinkageOptions, 'createEvidenceShrinkage');
  const decay = options.decay ?? evidenceShrinkageDefaults.decay;
  const strictness = options.strictness ?? evidenceShrinkageDefaults.strictness;
  const widenPool = options.widenPool ?? evidenceShrinkageDefaults.widenPool;
  const signal = options.signal ?? evidenceShrinkageDefaults.signal;
  if (signal !== 'cross-model' && signal !== 'plurality') {
    throw new InvalidArgumentError({
      parameter: 'shrinkage.signal',
      value: signal,
      message: `shrinkage.signal must be 'cross-model' or 'plurality', got ${JSON.stringify(signal)}; pass e.g. { signal: 'cross-model' }`,
    });
  }
  assertInRange('shrinkage.strictness', strictness, 0, 1e6, { hint: 'pass e.g. { strictness: 1 }' });
  // The counts' own prior is unused here (we read c and n); any positive pair passes its check.
  const counts = createDecayedCounts('shrinkage', { decay, priorAgree: 1, priorDisagree: 1 });
  const raw = new Map<AgentId, { agree: number; seen: number }>();
  return {
    strictness,
    widenPool,
    signal,
    keepShares(agentIds) {
      return evidenceKeepShares(
        agentIds.map((agentId) => ({
          agentId,
          agree: raw.get(agentId)?.agree ?? 0,
          seen: raw.get(agentId)?.seen ?? 0,
        })),
        strictness,
      );
    },
    observe(agentId, value) {
      assertInRange(`shrinkage.observe(${agentId})`, value, 0, 1, { hint: 'an observation is agreement in [0, 1]' });
      counts.add(agentId, value);
      const state = raw.get(agentId) ?? { agree: 0, seen: 0 };
      state.agree = decay * state.agree + value;
      state.seen = decay * state.seen + 1;
      raw.set(agentId, state);
    },
    snapshot: () => counts.snapshot(),
    restore(snapshot) {
      counts.restore(snapshot);
      raw.clear();
      for (const [agentId, agree, seen] of counts.snapshot().agents) raw.set(agentId, { agree, seen });
    },
  };
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownEvidenceShrinkageOptions = defineOptionKeys<EvidenceShrinkageOptions>()([
  'decay',
  'strictness',
  'widenPool',
  'signal',
]);
