import type { AgentId } from '../../core/agent-identity.js';
import type { ReputationSnapshot } from '../../reputation/reputation-model.js';

/** What RAPS carries from one task to the next (schemaVersion 1): persist it to resume a run. */
export interface RapsCarriedState {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** The watchdog's beliefs E_i[j] (first- and second-hand), a Beta model snapshot. */
  readonly beliefs: ReputationSnapshot;
  /** First-hand (audit) evidence only, what witnesses report. */
  readonly firstHand: ReputationSnapshot;
  /** Witness reports already made, keyed by (observer, witness, subject). */
  readonly reported: Readonly<Record<string, string>>;
  /** Subscription text per agent. */
  readonly subscriptions: Readonly<Record<AgentId, string>>;
  /** Rounds run so far across tasks. */
  readonly globalRound: number;
}

/** One task's decision. */
export interface RapsDecision {
  /** Id of the decided task. */
  readonly taskId: string;
  /** Winning answer key, or null. */
  readonly answer: string | null;
  /** Support per answer key from the aggregator (with the default, the summed reputation of the eligible agents that gave it). */
  readonly support: Readonly<Record<string, number>>;
  /** Agents whose answers were aggregated (reputation ≥ τ). */
  readonly eligible: readonly AgentId[];
  /** Rounds the task took. */
  readonly rounds: number;
  /** Each agent's last answer. */
  readonly answers: Readonly<Record<AgentId, string | null>>;
  /** Each agent's last publication text. */
  readonly texts: Readonly<Record<AgentId, string>>;
  /**
   * With a decider: what the team view (no decider; agents whose peer reputation is ≥ τ, weighted
   * by it) would have decided at the same point of the same run, to show what the decider buys.
   */
  readonly teamView?: { readonly answer: string | null; readonly eligible: readonly AgentId[] };
}

/** Counters of one round. */
export interface RapsRoundStats {
  /** Id of the task the round belongs to. */
  readonly taskId: string;
  /** 0-based round index within the task. */
  readonly round: number;
  /** 1-based count of rounds run so far across all tasks, this one included. */
  readonly globalRound: number;
  /** Publications this round: agents whose publish act succeeded, ≤ n. */
  readonly publications: number;
  /** Deliveries the broker made. */
  readonly routed: number;
  /** Deliveries broadcast would have made: publications × (n − 1). */
  readonly broadcast: number;
  /** Audit calls (one per delivery). */
  readonly audits: number;
  /** Witness reports checked. */
  readonly witnessChecks: number;
  /** Witness reports refused by the deviation test. */
  readonly witnessRejected: number;
  /** Agents that said DONE. */
  readonly done: number;
  /** Peer reputation of every agent after the round. */
  readonly reputation: Readonly<Record<AgentId, number>>;
  /** The decider's belief E_decider[j] about every agent j (its own entry 1), when a decider is set. */
  readonly deciderView?: Readonly<Record<AgentId, number>>;
}

/** Result of {@link runRaps} (schemaVersion 1). */
export interface RapsResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Run id used in the transport subjects. */
  readonly runId: string;
  /** One decision per task, in task order. */
  readonly decisions: readonly RapsDecision[];
  /** Counters of every round, in the order run. */
  readonly rounds: readonly RapsRoundStats[];
  /** Peer reputation after the last round. */
  readonly finalReputation: Readonly<Record<AgentId, number>>;
  /** E_i[j] for every observer i and subject j after the last round. */
  readonly beliefs: Readonly<Record<AgentId, Readonly<Record<AgentId, number>>>>;
  /** Sums of the round counters over the whole run, plus transport and failure counts. */
  readonly totals: {
    /** Publications over all rounds. */
    readonly publications: number;
    /** Deliveries the broker made over all rounds. */
    readonly routed: number;
    /** Deliveries broadcast would have made over all rounds. */
    readonly broadcast: number;
    /** Audit calls over all rounds. */
    readonly audits: number;
    /** Witness reports checked over all rounds. */
    readonly witnessChecks: number;
    /** Witness reports refused by the deviation test over all rounds. */
    readonly witnessRejected: number;
    /** Subscription refinements applied over all rounds. */
    readonly refinements: number;
    /** Wire messages rejected as malformed (counted, never fatal). */
    readonly malformed: number;
    /** Replies seen more than once and dropped (at-least-once duplicates). */
    readonly duplicates: number;
    /** Agent acts that failed. */
    readonly agentErrors: number;
    /**
     * Publications whose route selector threw or answered badly (`route-error` events): routed by
     * similarity or the valid part of the choice, and charged to no agent.
     */
    readonly routeErrors: number;
  };
  /** Final subscription text per agent. */
  readonly subscriptions: Readonly<Record<AgentId, string>>;
}
