import type { AgentId, AgentIdentity } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import type { WeightReason } from '../core/trace.js';

/** What an aggregator decides from. */
export interface AggregationInput {
  readonly task: Task;
  /** The final-round proposals of the participating agents. */
  readonly proposals: readonly Proposal[];
  /** Identities (clone groups) of the proposing agents. */
  readonly agents: readonly AgentIdentity[];
  /** Prior weights per agent (e.g. reputation); missing agents weigh 0. Omitted = equal weights. */
  readonly weights?: Readonly<Record<AgentId, number>>;
  /** Earlier-round proposals, when the protocol had debate rounds (for behaviour checks). */
  readonly history?: readonly Proposal[];
}

/** The team's decision on a task. */
export interface Decision {
  readonly taskId: string;
  /** Winning canonical answer key, or `null` when no proposal parsed. */
  readonly answer: string | null;
  /** Total weight behind each answer key. */
  readonly support: Readonly<Record<string, number>>;
  /** Each contributing agent's final weight and why. */
  readonly reasons: readonly WeightReason[];
}

/** Turns proposals into one answer. */
export interface Aggregator {
  /** Registry name, e.g. `weighted-plurality`. */
  readonly name: string;
  aggregate(input: AggregationInput): Decision;
}
