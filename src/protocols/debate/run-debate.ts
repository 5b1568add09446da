import type { Agent } from '../../agents/agent.js';
import type { Aggregator } from '../../aggregation/aggregator.js';
import type { Verifier } from '../../aggregation/verifier.js';
import { validateTeam } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Rng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createTracer, type Tracer } from '../../core/trace.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import type { Selector } from '../../selection/selector.js';
import { concludeDebate, gatherDebate } from './debate-task.js';
import { consensusFeedback } from './feedback.js';
import type { PeerFilter } from './peer-filter.js';
import type { DebateResult, Feedback } from './types.js';

/** Options of {@link runDebate}. */
export interface RunDebateOptions {
  /** The pool of agents (unique ids). */
  readonly team: readonly Agent[];
  /** The task the team answers. */
  readonly task: Task;
  /** Debate rounds after Propose, integer in [0, 20]. @default 1 */
  readonly rounds?: number;
  /** Picks participants. @default none (everyone takes part) */
  readonly selector?: Selector;
  /** Team size handed to the selector, in [1, team size]. @default team size */
  readonly k?: number;
  /** Decides the answer. */
  readonly aggregator: Aggregator;
  /** Weights votes and learns from feedback. @default none (equal weights, no learning) */
  readonly reputation?: ReputationModel;
  /** Turns the decision into evidence. @default consensusFeedback */
  readonly feedback?: Feedback;
  /** Ask every participant to rate every other final proposal (DRF, EigenTrust). @default false */
  readonly ratings?: boolean;
  /** Screens whose proposals peers see in debate rounds. @default none (everyone's) */
  readonly peerFilter?: PeerFilter;
  /** Randomness for the selector. */
  readonly rng: Rng;
  /** Where events go. @default a tracer with a no-op sink */
  readonly tracer?: Tracer;
  /** Aborts every pending act, and the debate between its steps (before any reputation update). @default none */
  readonly signal?: AbortSignal;
  /** Parent span of this debate's events. @default null */
  readonly parentId?: string | null;
  /**
   * Judges every final proposal before aggregation (an LLM judge, unit tests in the sandbox): the
   * aggregator reads its verdicts, the `vote` event records them, and the feedback rule gets them as
   * each participant's success. @default none
   */
  readonly verifier?: Verifier;
  /** Agent id the verifier's failures are booked under (its ledger id). @default `verifier` */
  readonly verifierId?: string;
}

const knownRunDebateOptions = defineOptionKeys<RunDebateOptions>()([
  'team',
  'task',
  'rounds',
  'selector',
  'k',
  'aggregator',
  'reputation',
  'feedback',
  'ratings',
  'peerFilter',
  'rng',
  'tracer',
  'signal',
  'parentId',
  'verifier',
  'verifierId',
]);

/**
 * Runs one task through Propose → Debate rounds → Decide, then updates reputation. Every
 * independent call of a round is issued at once, so a round takes as long as its slowest agent.
 * Every decision is written as an event: who was selected and why, each proposal, each debate
 * round, the vote with every weight and why, and the reputation before and after.
 *
 * @example
 * const result = await runDebate({ team, task, rounds: 2, aggregator: createPluralityAggregator(), rng: createRng(1) });
 * result.decision.answer; // '42'
 */
export async function runDebate(options: RunDebateOptions): Promise<DebateResult> {
  assertKnownOptions('', options, knownRunDebateOptions, 'runDebate');
  const {
    team,
    task,
    rounds = 1,
    selector,
    aggregator,
    reputation,
    peerFilter,
    feedback = consensusFeedback,
    ratings: wantRatings = false,
    rng,
    signal,
    parentId = null,
  } = options;
  const tracer = options.tracer ?? createTracer();
  validateTeam(
    team.map((agent) => agent?.identity),
    'team',
  );
  assertInteger('rounds', rounds, 0, 20, 'pass e.g. { rounds: 2 } for two debate rounds after Propose');
  const k = options.k ?? team.length;
  assertInteger('k', k, 1, team.length, `k must not exceed the team size ${team.length}`);
  if (typeof task?.id !== 'string' || typeof task.prompt !== 'string') {
    throw new InvalidArgumentError({ parameter: 'task', value: task, message: 'task must have an id and a prompt' });
  }
  // An abort is honoured between steps too, not only by agents that watch the signal.
  signal?.throwIfAborted();
  const taskSpan = tracer.start({ type: 'task', taskId: task.id }, parentId);
  try {
    const gathered = await gatherDebate({
      team,
      task,
      rounds,
      selector,
      k,
      scores: reputation ? reputation.scores() : {},
      ratings: wantRatings,
      peerFilter,
      rng,
      tracer,
      signal,
      parentId: taskSpan.id,
      verifier: options.verifier,
      verifierId: options.verifierId,
    });
    // Aborted during the last acts: decide nothing and leave reputation as it was.
    signal?.throwIfAborted();
    const result = concludeDebate(gathered, { aggregator, reputation, feedback, tracer, parentId: taskSpan.id });
    tracer.end(taskSpan);
    return result;
  } catch (error) {
    tracer.end(taskSpan, error);
    throw error;
  }
}
