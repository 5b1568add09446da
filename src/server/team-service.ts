// The team behind the OpenAI-compatible endpoint: one chat request becomes one task that the
// team's agents answer at once (fan-out), the team's method decides, and reputation is updated
// with the method's feedback (consensus by default) and persisted as a task of the `serve` run.
import { createHash, randomBytes } from 'node:crypto';
import type { Agent } from '../agents/agent.js';
import type { Verifier } from '../aggregation/verifier.js';
import type { AgentIdentity } from '../core/agent-identity.js';
import type { AnswerKind } from '../core/answers/answer-kind.js';
import { InvalidArgumentError, ProviderError } from '../core/errors.js';
import { createRng, deriveSeed } from '../core/rng.js';
import type { ChatTurn, ReplyFormat, SamplingSettings } from '../core/chat-request.js';
import type { Proposal } from '../core/proposal.js';
import type { Decision } from '../aggregation/aggregator.js';
import type { DebateFailure } from '../protocols/debate/types.js';
import type { EventInput } from '../store/store.js';
import {
  checkQuorumOptions,
  type GatherProgress,
  type GatherSkip,
  type GatheredRound,
  gatherStep,
  lateAnswerEvidence,
} from '../protocols/debate/gather-step.js';
import { type BreakerOptions, type CircuitBreakers, createCircuitBreakers } from '../protocols/circuit-breaker.js';
import type { Task } from '../core/task.js';
import { z } from 'zod';
import { concludeDebate, debateTaskRecord, gatherDebate } from '../protocols/debate/debate-task.js';
import {
  allDebateMethodNames,
  createDebateMethod,
  type DebateMethodName,
  defaultServeMethod,
  verifierOnlyDebateMethodNames,
} from '../protocols/debate/methods.js';
import { createTaskTracer } from '../protocols/session.js';
import type { ReputationModel } from '../core/reputation-model.js';
import { createLoggedReputation } from '../store/_logged-reputation.js';
import type { FoldOutcome } from '../store/shared-reputation.js';
import type { Store } from '../store/store.js';
import {
  gradeServedDecision,
  type ServedDecisionRecord,
  type ServedFeedbackInput,
  type ServedFeedbackResult,
  servedDecisionKey,
} from './served-feedback.js';

/** One chat message, as the OpenAI API sends it. */
export interface ChatMessage {
  readonly role: string;
  readonly content: string | ReadonlyArray<{ readonly type: string; readonly text?: string | undefined }> | null;
}

/** Why one agent got its weight in a served decision. */
export interface ServedWeight {
  readonly agentId: string;
  readonly weight: number;
  readonly components: Readonly<Record<string, number>>;
  readonly note: string | null;
  /** The agent's answer key, `null` when unparseable or when its call failed. */
  readonly answer: string | null;
  /**
   * The team's verifier's verdict on the proposal (probability of being correct, in [0, 1]), `null`
   * when it had no opinion or its call failed; absent when the team has no verifier.
   */
  readonly verdict?: number | null;
}

/** What the team answered to one request (the `repute` field of the response). */
export interface TeamAnswer {
  readonly schemaVersion: 1;
  readonly team: string;
  readonly method: string;
  readonly kind: AnswerKind;
  /** Id of the task stored for this request (a task of the serve run). */
  readonly taskId: string;
  readonly decision: { readonly answer: string | null; readonly support: Readonly<Record<string, number>> };
  readonly weights: readonly ServedWeight[];
  /** Agent whose proposal text is the reply, or `null` when no proposal had an answer. */
  readonly winner: string | null;
  /** The reply text: the winner's proposal. */
  readonly content: string;
  /** Agents whose call failed; the team decided without them. */
  readonly degraded: ReadonlyArray<{ readonly agentId: string; readonly message: string }>;
  /**
   * Agents the team decided without although their call did not fail (yet): `circuit-open` (not
   * called: it failed `failures` times in a row; probed again from `retryAt`, epoch ms), `quorum`
   * (enough others answered first) or `deadline` (the deadline passed first). The answers of the
   * last two are recorded for reputation when they arrive.
   */
  readonly skipped: readonly GatherSkip[];
  /** Agents that already gave evidence on this very request (a repeat): their reputation did not move. */
  readonly repeated: readonly string[];
  /** Scores after the update, in [0, 1]. */
  readonly reputation: Readonly<Record<string, number>>;
  /** Tokens of every call made for the request. */
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
}

