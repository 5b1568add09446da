// The Propose round with a deadline, a quorum and circuit breakers: the team decides once `quorum`
// agents have answered or the deadline has passed, whichever comes first, without waiting for the
// rest. The calls still running are not aborted: their answers arrive later (`late`) and the caller
// records them for reputation (and the model middleware books their cost as usual). Agents whose
// circuit is open are not called at all. Shared by `repute serve` (a request's proposals) and any
// session that wants a round bounded in time.
import type { Agent } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import { abortableSleep } from '../../core/_abortable-sleep.js';
import { ignore } from '../../core/_race-abort.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import type { Tracer } from '../../core/trace.js';
import type { BreakerSkip, CircuitBreakers } from '../circuit-breaker.js';
import { type Guarded, guardAct } from './_act.js';
import type { RoundOutput } from './propose-step.js';
import type { Decision } from '../../aggregation/aggregator.js';
import type { Evidence } from '../../reputation/reputation-model.js';
import { consensusFeedback } from './feedback.js';
import type { DebateFailure, DebateUsageEntry } from './types.js';

/** When a round may end before every agent answered. */
export interface QuorumOptions {
  /** Answers (proposals with an answer) that are enough to decide, an integer ≥ 1; capped at the agents called. @default every agent called */
  readonly quorum?: number | undefined;
  /** Time after the round's start at which the team decides with the answers it has, in ms. @default none (no deadline) */
  readonly deadlineMs?: number | undefined;
}

/** An agent the round went without: its circuit was open, or it had not answered when the round ended. */
export type GatherSkip =
  | BreakerSkip
  | {
      readonly agentId: AgentId;
      /** `quorum`: enough others had answered first; `deadline`: the deadline passed first. */
      readonly reason: 'quorum' | 'deadline';
      /** Time from the round's start to its end, in ms (the agent had not answered by then). */
      readonly waitedMs: number;
    };

/** One agent's call settled within the round. */
export interface GatherProgress {
  readonly agentId: AgentId;
  /** Its answer key, `null` when the reply had none or the call failed. */
  readonly answer: string | null;
  /** True when the call failed. */
  readonly failed: boolean;
  /** Time from the round's start, in ms. */
  readonly elapsedMs: number;
  /** Answers (with an answer key) in so far, this one included. */
  readonly answered: number;
  /** Agents called in the round. */
  readonly called: number;
}

/** What a bounded Propose round produced. */
export interface GatheredRound extends RoundOutput {
  /** Agents left out, in team order: circuit open, or no answer yet when the round ended. */
  readonly skipped: readonly GatherSkip[];
  /** Why the round ended: `quorum`, `deadline`, or `all` (every called agent settled). */
  readonly endedBy: 'quorum' | 'deadline' | 'all';
  /**
   * The answers of agents still working when the round ended (`skipped` with reason `quorum` or
   * `deadline`), once all of them have settled; proposals and failures as in the round itself. Never rejects.
   */
  readonly late: Promise<RoundOutput>;
}

/** Checks {@link QuorumOptions} (at construction or at the entry point, before any call). */
export function checkQuorumOptions(options: QuorumOptions, field = ''): void {
  const { quorum, deadlineMs } = options;
  if (quorum !== undefined && (!Number.isInteger(quorum) || quorum < 1))
    throw new InvalidArgumentError({
      parameter: `${field}quorum`,
      value: quorum,
      message: `${field}quorum must be an integer ≥ 1 (answers enough to decide), got ${quorum}; e.g. quorum: 2`,
    });
  if (deadlineMs !== undefined && (!Number.isFinite(deadlineMs) || deadlineMs <= 0))
    throw new InvalidArgumentError({
      parameter: `${field}deadlineMs`,
      value: deadlineMs,
      message: `${field}deadlineMs must be a number of milliseconds > 0, got ${deadlineMs}; e.g. deadlineMs: 2000`,
    });
}

/**
 * The Propose round bounded by a quorum and a deadline. Every agent whose circuit admits a call
 * proposes at once; the round ends as soon as `quorum` proposals with an answer are in (after
 * `review`), or the deadline passes, or every call settled. Proposal events are traced for the
 * agents that settled within the round; each settled call is recorded on its agent's circuit
 * (a provider failure counts as a failure, any reply as a success), late ones too.
 *
 * @example
 * const round = await gatherStep({ agents, task, tracer, quorum: 2, deadlineMs: 1500, breakers });
 * round.late.then((late) => recordLate(late.proposals));
 */
