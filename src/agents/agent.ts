import type { AgentIdentity } from '../core/agent-identity.js';
import type { Message } from '../core/message.js';
import type { Proposal } from '../core/proposal.js';
import type { Rating } from '../core/rating.js';
import type { Task } from '../core/task.js';

/** Token and cost accounting of one agent act (zero for simulated and replayed agents). */
export interface ActUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** US dollars (or the team's price unit). */
  readonly cost: number;
  /** True when the reply came from the record/replay cache (no provider request). */
  readonly cached: boolean;
}

/** Common fields of every request to an agent. */
export interface ActRequest {
  /** Aborts the act (timeouts, shutdown). */
  readonly signal?: AbortSignal;
}

/** Ask for an initial answer (Propose). */
export interface ProposeRequest extends ActRequest {
  readonly task: Task;
}

/** Ask for a revised answer after seeing peers (one debate round). */
export interface ReviseRequest extends ActRequest {
  readonly task: Task;
  /** 1-based debate round. */
  readonly round: number;
  /** The agent's own latest proposal. */
  readonly own: Proposal;
  /** Peers' latest proposals (the agent's own excluded). */
  readonly peers: readonly Proposal[];
}

/** Ask for a rating of another agent's proposal. */
export interface RateRequest extends ActRequest {
  readonly task: Task;
  /** The proposal to judge. */
  readonly proposal: Proposal;
  /** The rater's own proposal on the same task, when it made one. */
  readonly own?: Proposal;
}

/** Ask whether a received message is reliable (RAPS watchdog audit). */
export interface AuditRequest extends ActRequest {
  readonly message: Message;
  /** The task in question, when the message is about one. */
  readonly task?: Task;
}

/** An audit verdict. */
export interface AuditVerdict {
  readonly reliable: boolean;
  readonly reason: string;
}

/** Ask for a rewritten subscription after a round (RAPS reactive refinement). */
export interface RefineSubscriptionRequest extends ActRequest {
  /** The current subscription text. */
  readonly current: string;
  /** Messages the agent received this round. */
  readonly received: readonly Message[];
}

/** An agent's reply with its usage. */
export interface Acted<T> {
  readonly value: T;
  readonly usage: ActUsage;
}

/**
 * One interface for live (LLM), replayed (recorded answers) and simulated agents; protocols never
 * know which kind they talk to. Every act is async so that a round's calls can run concurrently.
 */
export interface Agent {
  readonly identity: AgentIdentity;
  readonly kind: 'live' | 'replayed' | 'simulated';
  /** Initial answer to a task (round 0). */
  propose(request: ProposeRequest): Promise<Acted<Proposal>>;
  /** Revised answer after seeing peers (round ≥ 1). */
  revise(request: ReviseRequest): Promise<Acted<Proposal>>;
  /** Rating in [0, 1] of another agent's proposal, with a reason. */
  rate(request: RateRequest): Promise<Acted<Rating>>;
  /** Whether a received message is reliable. */
  audit(request: AuditRequest): Promise<Acted<AuditVerdict>>;
  /** A rewritten subscription text. */
  refineSubscription(request: RefineSubscriptionRequest): Promise<Acted<string>>;
}
