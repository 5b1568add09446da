// MiniRep-LO history (ours, not in the MiniRep paper): each agent's reliability p_i is estimated from
// how often its answer matches the plurality of the OTHER clone groups (label-free), or from the
// external feedback (a verifier's verdicts, the truth) once there is any, and its vote weighs the
// log-odds ln(p/(1 − p)), the optimal weight of independent voters (Nitzan & Paroush 1982; the same
// weighting Dawid & Skene 1979 estimate without labels). Agreement with the team's OWN decision
// would confirm itself; agreement with the other groups does not include the agent or its clones.
//   y_i(t) = [a_i ∈ argmax_a Σ_{h ≠ g_i} share_h(a)] / (number of tied answers), share_h(a) = |{j ∈ h : a_j = a}| / |h|
//   c_i ← λ·c_i + y_i,  n_i ← λ·n_i + 1,  p_i = (c_i + a₀) / (n_i + a₀ + b₀)
//   weight_i = clamp(ln(p_i / (1 − p_i)), ℓ_min, ℓ_max)
import type { AgentId } from '../core/agent-identity.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { createDecayedCounts, type DecayedCountsSnapshot } from './_decayed-counts.js';

/** Options of {@link createPeerHistory}. */
export interface PeerHistoryOptions {
  /** Forgetting factor λ in (0, 1] applied to an agent's counts at each observation. @default 0.98 */
  readonly decay?: number;
  /** Prior pseudo-count a₀ > 0 of agreements. @default 2 */
  readonly priorAgree?: number;
  /** Prior pseudo-count b₀ > 0 of disagreements. @default 1 */
  readonly priorDisagree?: number;
  /** Smallest weight ℓ_min ≥ 0 (an agent no better than chance keeps this much). @default 0.05 */
  readonly minWeight?: number;
  /** Largest weight ℓ_max (caps near-certain agents). @default 4 */
  readonly maxWeight?: number;
}

/** Defaults of {@link PeerHistoryOptions}. */
export const peerHistoryDefaults = {
  decay: 0.98,
  priorAgree: 2,
  priorDisagree: 1,
  minWeight: 0.05,
  maxWeight: 4,
} as const;

/** One proposal for the peer-agreement signal. */
export interface PeerEntry {
  readonly agentId: AgentId;
  readonly group: string;
  readonly answer: string | null;
}

/** Persisted state of a peer history: [agent, decayed agreements c, decayed observations n]. */
export type PeerHistorySnapshot = DecayedCountsSnapshot;

/** The per-agent log-odds history of MiniRep-LO. */
export interface PeerHistory {
  /** Estimated reliability p_i in (0, 1); the prior mean a₀/(a₀ + b₀) for an unseen agent. */
  probability(agentId: AgentId): number;
  /** Vote weight clamp(ln(p/(1 − p)), ℓ_min, ℓ_max). */
  weight(agentId: AgentId): number;
  /** Adds one observation y in [0, 1] for an agent. */
  observe(agentId: AgentId, value: number): void;
  snapshot(): PeerHistorySnapshot;
  restore(snapshot: PeerHistorySnapshot): void;
}

/**
 * Agreement of each proposal with the plurality of the other clone groups, each group voting with
 * weight 1 split over its members' parseable answers: 1/t when the proposal's answer is among the t
 * answers tied for the most group-share, else 0; 0 for an unparseable proposal; absent when no other
 * group gave a parseable answer. Pure.
 *
 * @example
 * peerAgreement([{ agentId: 'a', group: 'A', answer: '1' }, { agentId: 'b', group: 'B', answer: '1' }, { agentId: 'c', group: 'C', answer: '2' }]);
 * // a: others' shares {1: 1, 2: 1} → tie of 2 → 0.5; b: 0.5; c: others {1: 2} → 0
 */