/** One agent answered (or failed) while a request's team gathers answers. */
export interface TeamProgress extends GatherProgress {
  /** The request's task id. */
  readonly taskId: string;
}

/** The team a server answers for; the OpenAI-compatible endpoint fans requests out to it. */
export interface ServedTeam {
  /** Team key (`team:<name>` in `/v1/models`). */
  readonly name: string;
  /** The method that decides, e.g. `minirep`. */
  readonly method: string;
}

/** A team that answers chat requests. */
export interface TeamService extends ServedTeam {
  /** Default answer kind (the `x-repute-kind` header overrides it). */
  readonly kind: AnswerKind;
  /** Id of the run whose tasks are the served requests. */
  readonly runId: string;
  /** Grades a served decision once (later posts return the first grade) and updates reputation from it. */
  feedback(input: ServedFeedbackInput): ServedFeedbackResult;
  /** Resolves once the late answers of every request answered so far are recorded. */
  idle(): Promise<void>;
  /**
   * Folds the team's reputation log into its stored snapshot now (waiting up to `waitMs` for another
   * replica's fold lease to end); the status of the fold, or `undefined` for a method without reputation.
   */
  foldReputation?(waitMs?: number): Promise<FoldOutcome['status'] | undefined>;
  /** Answers one request; throws `ProviderError` when every agent failed. */
  answer(input: {
    messages: readonly ChatMessage[];
    kind?: AnswerKind;
    /** Forwarded to every agent's model. */
    sampling?: SamplingSettings;
    /** Asked of every agent; a JSON reply that does not match the schema gets no vote. */
    replyFormat?: ReplyFormat;
    /** This request's deadline in ms (the `x-repute-deadline-ms` header), in place of the team's. */
    deadlineMs?: number;
    /** Called as each agent's call settles before the decision (streamed progress). */
    onProgress?: (progress: TeamProgress) => void;
    signal?: AbortSignal;
    /**
     * The client's key for this request (the `Idempotency-Key` header): a request whose key the team
     * has already answered gets that answer back (`replayed: true`) with no new decision, on any
     * server of the team; the same key with a different request throws {@link InvalidArgumentError}.
     */
    idempotencyKey?: string;
  }): Promise<TeamAnswer & { readonly replayed?: true }>;
}

/** Options of {@link createTeamService}. */
export interface TeamServiceOptions {
  /** Team key: reputation persists under it (shared with `repute run` of the same team). */
  readonly name: string;
  /** The agents, one per member. */
  readonly agents: readonly Agent[];
  /** The store that keeps decisions and reputation. */
  readonly store: Store;
  /** The deciding method. @default defaultServeMethod ('minirep-rt-ic-es') */
  readonly method?: DebateMethodName;
  /** Answer kind of requests without `x-repute-kind`. @default 'exact' */
  readonly kind?: AnswerKind;
  /** Agents per task for methods that pick a pool (random-k, drf, minirep). @default min(7, team size) */
  readonly k?: number;
  /** Seed of selection draws (per-request RNGs derive from it and the task id). @default 2027 */
  readonly seed?: number;
  /** Id of the run that holds the served requests. @default {@link serveRunId} of the options with a fresh {@link serveInstanceId} */
  readonly runId?: string;
  /** Makes a unique task id per request. @default `chat-${crypto.randomUUID()}` */
  readonly generateId?: () => string;
  /** Clock of event timestamps, of the deadline's `waitedMs` and of the circuit breakers, in ms. @default Date.now */
  readonly now?: () => number;
  /**
   * Time after which a request is decided with the answers in, in ms (a request's
   * `x-repute-deadline-ms` overrides it); later answers are recorded for reputation when they
   * arrive. @default none (wait for every agent, or the quorum)
   */
  readonly deadlineMs?: number;
  /** Answers enough to decide without waiting for the rest, an integer ≥ 1. @default every agent called */
  readonly quorum?: number;
  /** Circuit breaker of each agent (skip an agent that keeps failing, probe it later); `false` turns it off. @default { failureThreshold: 3, cooldownMs: 30000 } */
  readonly breaker?: BreakerOptions | false;
  /**
   * Judges every proposal before the method decides (an LLM judge, unit tests in the sandbox): its
   * verdicts reach the aggregator, the `vote` event, the reputation feedback (verifier feedback) and
   * each weight's `verdict`. A judge call that fails leaves the request decided without verdicts
   * and listed in `degraded`. @default none
   */
  readonly verifier?: Verifier;
  /** Id the verifier's failures are listed under in `degraded`. @default `verifier` */
  readonly verifierId?: string;
  /** Appends of this server after which it tries to fold the team's reputation log (1: after each, so the stored snapshot the dashboard reads stays current while this server holds the fold lease). @default 1 */
  readonly foldEvery?: number;
}

