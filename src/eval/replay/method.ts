import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { Aggregator, Decision } from '../../aggregation/aggregator.js';
import type { BehaviourEvidence, ReputationModel } from '../../reputation/reputation-model.js';
import type { Selector } from '../../selection/selector.js';

/**
 * The kinds of post-task feedback the replay harness sends to a method's model: `outcome` (each
 * participant's success, no observer), `behaviour` records, agreement `rating`s, and `observation`s:
 * each participant's success as every other participant observes it (an outcome with an observer),
 * sent only under verifier or truth feedback, which is how models that learn from what peers observe
 * (EigenTrust, DRF) receive the shared post-task assessment.
 */
export type ReplayEvidenceKind = 'outcome' | 'behaviour' | 'rating' | 'observation';

/** The parts of one replay method: who takes part, who is trusted, how the answer is decided. */
export interface ReplayMethodParts {
  /** Picks the participants of each task from the team of 10. */
  readonly selector: Selector;
  /** Reputation carried across tasks; omitted for stateless methods (majority, random-k). */
  readonly model?: ReputationModel;
  /** Decides the task's answer from the participants' proposals. */
  readonly aggregator: Aggregator;
  /** Team size passed to the selector (ignored by `all`). */
  readonly k: number;
  /** Whether the model's weights over the participants are passed to the aggregator. */
  readonly weighted: boolean;
  /**
   * The selector takes the whole team on every task, in team order, without a draw (the `all`
   * selector): the harness then skips calling it. @default false
   */
  readonly everyAgent?: boolean;
  /**
   * Builds the task's behaviour records from the aggregator's own analysis (MiniRep); `quality` is
   * each participant's feedback success. Omitted: the harness builds them from the decision reasons.
   */
  readonly behaviourEvidence?: (decision: Decision, quality: Readonly<Record<AgentId, number>>) => BehaviourEvidence[];
  /**
   * The kinds of the harness's feedback the model is sent. Of outcomes, behaviour records and ratings
   * the harness builds only these. The rest would not change the model's scores and weights, which
   * is all the replay reads of it (selectors read scores, aggregators weights): the model would
   * check and ignore them (EigenTrust and DRF read outcomes only with an observer, single-metric reads
   * no ratings), or keep them where no score or weight looks (Beta's ratings fill only per-observer
   * beliefs; its scores are the team's belief, from outcomes). A test pins this for every registered
   * method. `observation`s go only to models that list them.
   * @default ['outcome', 'behaviour', 'rating']
   */
  readonly reads?: readonly ReplayEvidenceKind[];
}

/** A named replay method: a recipe that builds fresh parts for one team. */
export interface ReplayMethod {
  /** Name in reports and `--methods`. */
  readonly name: string;
  /** One sentence: the composition (selector + reputation model + aggregator). */
  readonly description: string;
  /**
   * The code the method runs on, read only to schedule a parallel replay: `minirep` for methods built
   * on the MiniRep aggregator and model, `baseline` for the rest. With worker threads, each family
   * keeps to its own thread where the load allows, so each thread compiles one family's code.
   * @default 'baseline'
   */
  readonly family?: 'minirep' | 'baseline';
  /** Builds fresh, independent parts for a team; `seed` is per (run, condition, method). */
  create(context: { readonly team: readonly AgentIdentity[]; readonly seed: number }): ReplayMethodParts;
}
