import type { AgentId, AgentIdentity } from '../core/agent-identity.js';
import type { Rng } from '../core/rng.js';
import type { WeightReason } from '../core/trace.js';

/** What a selector sees when picking a team. */
export interface SelectionContext {
  /** Candidate agents (with cost per call). */
  readonly pool: readonly AgentIdentity[];
  /** Current reputation of each pool agent, in [0, 1]. */
  readonly reputation: Readonly<Record<AgentId, number>>;
  /** Team size; must satisfy 1 ≤ k ≤ pool size. Selectors that take everyone ignore it. */
  readonly k: number;
  /** Randomness for tie-breaking and sampling. */
  readonly rng: Rng;
  /**
   * Whether to explain the choice: `false` lets a selector return `reasons: []` (its `selected` and
   * `excluded`, its draws from `rng` and any state it keeps are the same either way), for hot loops
   * that read only the team. @default true
   */
  readonly reasons?: boolean;
}

/** A chosen team and the reasons behind it. */
export interface Selection {
  /** Selected agent ids, best first. */
  readonly selected: readonly AgentId[];
  /** Agents excluded by a threshold (not merely unselected). */
  readonly excluded: readonly AgentId[];
  /** One reason per pool agent. */
  readonly reasons: readonly WeightReason[];
}

/** Picks which agents take part in the next task or round. */
export interface Selector {
  /** Registry name, e.g. `top-k`. */
  readonly name: string;
  /** Picks a team; stateful selectors (UCB) also count the selection. */
  select(context: SelectionContext): Selection;
}