/** Text of a message's content (text parts joined). */
function contentText(content: ChatMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

/** The turns of a conversation as the agents get them (`developer` as system, `tool` results as user turns). */
export function conversationOf(messages: readonly ChatMessage[]): ChatTurn[] {
  return messages.map((message) => {
    const content = contentText(message.content);
    if (message.role === 'system' || message.role === 'developer') return { role: 'system', content };
    if (message.role === 'assistant') return { role: 'assistant', content };
    return { role: 'user', content: message.role === 'tool' ? `(tool result) ${content}` : content };
  });
}

/**
 * The check of a proposal under a JSON Schema reply format: a reply that does not match the schema
 * keeps its text but loses its answer, so it gets no vote and is never the reply sent.
 */
function schemaCheck(format: ReplyFormat | undefined): (proposal: Proposal) => Proposal {
  if (format?.type !== 'json' || format.schema === undefined) return (proposal) => proposal;
  const schema = z.fromJSONSchema(format.schema as Parameters<typeof z.fromJSONSchema>[0]);
  return (proposal) => {
    if (proposal.answer === null) return proposal;
    let value: unknown;
    try {
      value = JSON.parse(proposal.text);
    } catch {
      return { ...proposal, answer: null };
    }
    return schema.safeParse(value).success ? proposal : { ...proposal, answer: null };
  };
}

/** The task prompt of a conversation: a lone user message as is, else every message with its role. */
export function promptOf(messages: readonly ChatMessage[]): string {
  if (messages.length === 1 && messages[0]?.role === 'user') return contentText(messages[0].content);
  return messages.map((message) => `${message.role}: ${contentText(message.content)}`).join('\n\n');
}

/**
 * Creates the team service of `repute serve`'s `/v1/chat/completions`. Agents are called at once
 * (one Propose round, so a request takes about as long as its slowest agent), then, in one
 * IMMEDIATE store transaction, the team's saved reputation is read, the method decides, the
 * feedback updates reputation and the task, its events and the new reputation are written. The
 * read-modify-write is therefore serialised: concurrent requests (and other processes writing
 * the same team) never lose an update.
 *
 * @example
 * const team = createTeamService({ name: 'local-team', agents, store });
 * const answer = await team.answer({ messages: [{ role: 'user', content: 'What is 2 + 2?' }], kind: 'number' });
 */
export function createTeamService(options: TeamServiceOptions): TeamService {
  const { name, agents, store, method = defaultServeMethod, kind = 'exact', seed = 2027, now = Date.now } = options;
  if (!allDebateMethodNames.includes(method)) {
    throw new InvalidArgumentError({
      parameter: 'method',
      value: method,
      message: `method must be one of ${allDebateMethodNames.join(', ')}, got ${JSON.stringify(method)}`,
    });
  }
  if (verifierOnlyDebateMethodNames.includes(method) && options.verifier === undefined)
    throw new InvalidArgumentError({
      parameter: 'verifier',
      value: undefined,
      message: `method ${method} needs a verifier; pass createTeamService({ ..., verifier }) (a team file's verifier section) or serve another method`,
    });
  if (agents.length === 0)
    throw new InvalidArgumentError({
      parameter: 'agents',
      value: agents,
      message: 'a served team needs at least one agent',
    });
  const generateId = options.generateId ?? (() => `chat-${crypto.randomUUID()}`);
  const { quorum } = options;
  checkQuorumOptions({ quorum, deadlineMs: options.deadlineMs });
  const breakers: CircuitBreakers | undefined =
    options.breaker === false ? undefined : createCircuitBreakers({ now, ...options.breaker });
  // Late answers being recorded (idle() waits for them).
  const lateWork = new Set<Promise<void>>();
  const identities: AgentIdentity[] = agents.map((agent) => agent.identity);
  const agentIds = identities.map((identity) => identity.id);
  const k = options.k;
  const config = { team: name, method, agents: agentIds, k: k ?? null, seed };
  const runId =
    options.runId ??
    serveRunId({
      name,
      method,
      agents: agentIds,
      ...(k === undefined ? {} : { k }),
      seed,
      instance: serveInstanceId(now()),
    });
  store.ensureRun({ id: runId, kind: 'serve', team: name, config });
  store.saveTeam(name, identities);
  const calibration = options.verifier?.calibration;
  const fresh = () =>
    createDebateMethod(method, {
      agents: identities,
      ...(k === undefined ? {} : { k }),
      ...(calibration === undefined ? {} : { verifierCalibration: calibration }),
    });
  const deciding = fresh();
  // Only methods with a selector (random-k, drf) need reputation before the fan-out.
  const selecting = deciding.selector ? fresh() : deciding;
  // The team's reputation is its shared log (docs/scaling.md): every replica's decisions and
  // feedback are appended to it with idempotency keys, and each decision reads its latest state.
  const onLog = (model: ReputationModel | undefined) =>
    model === undefined
      ? undefined
      : createLoggedReputation({
          store,
          team: name,
          name: method,
          runId,
          start: 'team',
          model,
          create: () => fresh().reputation as ReputationModel,
          foldEvery: options.foldEvery ?? 1,
        });
  const logged = onLog(deciding.reputation);
  const selectingLog = selecting === deciding ? logged : onLog(selecting.reputation);

  /** The answer the team gave earlier under `key`, or `undefined`; throws when `key` named another request. */
  function answeredBefore(key: string, fingerprint: string): (TeamAnswer & { readonly replayed: true }) | undefined {
    const record = store.getCachedResponse(idempotencyStoreKey(name, key)) as IdempotentAnswerRecord | undefined;
    if (record === undefined) return undefined;
    if (record.fingerprint !== fingerprint)
      throw new InvalidArgumentError({
        parameter: 'header.idempotency-key',
        value: key,
        message: `Idempotency-Key ${JSON.stringify(key)} was already used by a different request to team ${name} (task ${record.answer.taskId}); send a new key for a new request, or the same request to get its answer again`,
      });
    return { ...record.answer, replayed: true };
  }

  return {
    name,
    method,
    kind,
    runId,
    feedback: (input) => {
      const result = gradeServedDecision({ store, team: name, method, logged, input });
      if (result.applied) logged?.written();
      return result;
    },
    async idle() {
      while (lateWork.size > 0) await Promise.all([...lateWork]);
    },
    async foldReputation(waitMs = 0) {
      return logged === undefined ? undefined : (await logged.foldWaiting(waitMs)).status;
    },
    async answer({
      messages,
      kind: requestKind = kind,
      sampling,
      replyFormat,
      deadlineMs = options.deadlineMs,
      onProgress,
      signal,
      idempotencyKey,
    }) {
      checkQuorumOptions({ deadlineMs });

      const request = {
        kind: requestKind,
        prompt: promptOf(messages),
        conversation: conversationOf(messages),
        ...(sampling === undefined ? {} : { sampling }),
        ...(replyFormat === undefined ? {} : { replyFormat }),
      };
      const fingerprint = requestFingerprint(request);
      const answered = idempotencyKey === undefined ? undefined : () => answeredBefore(idempotencyKey, fingerprint);
      const before = answered?.();
      if (before !== undefined) return before;
      const taskId = generateId();
      const task: Task = { id: taskId, ...request };
      const { tracer, events } = createTaskTracer({ method, taskId, now });
      const taskSpan = tracer.start({ type: 'task', taskId });
      // Selection reads the last committed reputation; the decision re-reads it under the lock.
      const selector = selecting.selector;
      if (selector) selectingLog?.sync();
      let round: GatheredRound | undefined;
      // The debate's own steps, with no debate round: the agents' first answers decide.
      const gathered = await gatherDebate({
        team: agents,
        task,
        rounds: 0,
        selector,
        k: selecting.k ?? identities.length,
        scores: selector ? (selecting.reputation?.scores() ?? {}) : {},
        ratings: selecting.ratings ?? false,
        rng: selector ? createRng(deriveSeed(seed, 'serve', method, taskId)) : unusedRng,
        tracer,
        signal,
        parentId: taskSpan.id,
        // The verifier judges outside the store transaction (its calls may take seconds).
        verifier: options.verifier,
        verifierId: options.verifierId,
        // The Propose round, bounded by the quorum and the deadline; agents whose circuit is open are skipped.
        propose: async (input) => {
          round = await gatherStep({
            ...input,
            quorum,
            deadlineMs,
            breakers,
            review: schemaCheck(replyFormat),
            now,
            onSettled: onProgress && ((progress) => onProgress({ ...progress, taskId })),
          });
          return round;
        },
        checkProposed: (proposed) => {
          if (proposed.failures.length === proposed.proposals.length)
            throw new ProviderError({
              provider: `team:${name}`,
              attempts: proposed.proposals.length,
              message: noAnswerMessage(name, proposed.failures, round?.skipped ?? [], deadlineMs),
            });
          return proposed;
        },
      });
      const { participants } = gathered;
      // Set by `propose`: gatherDebate always runs the Propose round.
      const gatheredRound = round as GatheredRound | undefined;
      if (gatheredRound === undefined) throw new Error('internal: the Propose round of a served request did not run');
      const proposals = gathered.rounds[0] as readonly Proposal[];

      const served = store.transaction(() => {
        // Another server of the team answered the same key while this one gathered: its answer
        // stands, and this request's proposals decide nothing.
        const meanwhile = answered?.();
        if (meanwhile !== undefined) return meanwhile;
        // One long-lived method (its aggregator keeps state across tasks, as in a `repute run`
        // session); its reputation is brought to the log's latest state inside the transaction.
        logged?.sync();
        const reputation = logged?.model;
        // One outcome per distinct task and agent: an agent that already gave evidence on this very
        // request (same kind, conversation, sampling settings and reply format; a repeat, typically
        // served from the cache) gives none again. Recorded in the store, so it holds across
        // restarts and across servers of the team.
        const evidenceFrom = new Set(
          proposals
            .filter((proposal) =>
              store.putCachedResponse({
                key: evidenceKey(name, method, fingerprint, proposal.agentId),
                value: { schemaVersion: 1, taskId },
              }),
            )
            .map((proposal) => proposal.agentId),
        );
        const result = concludeDebate(gathered, {
          aggregator: deciding.aggregator,
          reputation,
          feedback: deciding.feedback,
          evidenceFrom,
          tracer,
          parentId: taskSpan.id,
        });
        const { decision, failures, usage } = result;
        const verdicts = gathered.verdicts?.verdicts;
        const repeated = participants.map((agent) => agent.identity.id).filter((id) => !evidenceFrom.has(id));
        tracer.end(taskSpan);
        const reasons = new Map(decision.reasons.map((reason) => [reason.agentId, reason]));
        const record = debateTaskRecord(result);
        const { answers } = record;
        const winner =
          decision.answer === null
            ? undefined
            : proposals
                .filter((proposal) => proposal.answer === decision.answer)
                .sort(
                  (left, right) => (reasons.get(right.agentId)?.weight ?? 0) - (reasons.get(left.agentId)?.weight ?? 0),
                )[0];
        store.recordTaskResult({
          runId,
          method,
          taskId,
          result: record,
          events: logged ? logged.stamp(events()) : events(),
          reputationEvents: logged?.events(taskId) ?? [],
        });
        // Kept for a later grade (POST /v1/feedback).
        store.putCachedResponse({
          key: servedDecisionKey(name, taskId),
          value: {
            schemaVersion: 1,
            runId,
            method,
            kind: requestKind,
            decided: decision.answer,
            answers,
          } satisfies ServedDecisionRecord,
        });
        const teamAnswer = {
          schemaVersion: 1 as const,
          team: name,
          method,
          kind: requestKind,
          taskId,
          decision: { answer: decision.answer, support: decision.support },
          weights: participants.map(({ identity }) => {
            const reason = reasons.get(identity.id);
            return {
              agentId: identity.id,
              weight: reason?.weight ?? 0,
              components: reason?.components ?? {},
              note: reason?.note ?? null,
              answer: answers[identity.id] ?? null,
              ...(options.verifier === undefined
                ? {}
                : {
                    verdict:
                      verdicts !== undefined && Object.hasOwn(verdicts, identity.id)
                        ? (verdicts[identity.id] ?? null)
                        : null,
                  }),
            };
          }),
          winner: winner?.agentId ?? null,
          content: winner?.text ?? '',
          degraded: failures.map((failure) => ({ agentId: failure.agentId, message: failure.message })),
          skipped: gatheredRound.skipped,
          repeated,
          reputation: result.reputationAfter,
          usage: {
            inputTokens: usage.reduce((sum, entry) => sum + entry.inputTokens, 0),
            outputTokens: usage.reduce((sum, entry) => sum + entry.outputTokens, 0),
          },
        };
        if (idempotencyKey !== undefined)
          store.putCachedResponse({
            key: idempotencyStoreKey(name, idempotencyKey),
            value: { schemaVersion: 1, fingerprint, answer: teamAnswer } satisfies IdempotentAnswerRecord,
          });
        return { ...teamAnswer, decided: decision };
      });
      if ('replayed' in served) return served;
      logged?.written();
      const { decided, ...answer } = served;
      if (gatheredRound.skipped.some((skip) => skip.reason !== 'circuit-open')) {
        const work = gatheredRound.late
          .then((late) => recordLate({ task, fingerprint, decision: decided, late }))
          .catch((error: unknown) =>
            process.emitWarning(
              `team ${name}: late answers of ${taskId} not recorded (${error instanceof Error ? error.message : String(error)})`,
            ),
          )
          .finally(() => lateWork.delete(work));
        lateWork.add(work);
      }
      return answer;
    },
  };

  /**
   * Records the answers that came after a request was decided: each is a proposal event of the
   * task (`late: true`) and, once per distinct request and agent like any evidence, consensus
   * evidence against the decision (agreed with it or not), in one transaction.
   */
  function recordLate({
    task,
    fingerprint,
    decision,
    late,
  }: {
    task: Task;
    fingerprint: string;
    decision: Decision;
    late: Awaited<GatheredRound['late']>;
  }): void {
    if (late.proposals.length === 0) return;
    store.transaction(() => {
      const at = now();
      const events: EventInput[] = late.proposals.map((proposal) => ({
        data: {
          type: 'proposal',
          taskId: task.id,
          round: 0,
          agentId: proposal.agentId,
          answer: proposal.answer,
          late: true,
        },
        method,
        taskId: task.id,
        startedAt: at,
        endedAt: at,
        error: late.failures.find((failure) => failure.agentId === proposal.agentId)?.message ?? null,
      }));
      const counted = late.proposals.filter((proposal) =>
        store.putCachedResponse({
          key: evidenceKey(name, method, fingerprint, proposal.agentId),
          value: { schemaVersion: 1, taskId: task.id },
        }),
      );
      if (logged && counted.length > 0) {
        const readVersion = logged.sync();
        const before = logged.model.scores();
        logged.model.observe(lateAnswerEvidence({ task, decision, proposals: counted }));
        const after = logged.model.scores();
        for (const event of logged.events(task.id, `${runId}/${method}/${task.id}/late`))
          store.appendReputationEvent(event);
        events.push({
          data: { type: 'reputation-update', taskId: task.id, before, after, readVersion },
          method,
          taskId: task.id,
        });
      }
      store.appendEvents(runId, events);
    });
    logged?.written();
  }
}

/** Why a request got no answer at all: every agent failed, was skipped (circuit open), or was too slow. */
function noAnswerMessage(
  team: string,
  failures: readonly DebateFailure[],
  skipped: readonly GatherSkip[],
  deadlineMs: number | undefined,
): string {
  const parts = [
    ...failures.map((failure) => `${failure.agentId}: ${failure.message}`),
    ...skipped.map((skip) =>
      skip.reason === 'circuit-open'
        ? `${skip.agentId}: skipped, circuit open after ${skip.failures} failures in a row, probed again at ${new Date(skip.retryAt).toISOString()}`
        : `${skip.agentId}: no answer within the deadline of ${deadlineMs} ms`,
    ),
  ];
  const what = skipped.some((skip) => skip.reason === 'deadline')
    ? `no agent of team ${team} answered in time`
    : `every agent of team ${team} failed`;
  return `${what} (${parts.join('; ')}); check the agents' endpoints${skipped.some((skip) => skip.reason === 'deadline') ? ' or raise the deadline' : ''}`;
}

/**
 * The run id of a served team: `serve-<team>-<hash of method, agents, k and seed>-<instance>`, so a
 * changed team starts a new run, and each serve process (its own `instance`) has a run of its own:
 * two servers on one team never overwrite each other's run status. Reputation is the team's, shared.
 */
export function serveRunId({
  name,
  method = defaultServeMethod,
  agents,
  k,
  seed = 2027,
  instance,
}: {
  name: string;
  method?: string;
  agents: readonly string[];
  k?: number;
  seed?: number;
  /** Tells this process's run from other processes serving the same team, e.g. {@link serveInstanceId}. */
  instance: string;
}): string {
  const config = { team: name, method, agents, k: k ?? null, seed };
  return `serve-${name}-${createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 8)}-${instance}`;
}

/** A fresh instance id for {@link serveRunId}: the start time (UTC, to the second) and 6 random hex digits. */
export function serveInstanceId(now: number = Date.now()): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/** SHA-256 of what makes two requests the same task for reputation: kind, conversation, sampling settings, reply format. */
/** What the team keeps of an answer given under an idempotency key. */
interface IdempotentAnswerRecord {
  readonly schemaVersion: 1;
  /** {@link requestFingerprint} of the request that was answered. */
  readonly fingerprint: string;
  readonly answer: TeamAnswer;
}

/** The store key of a team's answer to the client's idempotency key (the fault run reads it back). */
export function idempotencyStoreKey(team: string, key: string): string {
  return `repute-idempotency:v1:${JSON.stringify([team, key])}`;
}

function requestFingerprint(task: Omit<Task, 'id'>): string {
  const canonical = JSON.stringify({
    kind: task.kind,
    conversation: task.conversation ?? task.prompt,
    sampling:
      task.sampling === undefined
        ? null
        : Object.entries(task.sampling).sort(([left], [right]) => left.localeCompare(right)),
    replyFormat: task.replyFormat ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/** The store key that records an agent's evidence on one request of a team's method. */
function evidenceKey(team: string, method: string, fingerprint: string, agentId: string): string {
  return `repute-evidence:v1:${createHash('sha256')
    .update(JSON.stringify([team, method, fingerprint, agentId]))
    .digest('hex')}`;
}

/** Everyone takes part without a selector, so nothing draws from this. */
const unusedRng = (): number => 0;
