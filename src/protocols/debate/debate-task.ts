// The debate's per-task steps, shared by every host of a debate: `runDebate` (and through it the
// debate session of `repute run`) and the served team of `repute serve`. `gatherDebate` runs the
// acts (select, Propose, debate rounds, ratings); `concludeDebate` decides and updates reputation.
// They are two functions because a server reads the team's latest reputation between them, under
// its store's lock.
import type { Agent } from '../../agents/agent.js';
import type { Aggregator } from '../../aggregation/aggregator.js';
import { verifyProposals, type Verdicts, type Verifier } from '../../aggregation/verifier.js';
import type { AgentId } from '../../core/agent-identity.js';
import { NotFoundError, ProviderError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import type { Rating } from '../../core/rating.js';
import type { Rng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import type { Tracer } from '../../core/trace.js';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import type { Selection, Selector } from '../../selection/selector.js';
import { providerFailure } from './_act.js';
import { decideStep } from './decide-step.js';
import { consensusFeedback } from './feedback.js';
import type { PeerFilter } from './peer-filter.js';
import { proposeStep, type RoundOutput } from './propose-step.js';
import { rateStep } from './rate-step.js';
import { reviseStep } from './revise-step.js';
import { selectParticipants } from './select-participants.js';
import type { DebateFailure, DebateResult, DebateTaskRecord, DebateUsageEntry, Feedback } from './types.js';
import { updateReputationStep } from './update-reputation-step.js';

/** What {@link gatherDebate} takes (checked by its caller: unique agent ids, k and rounds in range). */
export interface GatherDebateInput {
  /** The pool of agents (unique ids). */
  readonly team: readonly Agent[];
  readonly task: Task;
  /** Debate rounds after Propose, in [0, 20]. */
  readonly rounds: number;
  /** Picks participants. @default none (everyone takes part) */
  readonly selector?: Selector | undefined;
  /** Team size handed to the selector, in [1, team size]. */
  readonly k: number;
  /** Scores the selector reads (and the selection event shows). */
  readonly scores: Readonly<Record<AgentId, number>>;
  /** Ask every participant to rate every other final proposal. */
  readonly ratings: boolean;
  /** Screens whose proposals peers see in debate rounds. @default everyone's */
  readonly peerFilter?: PeerFilter | undefined;
  /** Randomness for the selector. */
  readonly rng: Rng;
  readonly tracer: Tracer;
  /** Aborts every pending act, and the debate between its steps. @default none */
  readonly signal?: AbortSignal | undefined;
  /** The task's span: parent of every event of the steps. */
  readonly parentId: string | null;
  /**
   * Judges every proposal of the last round (an LLM judge, unit tests in the sandbox) once the acts
   * are in; its verdicts reach the aggregator, the `vote` event and the reputation feedback. A judge
   * call that fails after its retries is one of the debate's failures (a session stores the task as
   * failed and a rerun redoes it; a server lists it in `degraded`), and the decision is made without
   * verdicts. @default none
   */
  readonly verifier?: Verifier | undefined;
  /** Agent id the verifier's failures are booked under (its ledger id). @default `verifier` */
  readonly verifierId?: string | undefined;
  /**
   * Checks the Propose round before anything else runs and returns the round to go on with (a
   * host's rule: a reply format that voids some answers, a refusal when every agent failed; it may
   * throw). @default the round as it is
   */
  readonly checkProposed?: ((proposed: RoundOutput) => RoundOutput) | undefined;
  /**
   * Runs the Propose round: e.g. `gatherStep`, which decides at a quorum or a deadline and skips
   * agents whose circuit is open (the round's proposals may then leave some participants out).
   * @default proposeStep (every participant at once, waiting for all)
   */
  readonly propose?:
    | ((input: {
        readonly agents: readonly Agent[];
        readonly task: Task;
        readonly tracer: Tracer;
        readonly signal: AbortSignal | undefined;
        readonly parentId: string | null;
      }) => Promise<RoundOutput>)
    | undefined;
}

/** What the acts of one debate task produced, before the decision. */
export interface GatheredDebate {
  readonly task: Task;
  readonly selection: Selection;
  /** The selected agents, in selection order. */
  readonly participants: readonly Agent[];
  /** Proposals per round: `rounds[0]` is Propose, `rounds[r]` debate round r. */
  readonly rounds: readonly (readonly Proposal[])[];
  readonly ratings: readonly Rating[];
  readonly usage: readonly DebateUsageEntry[];
  readonly failures: readonly DebateFailure[];
  /** The verifier's name and its verdicts on the last round's proposals; absent without a verifier. */
  readonly verdicts?: { readonly verifier: string; readonly verdicts: Verdicts };
}

/**
 * Steps 1–3 of a debate task: selects the participants, has them propose, runs the debate rounds
 * (stopping early when every act of a round failed at the provider) and collects peer ratings when
 * asked. Every independent call of a round is issued at once. Writes the steps' events under
 * `parentId`.
 */
export async function gatherDebate(input: GatherDebateInput): Promise<GatheredDebate> {
  const { team, task, rounds, selector, k, scores, ratings, peerFilter, rng, tracer, signal, parentId } = input;
  const byId = new Map(team.map((agent) => [agent.identity.id, agent]));
  const selection = selectParticipants({
    pool: team.map((agent) => agent.identity),
    reputation: scores,
    ...(selector ? { selector } : {}),
    k,
    rng,
    tracer,
    taskId: task.id,
    parentId,
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

  const raw = input.propose
    ? await input.propose({ agents: participants, task, tracer, signal, parentId })
    : await proposeStep({ agents: participants, task, tracer, ...(signal ? { signal } : {}), parentId });
  const proposed = input.checkProposed ? input.checkProposed(raw) : raw;
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
        parentId,
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
      parentId,
    });
    roundsOut.push(revised.proposals);
    usage.push(...revised.usage);
    failures.push(...revised.failures);
    allFailed = allActsFailed(revised.failures, participants.length);
    signal?.throwIfAborted();
  }

  // Agents the Propose round left out (a quorum or deadline, an open circuit) do not rate.
  const proposers = new Set(roundsOut.at(-1)?.map((proposal) => proposal.agentId));
  const raters = participants.filter((agent) => proposers.has(agent.identity.id));
  const rated =
    ratings && raters.length > 1 && !allFailed
      ? await rateStep({
          agents: raters,
          task,
          proposals: roundsOut.at(-1) as Proposal[],
          tracer,
          ...(signal ? { signal } : {}),
          parentId,
        })
      : { ratings: [], usage: [], failures: [] };
  usage.push(...rated.usage);
  failures.push(...rated.failures);
  // Aborted during the last acts: judge nothing.
  signal?.throwIfAborted();

  const gathered = { task, selection, participants, rounds: roundsOut, ratings: rated.ratings, usage, failures };
  const { verifier } = input;
  if (verifier === undefined) return gathered;
  let verdicts: Verdicts = {};
  if (!allFailed) {
    try {
      verdicts = await verifyProposals({ verifier, task, proposals: roundsOut.at(-1) as Proposal[] });
    } catch (error) {
      if (signal?.aborted || !(error instanceof ProviderError)) throw error;
      failures.push(providerFailure(input.verifierId ?? 'verifier', 'verify', roundsOut.length - 1, error));
    }
    signal?.throwIfAborted();
  }
  return { ...gathered, verdicts: { verifier: verifier.name, verdicts } };
}

/** What {@link concludeDebate} takes besides the gathered acts. */
export interface ConcludeDebateInput {
  /** Decides the answer. */
  readonly aggregator: Aggregator;
  /** Weights votes and learns from feedback. @default none (equal weights, no learning) */
  readonly reputation?: ReputationModel | undefined;
  /** Turns the decision into evidence. @default consensusFeedback */
  readonly feedback?: Feedback | undefined;
  /**
   * Agents whose proposals and ratings count as evidence (a server leaves out agents that already
   * gave evidence on the same request); none at all leaves reputation unchanged and writes no
   * update event. @default every participant
   */
  readonly evidenceFrom?: ReadonlySet<AgentId> | undefined;
  readonly tracer: Tracer;
  /** The task's span. */
  readonly parentId: string | null;
}

/**
 * Steps 4–5 of a debate task: the aggregator decides on the last round's proposals with the
 * reputation model's weights, and the feedback's evidence updates the model. Returns the whole
 * debate's result.
 */
export function concludeDebate(gathered: GatheredDebate, input: ConcludeDebateInput): DebateResult {
  const { aggregator, reputation, feedback = consensusFeedback, evidenceFrom, tracer, parentId } = input;
  const { task, selection, participants, rounds } = gathered;
  const final = rounds.at(-1) as readonly Proposal[];
  const history = rounds.slice(0, -1).flat();
  const weights = reputation ? reputation.weights(selection.selected) : undefined;
  const decision = decideStep({
    task,
    proposals: final,
    history,
    agents: participants.map((agent) => agent.identity),
    ...(weights ? { weights } : {}),
    ...(gathered.verdicts === undefined ? {} : { verdicts: gathered.verdicts }),
    aggregator,
    tracer,
    parentId,
  });
  const counts = (agentId: AgentId): boolean => evidenceFrom === undefined || evidenceFrom.has(agentId);
  const updated =
    reputation && (evidenceFrom === undefined || evidenceFrom.size > 0)
      ? updateReputationStep({
          reputation,
          feedback,
          input: {
            task,
            decision,
            proposals: final.filter((proposal) => counts(proposal.agentId)),
            history: history.filter((proposal) => counts(proposal.agentId)),
            ratings: gathered.ratings.filter((rating) => counts(rating.rater)),
            ...(gathered.verdicts === undefined ? {} : { verdicts: gathered.verdicts.verdicts }),
          },
          tracer,
          parentId,
        })
      : { before: reputation?.scores() ?? {}, after: reputation?.scores() ?? {} };
  return {
    schemaVersion: 1,
    taskId: task.id,
    participants: selection.selected,
    excluded: selection.excluded,
    rounds,
    ratings: gathered.ratings,
    decision,
    reputationBefore: updated.before,
    reputationAfter: updated.after,
    usage: gathered.usage,
    failures: gathered.failures,
  };
}

/** What a debate session (and a served team) stores of a finished task; graded by `grade` when given. */
export function debateTaskRecord(result: DebateResult, correct: boolean | null = null): DebateTaskRecord {
  const final = result.rounds.at(-1) ?? [];
  return {
    schemaVersion: 1,
    taskId: result.taskId,
    answer: result.decision.answer,
    correct,
    participants: result.participants,
    excluded: result.excluded,
    answers: Object.fromEntries(final.map((proposal) => [proposal.agentId, proposal.answer])),
    support: result.decision.support,
    reputation: result.reputationAfter,
    failures: result.failures.length,
  };
}

/** Whether every participant's act of a round failed at the provider (no reply at all). */
function allActsFailed(failures: readonly DebateFailure[], participants: number): boolean {
  return (
    participants > 0 &&
    new Set(failures.filter((failure) => failure.kind === 'provider').map((failure) => failure.agentId)).size >=
      participants
  );
}
