import type { AgentId, AgentIdentity } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import type { WeightReason } from '../core/trace.js';
import type { Evidence } from '../core/reputation-model.js';

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
  /**
   * A verifier's verdicts on these proposals (agent → probability of being correct, in [0, 1]),
   * collected before aggregation with `verifyProposals`. MiniRep down-weights proposals judged wrong;
   * aggregators that do not use a verifier ignore them.
   */
  readonly verdicts?: Readonly<Record<AgentId, number>>;
  /**
   * Whether to write the human-readable text of the decision: `false` lets an aggregator leave out
   * each reason's `note` (and MiniRep its analysis' `reasons`), while the answer, support, weights and
   * components are the same either way; for hot loops that read only the numbers. @default true
   */
  readonly notes?: boolean;
  /**
   * Whether to write the decision's `support` record: `false` lets an aggregator leave it empty (`{}`),
   * while the answer and the reasons are the same either way; for hot loops that never read it (a
   * record keyed by answers costs more to build than the vote itself). @default true
   */
  readonly support?: boolean;
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
  /**
   * Optional: the evidence batch a reputation model should observe about the decided task once its
   * answer is fixed, given each agent's quality in [0, 1] (default: 1 if the agent's answer equals the
   * decided answer, else 0). Aggregators that see nothing beyond the votes omit it; callers then send
   * `outcome` evidence themselves. The MiniRep aggregator returns its behaviour records.
   */
  feedback?(decision: Decision, quality?: Readonly<Record<AgentId, number>>): Evidence[];
}
