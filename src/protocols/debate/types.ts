import type { Agent, ActUsage } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import type { Proposal } from '../../core/proposal.js';
import type { Rating } from '../../core/rating.js';
import type { Task } from '../../core/task.js';
import type { Decision } from '../../aggregation/aggregator.js';
import type { Evidence } from '../../reputation/reputation-model.js';

/** One agent act and what it cost, for the ledger. */
export interface DebateUsageEntry extends ActUsage {
  readonly agentId: AgentId;
  readonly taskId: string;
  /** `propose`, `revise`, `rate`. */
  readonly act: string;
  /** Debate round of the act (0 = propose). */
  readonly round: number;
}

/** An act that threw (provider failure after retries): counted, and the proposal is unparseable. */
export interface DebateFailure {
  readonly agentId: AgentId;
  readonly act: string;
  readonly round: number;
  readonly message: string;
  /**
   * `provider` when the act's model call failed after its retries (a `ProviderError`): the task
   * did not really happen and a session stores it as failed, not as a result. `output` for
   * anything else (an unusable reply, a rating out of range). Absent = `output`.
   */
  readonly kind?: 'provider' | 'output';
  /** HTTP status of the provider's last attempt, when there was one. */
  readonly status?: number;
  /** The provider failure's reason (`http`, `network`, `timeout`, `malformed`). */
  readonly reason?: string;
}

/** What a feedback rule sees once the decision is made. */
export interface FeedbackInput {
  readonly task: Task;
  readonly decision: Decision;
  /** Final-round proposals of the participants. */
  readonly proposals: readonly Proposal[];
  /** Earlier-round proposals. */
  readonly history: readonly Proposal[];
  /** Peer ratings collected on the final proposals (empty unless ratings were asked for). */
  readonly ratings: readonly Rating[];
  /**
   * The team's verifier's verdicts on the final proposals (agent → probability of being correct, in
   * [0, 1]), the same the aggregator read; absent without a verifier. Feedback rules use them as each
   * participant's success in place of agreement with the decision (verifier feedback). @default none
   */
  readonly verdicts?: Readonly<Record<AgentId, number>>;
}

/** Turns a decided task into reputation evidence. */
export type Feedback = (input: FeedbackInput) => Evidence[];

/** Everything one debate produced. */
export interface DebateResult {
  readonly schemaVersion: 1;
  readonly taskId: string;
  /** Agents that took part, best first as the selector ranked them. */
  readonly participants: readonly AgentId[];
  /** Agents the selector excluded by threshold. */
  readonly excluded: readonly AgentId[];
  /** Proposals per round: `rounds[0]` is Propose, `rounds[r]` debate round r. */
  readonly rounds: readonly (readonly Proposal[])[];
  readonly ratings: readonly Rating[];
  readonly decision: Decision;
  /** Reputation scores before and after the update (empty without a reputation model). */
  readonly reputationBefore: Readonly<Record<AgentId, number>>;
  readonly reputationAfter: Readonly<Record<AgentId, number>>;
  readonly usage: readonly DebateUsageEntry[];
  readonly failures: readonly DebateFailure[];
}

/** A team as the debate sees it: agents by id. */
export type DebateTeam = readonly Agent[];

/** What the session stores per finished task (`result` of the task record). */
export interface DebateTaskRecord {
  readonly schemaVersion: 1;
  readonly taskId: string;
  readonly answer: string | null;
  /** Graded against the reference when a grader was given, else `null`. */
  readonly correct: boolean | null;
  readonly participants: readonly AgentId[];
  readonly excluded: readonly AgentId[];
  /** Final answer per participant. */
  readonly answers: Readonly<Record<AgentId, string | null>>;
  readonly support: Readonly<Record<string, number>>;
  readonly reputation: Readonly<Record<AgentId, number>>;
  /** Acts that failed (provider errors after retries, unparseable ratings). */
  readonly failures: number;
}
