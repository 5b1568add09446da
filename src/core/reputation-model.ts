import type { AgentId } from './agent-identity.js';
import type { Rating } from './rating.js';
import type { TaskId } from './task.js';

/** Direct evidence: `subject` did well (`success` = 1) or badly (0) on a task, as seen by `observer`. */
export interface OutcomeEvidence {
  /** Discriminant of the evidence union. */
  readonly type: 'outcome';
  /** Task the outcome was observed on. */
  readonly taskId: TaskId;
  /** Agent whose outcome it is. */
  readonly subject: AgentId;
  /** Degree of success in [0, 1]; fractional values count as partial evidence. */
  readonly success: number;
  /** Who observed it; omitted = the team's shared view. */
  readonly observer?: AgentId;
}

/** A peer rating (DRF's rating network, EigenTrust's local trust). */
export interface RatingEvidence {
  /** Discriminant of the evidence union. */
  readonly type: 'rating';
  /** The rating, with rater, ratee and score in [0, 1]. */
  readonly rating: Rating;
}

/**
 * What the response analyzer saw in a proposal once the task's answer was fixed (MiniRep):
 * whether it parsed, whether it was flagged, its risk and its quality.
 */
export interface BehaviourEvidence {
  /** Discriminant of the evidence union. */
  readonly type: 'behaviour';
  /** Task the proposal answered. */
  readonly taskId: TaskId;
  /** Agent whose proposal was analysed. */
  readonly subject: AgentId;
  /** The proposal had a parseable answer. */
  readonly valid: boolean;
  /** The behaviour check flagged it (override text, false agreement claims, unexpected flips). */
  readonly flagged: boolean;
  /** Suspicion in [0, 1]. */
  readonly risk: number;
  /** Quality in [0, 1] (agreement with the fixed answer, verifier estimate, or truth). */
  readonly quality: number;
}

/**
 * Second-hand evidence (RAPS): `witness` reports its Beta evidence about `subject` to `observer`.
 * `positive`/`negative` are the witness's (decayed) counts excluding the Beta(1, 1) prior.
 */
export interface WitnessEvidence {
  /** Discriminant of the evidence union. */
  readonly type: 'witness';
  /** Agent that receives the report and updates its own view. */
  readonly observer: AgentId;
  /** Agent that reports its evidence. */
  readonly witness: AgentId;
  /** Agent the report is about. */
  readonly subject: AgentId;
  /** Witness's (decayed) positive count about `subject`, ≥ 0, prior excluded. */
  readonly positive: number;
  /** Witness's (decayed) negative count about `subject`, ≥ 0, prior excluded. */
  readonly negative: number;
}

/** Everything a reputation model can be told. A model documents which types it uses. */
export type Evidence = OutcomeEvidence | RatingEvidence | BehaviourEvidence | WitnessEvidence;

/** Why an agent has its score: named components and how much evidence backs it. */
export interface ScoreExplanation {
  /** Agent the explanation is about. */
  readonly agentId: AgentId;
  /** Score in [0, 1]. */
  readonly score: number;
  /** Named parts of the score (e.g. `{ alpha: 4.2, beta: 1.1 }`). */
  readonly components: Readonly<Record<string, number>>;
  /** Number of evidence items that touched this agent. */
  readonly evidenceCount: number;
  /** One sentence for people. */
  readonly summary: string;
}

/** Serialised state of a reputation model; restore it into a model of the same name. */
export interface ReputationSnapshot {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Registry name of the model that took the snapshot, e.g. `beta`. */
  readonly model: string;
  /** Agents known to the model, in registration order. */
  readonly agents: readonly AgentId[];
  /** Model-specific JSON-serialisable state. */
  readonly state: unknown;
}

/**
 * A reputation model: it observes evidence after each task and scores every agent in [0, 1].
 * Implementations validate every batch before applying any of it, so a bad batch changes nothing.
 */
export interface ReputationModel {
  /** Registry name, e.g. `beta`. */
  readonly name: string;
  /** Agents known to the model, in registration order. */
  agentIds(): readonly AgentId[];
  /** Registers a new agent with the model's prior; throws if the id exists. */
  addAgent(agentId: AgentId): void;
  /**
   * Applies one batch of evidence (typically one task or round). Evidence types the model does not
   * use are ignored, as its TSDoc states; evidence naming unknown agents throws `NotFoundError`.
   */
  observe(evidence: readonly Evidence[]): void;
  /** Score of one agent in [0, 1]; throws `NotFoundError` for unknown ids. */
  score(agentId: AgentId): number;
  /** Scores of all agents. */
  scores(): Record<AgentId, number>;
  /** Weights over `agentIds` (default: all) that are ≥ 0 and sum to 1; uniform if all scores are 0. */
  weights(agentIds?: readonly AgentId[]): Record<AgentId, number>;
  /** Why an agent has its score. */
  explain(agentId: AgentId): ScoreExplanation;
  /** JSON-serialisable state. */
  snapshot(): ReputationSnapshot;
  /** Replaces the state with a snapshot taken from a model of the same name. */
  restore(snapshot: ReputationSnapshot): void;
}
