import type { Agent } from '../../agents/agent.js';
import type { Aggregator } from '../../aggregation/aggregator.js';
import { verifyProposals, type Verdicts, type Verifier } from '../../aggregation/verifier.js';
import { validateTeam } from '../../core/agent-identity.js';
import { InvalidArgumentError, NotFoundError, ProviderError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import type { Rng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createTracer, type Tracer } from '../../core/trace.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import type { Selector } from '../../selection/selector.js';
import { providerFailure } from './_act.js';
import { decideStep } from './decide-step.js';
import { consensusFeedback } from './feedback.js';
import { proposeStep } from './propose-step.js';
import { rateStep } from './rate-step.js';
import { reviseStep } from './revise-step.js';
import { selectParticipants } from './select-participants.js';
import type { PeerFilter } from './peer-filter.js';
import type { DebateFailure, DebateResult, DebateUsageEntry, Feedback } from './types.js';
import { updateReputationStep } from './update-reputation-step.js';

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
  const byId = new Map(team.map((agent) => [agent.identity.id, agent]));
  const reputationBefore = reputation ? reputation.scores() : {};
  const taskSpan = tracer.start({ type: 'task', taskId: task.id }, parentId);
  try {
    const selection = selectParticipants({
      pool: team.map((agent) => agent.identity),
      reputation: reputationBefore,
      ...(selector ? { selector } : {}),
      k,
      rng,
      tracer,
      taskId: task.id,
      parentId: taskSpan.id,
    });
    const participants = selection.selected.map((agentId) => {
      const agent = byId.get(agentId);
      if (!agent)
        throw new NotFoundError({
          entity: 'agent',
          id: agentId,
          message: `selector ${selector?.name ?? ''} picked unknown agent ${JSON.stringify(agentId)}`,
        });
      return agent;
    });
    const usage: DebateUsageEntry[] = [];
    const failures: DebateFailure[] = [];
    const roundsOut: Proposal[][] = [];

    const proposed = await proposeStep({
      agents: participants,
      task,
      tracer,
      ...(signal ? { signal } : {}),
      parentId: taskSpan.id,
    });
    roundsOut.push(proposed.proposals);
    usage.push(...proposed.usage);
    failures.push(...proposed.failures);
    signal?.throwIfAborted();
    // Every act of the last round failed (endpoints down or hanging): a revision round would only
    // wait out the same timeouts again, so the task ends here with its failures.
    let allFailed = allActsFailed(proposed.failures, participants.length);
    for (let round = 1; round <= rounds && participants.length > 1 && !allFailed; round++) {
      const latest = roundsOut[round - 1] as Proposal[];
      let visible: Set<string> | undefined;
      if (peerFilter) {
        const screen = peerFilter({ task, round, proposals: latest, history: roundsOut.slice(0, -1).flat() });
        visible = new Set(screen.visible);
        const shown = latest.map((proposal) => proposal.agentId);
        tracer.record(
          {
            type: 'selection',
            taskId: task.id,
            round,
            selected: shown.filter((agentId) => visible?.has(agentId)),
            excluded: shown.filter((agentId) => !visible?.has(agentId)),
            reasons: screen.reasons,
          },
          taskSpan.id,
        );
      }
      const revised = await reviseStep({
        agents: participants,
        task,
        round,
        latest,
        ...(visible ? { visible } : {}),
        tracer,
        ...(signal ? { signal } : {}),
        parentId: taskSpan.id,
      });
      roundsOut.push(revised.proposals);
      usage.push(...revised.usage);
      failures.push(...revised.failures);
      allFailed = allActsFailed(revised.failures, participants.length);
      signal?.throwIfAborted();
    }
    const final = roundsOut.at(-1) as Proposal[];
    const history = roundsOut.slice(0, -1).flat();

    const rated =
      wantRatings && participants.length > 1 && !allFailed
        ? await rateStep({
            agents: participants,
            task,
            proposals: final,
            tracer,
            ...(signal ? { signal } : {}),
            parentId: taskSpan.id,
          })
        : { ratings: [], usage: [], failures: [] };
    usage.push(...rated.usage);
    failures.push(...rated.failures);
    // Aborted during the last acts: decide nothing and leave reputation as it was.
    signal?.throwIfAborted();

    let verdicts: Verdicts | undefined;
    if (options.verifier !== undefined && allFailed) verdicts = {};
    else if (options.verifier !== undefined) {
      try {
        verdicts = await verifyProposals({ verifier: options.verifier, task, proposals: final });
      } catch (error) {
        if (signal?.aborted || !(error instanceof ProviderError)) throw error;
        // The judge's call failed after its retries: the task did not happen (a session stores it as
        // failed and a rerun redoes it); the decision below is made without verdicts.
        failures.push(providerFailure(options.verifierId ?? 'verifier', 'verify', roundsOut.length - 1, error));
        verdicts = {};
      }
      signal?.throwIfAborted();
    }

    const weights = reputation ? reputation.weights(selection.selected) : undefined;
    const decision = decideStep({
      task,
      proposals: final,
      history,
      agents: participants.map((agent) => agent.identity),
      ...(weights ? { weights } : {}),
      ...(verdicts === undefined || options.verifier === undefined
        ? {}
        : { verdicts: { verifier: options.verifier.name, verdicts } }),
      aggregator,
      tracer,
      parentId: taskSpan.id,
    });

    const updated = reputation
      ? updateReputationStep({
          reputation,
          feedback,
          input: {
            task,
            decision,
            proposals: final,
            history,
            ratings: rated.ratings,
            ...(verdicts === undefined ? {} : { verdicts }),
          },
          tracer,
          parentId: taskSpan.id,
        })
      : { before: {}, after: {} };
    tracer.end(taskSpan);
    return {
      schemaVersion: 1,
      taskId: task.id,
      participants: selection.selected,
      excluded: selection.excluded,
      rounds: roundsOut,
      ratings: rated.ratings,
      decision,
      reputationBefore: updated.before,
      reputationAfter: updated.after,
      usage,
      failures,
    };
  } catch (error) {
    tracer.end(taskSpan, error);
    throw error;
  }
}

/** Whether every participant's act of a round failed at the provider (no reply at all). */
function allActsFailed(failures: readonly DebateFailure[], participants: number): boolean {
  return (
    participants > 0 &&
    new Set(failures.filter((failure) => failure.kind === 'provider').map((failure) => failure.agentId)).size >=
      participants
  );
}
