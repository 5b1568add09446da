import type { Acted, ActUsage, Agent } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import { validateRating, type Rating } from '../../core/rating.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { assertInRange, assertKnownOptions, assertOneOf, defineOptionKeys } from '../../core/validate.js';
import { drfRelativeDistance } from '../../reputation/drf.js';

/** What a rating source is asked: `rater` judges `proposal` (someone else's) on `task`. */
export interface RateInput {
  /** The agent that gives the rating. */
  readonly rater: Agent;
  /** The task both proposals answer. */
  readonly task: Task;
  /** The proposal under judgement (never the rater's own). */
  readonly proposal: Proposal;
  /** The rater's own proposal on the task, when it made one that parsed or not. */
  readonly own?: Proposal;
  /** Aborts the rating act. @default undefined */
  readonly signal?: AbortSignal;
}

/**
 * Where DRF's rating network gets its edges from: a live judging prompt (`Agent.rate`), agreement
 * with the rater's own answer (replayed proposals), or a simulated judge of stated accuracy.
 */
export interface RatingSource {
  /** Registry-style name, e.g. `agent`, `agreement`, `simulated-judge`. */
  readonly name: string;
  /** One rating in [0, 1] with the usage it cost (zero for agreement and simulated judges). */
  rate(input: RateInput): Promise<Acted<Rating>>;
}

const freeUsage: ActUsage = { inputTokens: 0, outputTokens: 0, cost: 0, cached: false };

/**
 * Ratings come from the rater itself (`Agent.rate`): a judging prompt for live agents, the
 * simulator's judging accuracy for simulated agents. The reply is checked (rater, ratee, task and a
 * score in [0, 1]) before it enters the rating network.
 *
 * @example
 * const source = agentRatingSource();
 * const { value } = await source.rate({ rater, task, proposal });
 */
export function agentRatingSource(): RatingSource {
  return {
    name: 'agent',
    async rate({ rater, task, proposal, own, signal }) {
      const acted = await rater.rate({
        task,
        proposal,
        ...(own === undefined ? {} : { own }),
        ...(signal === undefined ? {} : { signal }),
      });
      const rating = acted.value;
      validateRating(rating, `rating from ${rater.identity.id}`);
      if (rating.rater !== rater.identity.id || rating.ratee !== proposal.agentId || rating.taskId !== task.id) {
        throw new InvalidArgumentError({
          parameter: 'rating',
          value: { rater: rating.rater, ratee: rating.ratee, taskId: rating.taskId },
          message: `agent ${rater.identity.id} returned a rating for rater ${rating.rater} -> ratee ${rating.ratee} on task ${rating.taskId}, expected ${rater.identity.id} -> ${proposal.agentId} on ${task.id}; Agent.rate must echo the request's ids`,
        });
      }
      return acted;
    },
  };
}

/** Options of {@link agreementRatingSource}. */
export interface AgreementRatingOptions {
  /** Equality of canonical answer keys. @default string equality */
  readonly sameAnswer?: (left: string, right: string) => boolean;
  /**
   * Distance d between the peer's answer and the rater's own, the rating being 1 − d: `'exact'`
   * 0 for the same key, else 1; `'relative'` (ours) |w − w'| / |w| capped at 1 when both keys are
   * numbers, else as `'exact'`. @default 'exact'
   */
  readonly distance?: 'exact' | 'relative';
}

const knownAgreementRatingOptions = defineOptionKeys<AgreementRatingOptions>()(['sameAnswer', 'distance']);

/**
 * Replayed proposals (ours; the paper's raters are LLM judges): a rater scores a peer by closeness
 * to its own answer, s = 1 − d, where d is 0 for the same answer key and 1 for a different one (or
 * the relative numeric distance with `distance: 'relative'`). A peer whose answer did not parse
 * scores 0; a rater whose own answer did not parse gives 0.5 (no opinion). With the defaults this is
 * agreement: 1 same answer, 0 different. DRF's Eq. 2 is not applied here: it is the accuracy of a
 * task score against its threshold (`drfTaskAccuracy`), not a transformation of ratings.
 *
 * @example
 * const source = agreementRatingSource({ distance: 'relative' });
 * // rater answered 10, peer 8: d = 0.2, rating 1 − 0.2 = 0.8
 */