export async function gatherStep({
  agents,
  task,
  tracer,
  signal,
  parentId = null,
  quorum,
  deadlineMs,
  breakers,
  review = (proposal) => proposal,
  now = Date.now,
  wait = abortableSleep,
  onSettled,
}: QuorumOptions & {
  agents: readonly Agent[];
  task: Task;
  tracer: Tracer;
  /** Aborts the round while it gathers (a client gone); once the round ended, late calls go on. */
  signal?: AbortSignal | undefined;
  parentId?: string | null;
  /** Circuits of the team's agents; omitted = every agent is called. */
  breakers?: CircuitBreakers | undefined;
  /** Checks a proposal before it counts (e.g. against a JSON Schema: no answer = no vote). @default unchanged */
  review?: (proposal: Proposal) => Proposal;
  /** Clock of `waitedMs`, in ms. @default Date.now */
  now?: () => number;
  /** Waits `ms` or rejects when the signal aborts (the deadline timer). @default a setTimeout sleep */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called when an agent's call settles within the round (not for late ones): progress for a client. @default none */
  onSettled?: ((settled: GatherProgress) => void) | undefined;
}): Promise<GatheredRound> {
  checkQuorumOptions({ quorum, deadlineMs });
  const startedAt = now();
  const skippedOpen: BreakerSkip[] = [];
  const called: Agent[] = [];
  for (const agent of agents) {
    const admission = breakers ? breakers.admit(agent.identity.id) : { admitted: true as const };
    if (admission.admitted) called.push(agent);
    else {
      const { admitted: _admitted, ...skip } = admission;
      skippedOpen.push(skip);
    }
  }
  const enough = Math.min(quorum ?? called.length, called.length);
  // The calls get a signal of their own: the caller's aborts them only while the round gathers.
  const calls = new AbortController();
  if (signal?.aborted) throw signal.reason;
  const timer = new AbortController();
  const settled: Array<{ result: Guarded<Proposal>; proposal: Proposal } | undefined> = called.map(() => undefined);
  let answered = 0;
  let pendingCount = called.length;
  let open = true;
  let finish: (endedBy: GatheredRound['endedBy']) => void = ignore;
  let fail: (error: unknown) => void = ignore;
  const ended = new Promise<GatheredRound['endedBy']>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const forward = () => {
    calls.abort(signal?.reason);
    fail(signal?.reason);
  };
  signal?.addEventListener('abort', forward, { once: true });
  const results = called.map((agent, index) =>
    guardAct(
      agent.identity.id,
      task.id,
      'propose',
      0,
      () => agent.propose({ task, signal: calls.signal }),
      calls.signal,
    ).then(
      (result) => {
        const proposal = proposalOf(result, agent.identity.id, task, review);
        settled[index] = { result, proposal };
        breakers?.record(agent.identity.id, result.ok || result.failure.kind !== 'provider' ? 'success' : 'failure');
        pendingCount -= 1;
        if (proposal.answer !== null) answered += 1;
        if (open)
          onSettled?.({
            agentId: agent.identity.id,
            answer: proposal.answer,
            failed: !result.ok,
            elapsedMs: now() - startedAt,
            answered,
            called: called.length,
          });
        if (pendingCount === 0) finish('all');
        else if (answered >= enough) finish('quorum');
        return { result, proposal };
      },
      (error: unknown) => {
        fail(error);
        throw error;
      },
    ),
  );
  if (called.length === 0) finish('all');
  if (deadlineMs !== undefined) wait(deadlineMs, timer.signal).then(() => finish('deadline'), ignore);
  let endedBy: GatheredRound['endedBy'];
  try {
    endedBy = await ended;
  } catch (error) {
    for (const result of results) result.catch(ignore);
    throw error;
  } finally {
    open = false;
    timer.abort();
    signal?.removeEventListener('abort', forward);
  }
  const endedAt = now();
  // A snapshot: calls that settle from here on are late.
  const within = [...settled];
  const round: RoundOutput = { proposals: [], usage: [], failures: [] };
  const skipped: GatherSkip[] = [];
  const lateIndexes: number[] = [];
  for (const agent of agents) {
    const index = called.indexOf(agent);
    const entry = index < 0 ? undefined : within[index];
    if (index < 0) {
      skipped.push(skippedOpen.find((skip) => skip.agentId === agent.identity.id) as BreakerSkip);
    } else if (entry === undefined) {
      lateIndexes.push(index);
      skipped.push({
        agentId: agent.identity.id,
        reason: endedBy === 'deadline' ? 'deadline' : 'quorum',
        waitedMs: endedAt - startedAt,
      });
    } else {
      addTo(round, entry);
      const span = tracer.start(
        { type: 'proposal', taskId: task.id, round: 0, agentId: agent.identity.id, answer: entry.proposal.answer },
        parentId,
      );
      tracer.end(span, entry.result.ok ? undefined : entry.result.failure.message);
    }
  }
  const late = Promise.all(
    lateIndexes.map((index) => (results[index] as Promise<(typeof within)[number]>).catch(() => undefined)),
  ).then((entries) => {
    const output: RoundOutput = { proposals: [], usage: [], failures: [] };
    for (const entry of entries) if (entry) addTo(output, entry);
    return output;
  });
  return { ...round, skipped, endedBy, late };
}

/** The proposal of a guarded result: identity fields normalised, a failed act as an unparseable proposal. */
function proposalOf(
  result: Guarded<Proposal>,
  agentId: AgentId,
  task: Task,
  review: (proposal: Proposal) => Proposal,
): Proposal {
  if (!result.ok)
    return { agentId, taskId: task.id, round: 0, text: `(act failed: ${result.failure.message})`, answer: null };
  return review({ ...result.value, agentId, taskId: task.id, round: 0 });
}

function addTo(
  output: { proposals: Proposal[]; usage: DebateUsageEntry[]; failures: DebateFailure[] },
  entry: { result: Guarded<Proposal>; proposal: Proposal },
): void {
  output.proposals.push(entry.proposal);
  if (entry.result.ok) output.usage.push(entry.result.usage);
  else output.failures.push(entry.result.failure);
}

/**
 * The evidence of answers that arrived after their task was decided (`GatheredRound.late`):
 * consensus feedback against the decision that was made without them (success when the answer is
 * the decided one), whatever the method's own feedback rule, since the decision cannot be redone.
 * Failed late calls count as no answer, as they do within the round.
 */
export function lateAnswerEvidence({
  task,
  decision,
  proposals,
}: {
  task: Task;
  decision: Decision;
  proposals: readonly Proposal[];
}): Evidence[] {
  return consensusFeedback({ task, decision, proposals, history: [], ratings: [] });
}