export function peerAgreement(entries: readonly PeerEntry[]): Map<AgentId, number> {
  const groups = new Map<string, { size: number; answers: Map<string, number> }>();
  for (const entry of entries) {
    let group = groups.get(entry.group);
    if (group === undefined) {
      group = { size: 0, answers: new Map() };
      groups.set(entry.group, group);
    }
    group.size += 1;
    if (entry.answer !== null) group.answers.set(entry.answer, (group.answers.get(entry.answer) ?? 0) + 1);
  }
  // Σ_h share_h(a) over all groups; each agent then removes its own group's shares.
  const total = new Map<string, number>();
  for (const group of groups.values())
    for (const [answer, count] of group.answers) total.set(answer, (total.get(answer) ?? 0) + count / group.size);
  const result = new Map<AgentId, number>();
  for (const entry of entries) {
    const own = groups.get(entry.group) as { size: number; answers: Map<string, number> };
    let top = 0;
    let tied = 0;
    let mine = 0;
    for (const [answer, share] of total) {
      // share of answer a among the other groups = Σ_h share_h(a) − share_{g_i}(a)
      const rest = share - (own.answers.get(answer) ?? 0) / own.size;
      if (rest <= 1e-12) continue;
      if (rest > top + 1e-12) {
        top = rest;
        tied = 1;
      } else if (Math.abs(rest - top) <= 1e-12) tied += 1;
      if (answer === entry.answer) mine = rest;
    }
    if (top === 0) continue;
    result.set(entry.agentId, entry.answer !== null && Math.abs(mine - top) <= 1e-12 ? 1 / tied : 0);
  }
  return result;
}

/**
 * Creates the log-odds history of MiniRep-LO: decayed counts per agent, a Beta(a₀, b₀) prior, and
 * the weight clamp(ln(p/(1 − p)), ℓ_min, ℓ_max).
 *
 * @example
 * const history = createPeerHistory();
 * history.observe('a', 1);
 * history.weight('a'); // p = (1 + 2)/(1 + 3) = 0.75 → ln 3 = 1.0986
 */
export function createPeerHistory(options: PeerHistoryOptions = {}): PeerHistory {
  assertKnownOptions('options', options, knownPeerHistoryOptions, 'createPeerHistory');
  const decay = options.decay ?? peerHistoryDefaults.decay;
  const priorAgree = options.priorAgree ?? peerHistoryDefaults.priorAgree;
  const priorDisagree = options.priorDisagree ?? peerHistoryDefaults.priorDisagree;
  const minWeight = options.minWeight ?? peerHistoryDefaults.minWeight;
  const maxWeight = options.maxWeight ?? peerHistoryDefaults.maxWeight;
  assertInRange('peerHistory.minWeight', minWeight, 0, 100, { hint: 'pass e.g. { minWeight: 0.05 }' });
  assertInRange('peerHistory.maxWeight', maxWeight, minWeight, 100, {
    hint: `maxWeight must be ≥ minWeight (${minWeight}); pass e.g. { maxWeight: 4 }`,
  });
  // p = (c + a₀) / (n + a₀ + b₀)
  const counts = createDecayedCounts('peerHistory', { decay, priorAgree, priorDisagree });
  const { probability } = counts;
  return {
    probability,
    weight(agentId) {
      const p = probability(agentId);
      // ℓ = ln(p / (1 − p)), clamped
      return Math.min(maxWeight, Math.max(minWeight, Math.log(p / (1 - p))));
    },
    observe(agentId, value) {
      assertInRange(`peerHistory.observe(${agentId})`, value, 0, 1, {
        hint: 'an observation is agreement or quality in [0, 1]',
      });
      counts.add(agentId, value);
    },
    snapshot: () => counts.snapshot(),
    restore: (snapshot) => counts.restore(snapshot),
  };
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownPeerHistoryOptions = defineOptionKeys<PeerHistoryOptions>()([
  'decay',
  'priorAgree',
  'priorDisagree',
  'minWeight',
  'maxWeight',
]);