export function agreementRatingSource(options: AgreementRatingOptions = {}): RatingSource {
  assertKnownOptions('', options, knownAgreementRatingOptions, 'agreementRatingSource');
  const { sameAnswer = (left: string, right: string) => left === right, distance = 'exact' } = options;
  assertOneOf('distance', distance, ['exact', 'relative']);
  return {
    name: 'agreement',
    async rate({ rater, task, proposal, own }) {
      const base = { rater: rater.identity.id, ratee: proposal.agentId, taskId: task.id };
      let score: number;
      let reason: string;
      if (proposal.answer === null) {
        score = 0;
        reason = 'peer answer did not parse';
      } else if (own === undefined || own.answer === null) {
        score = 0.5;
        reason = 'rater has no parsed answer of its own';
      } else {
        const same = sameAnswer(own.answer, proposal.answer);
        const reference = Number(own.answer);
        const answer = Number(proposal.answer);
        const numeric =
          distance === 'relative' &&
          !same &&
          own.answer.trim() !== '' &&
          proposal.answer.trim() !== '' &&
          Number.isFinite(reference) &&
          Number.isFinite(answer);
        // d: 0 same key, 1 different key; relative: |w − w'| / |w| for numbers (capped at 1)
        const d = same ? 0 : numeric ? drfRelativeDistance(reference, answer) : 1;
        // closeness: s = 1 − d
        score = 1 - d;
        reason = `${same ? 'same answer as the rater' : 'different answer from the rater'}: distance ${d}, rating ${score}`;
      }
      return { value: { ...base, score, reason }, usage: freeUsage };
    },
  };
}

/**
 * Ours, not the paper's: replaces another source's rating s by its complement 1 − s, reading the
 * rating as a distance. Before issue 41 this was how we ran DRF's Eq. 2 "as printed"; the paper's
 * Eq. 2 is an accuracy of a task score against its threshold (`drfTaskAccuracy`) and never
 * transforms ratings. Kept so that the old reading can be measured (`complementRatings` in
 * `createDrfParts`).
 *
 * @example
 * const inverted = complementRatingSource(agentRatingSource()); // a rating of 0.9 becomes 0.1
 */
export function complementRatingSource(inner: RatingSource): RatingSource {
  return {
    name: `${inner.name}+complement`,
    async rate(input) {
      const acted = await inner.rate(input);
      // ours: s' = 1 − s
      const score = 1 - acted.value.score;
      return {
        ...acted,
        value: { ...acted.value, score, reason: `complemented rating (ours): ${acted.value.score} -> ${score}` },
      };
    },
  };
}

/** Options of {@link simulatedJudgeRatingSource}. */
export interface SimulatedJudgeOptions {
  /** Probability in [0, 1] that the judge's verdict matches the proposal's true correctness. @default 0.8 */
  readonly accuracy?: number;
  /** Judging accuracy per rater in [0, 1], overriding `accuracy` for the agents it names. @default {} */
  readonly accuracyByAgent?: Readonly<Record<AgentId, number>>;
  /** Ground truth for the judge only (never for the protocol's decisions): is this proposal correct? */
  readonly isCorrect: (proposal: Proposal) => boolean;
  /** Seed of the judge's coin flips; each verdict derives its own stream from (seed, rater, ratee, task). */
  readonly seed: number | string;
}

const knownSimulatedJudgeOptions = defineOptionKeys<SimulatedJudgeOptions>()([
  'accuracy',
  'accuracyByAgent',
  'isCorrect',
  'seed',
]);

/**
 * A simulated judge of stated accuracy for replayed proposals: with probability `accuracy` it
 * rates a correct proposal 1 and a wrong one 0, otherwise the reverse. Each verdict draws from its
 * own stream derived from (seed, rater, ratee, task), so verdicts do not depend on call order.
 */
export function simulatedJudgeRatingSource(options: SimulatedJudgeOptions): RatingSource {
  assertKnownOptions('', options, knownSimulatedJudgeOptions, 'simulatedJudgeRatingSource');
  const accuracy = options.accuracy ?? 0.8;
  assertInRange('accuracy', accuracy, 0, 1, { hint: 'pass the probability that a verdict is right, e.g. 0.8' });
  for (const [agentId, value] of Object.entries(options.accuracyByAgent ?? {})) {
    assertInRange(`accuracyByAgent.${agentId}`, value, 0, 1);
  }
  return {
    name: 'simulated-judge',
    async rate({ rater, task, proposal }) {
      const raterId = rater.identity.id;
      const stated = options.accuracyByAgent?.[raterId] ?? accuracy;
      const rng = createRng(deriveSeed(options.seed, 'judge', raterId, proposal.agentId, task.id));
      const correct = proposal.answer !== null && options.isCorrect(proposal);
      const right = rng() < stated;
      const verdict = right ? correct : !correct;
      return {
        value: {
          rater: raterId,
          ratee: proposal.agentId,
          taskId: task.id,
          score: verdict ? 1 : 0,
          reason: `simulated judge (accuracy ${stated}) says ${verdict ? 'correct' : 'wrong'}`,
        },
        usage: freeUsage,
      };
    },
  };
}
