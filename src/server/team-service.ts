// The team behind the OpenAI-compatible endpoint: one chat request becomes one task that the
// team's agents answer at once (fan-out), the team's method decides, and reputation is updated
// with the method's feedback (consensus by default) and persisted as a task of the `serve` run.
import { createHash, randomBytes } from 'node:crypto';
import type { Agent } from '../agents/agent.js';
import { verifyProposals, type Verdicts, type Verifier } from '../aggregation/verifier.js';
import type { AgentIdentity } from '../core/agent-identity.js';
import type { AnswerKind } from '../core/answers/answer-kind.js';
import { InvalidArgumentError, ProviderError } from '../core/errors.js';
import { createRng, deriveSeed } from '../core/rng.js';
import type { ChatTurn, ReplyFormat, SamplingSettings } from '../core/chat-request.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import { z } from 'zod';
import { consensusFeedback } from '../protocols/debate/feedback.js';
import {
  allDebateMethodNames,
  createDebateMethod,
  type DebateMethodName,
  verifierOnlyDebateMethodNames,
} from '../protocols/debate/methods.js';
import { proposeStep } from '../protocols/debate/propose-step.js';
import { rateStep } from '../protocols/debate/rate-step.js';
import { decideStep } from '../protocols/debate/decide-step.js';
import { selectParticipants } from '../protocols/debate/select-participants.js';
import { updateReputationStep } from '../protocols/debate/update-reputation-step.js';
import type { DebateTaskRecord } from '../protocols/debate/run-debate-session.js';
import { createTaskTracer, restoreSnapshot } from '../protocols/session.js';
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
  /** Agents that already gave evidence on this very request (a repeat): their reputation did not move. */
  readonly repeated: readonly string[];
  /** Scores after the update, in [0, 1]. */
  readonly reputation: Readonly<Record<string, number>>;
  /** Tokens of every call made for the request. */
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
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
  /** Answers one request; throws `ProviderError` when every agent failed. */
  answer(input: {
    messages: readonly ChatMessage[];
    kind?: AnswerKind;
    /** Forwarded to every agent's model. */
    sampling?: SamplingSettings;
    /** Asked of every agent; a JSON reply that does not match the schema gets no vote. */
    replyFormat?: ReplyFormat;
    signal?: AbortSignal;
  }): Promise<TeamAnswer>;
}

/** Options of {@link createTeamService}. */
export interface TeamServiceOptions {
  /** Team key: reputation persists under it (shared with `repute run` of the same team). */
  readonly name: string;
  /** The agents, one per member. */
  readonly agents: readonly Agent[];
  /** The store that keeps decisions and reputation. */
  readonly store: Store;
  /** The deciding method. @default 'minirep' */
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
  /** Clock of event timestamps, in ms. @default Date.now */
  readonly now?: () => number;
  /**
   * Judges every proposal before the method decides (an LLM judge, unit tests in the sandbox): its
   * verdicts reach the aggregator, the `vote` event, the reputation feedback (verifier feedback) and
   * each weight's `verdict`. A judge call that fails leaves the request decided without verdicts
   * and listed in `degraded`. @default none
   */
  readonly verifier?: Verifier;
  /** Id the verifier's failures are listed under in `degraded`. @default `verifier` */
  readonly verifierId?: string;
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
 * Proposals under a JSON Schema reply format: a reply that does not match the schema keeps its
 * text but loses its answer, so it gets no vote and is never the reply sent.
 */
function withSchemaChecked(proposals: readonly Proposal[], format: ReplyFormat | undefined): Proposal[] {
  if (format?.type !== 'json' || format.schema === undefined) return [...proposals];
  const schema = z.fromJSONSchema(format.schema as Parameters<typeof z.fromJSONSchema>[0]);
  return proposals.map((proposal) => {
    if (proposal.answer === null) return proposal;
    let value: unknown;
    try {
      value = JSON.parse(proposal.text);
    } catch {
      return { ...proposal, answer: null };
    }
    return schema.safeParse(value).success ? proposal : { ...proposal, answer: null };
  });
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
  const { name, agents, store, method = 'minirep', kind = 'exact', seed = 2027, now = Date.now } = options;
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
  const fresh = () => createDebateMethod(method, { agents: identities, ...(k === undefined ? {} : { k }) });
  const deciding = fresh();
  // Only methods with a selector (random-k, drf) need reputation before the fan-out.
  const selecting = deciding.selector ? fresh() : deciding;

  return {
    name,
    method,
    kind,
    runId,
    feedback: (input) => gradeServedDecision({ store, team: name, reputation: deciding.reputation, agentIds, input }),
    async answer({ messages, kind: requestKind = kind, sampling, replyFormat, signal }) {
      const taskId = generateId();
      const task: Task = {
        id: taskId,
        kind: requestKind,
        prompt: promptOf(messages),
        conversation: conversationOf(messages),
        ...(sampling === undefined ? {} : { sampling }),
        ...(replyFormat === undefined ? {} : { replyFormat }),
      };
      const { tracer, events } = createTaskTracer({ method, taskId, now });
      const taskSpan = tracer.start({ type: 'task', taskId });
      const fingerprint = requestFingerprint(task);
      // Selection reads the last committed reputation; the decision re-reads it under the lock.
      const selector = selecting.selector;
      if (selector && selecting.reputation)
        restoreSnapshot(selecting.reputation, store.loadReputation({ scope: { team: name }, name: method }), agentIds);
      const selection = selectParticipants({
        pool: identities,
        reputation: selector ? (selecting.reputation?.scores() ?? {}) : {},
        ...(selector ? { selector } : {}),
        k: selecting.k ?? identities.length,
        rng: selector ? createRng(deriveSeed(seed, 'serve', method, taskId)) : unusedRng,
        tracer,
        taskId,
        parentId: taskSpan.id,
      });
      const byId = new Map(agents.map((agent) => [agent.identity.id, agent]));
      const participants = selection.selected.map((agentId) => byId.get(agentId) as Agent);
      const raw = await proposeStep({
        agents: participants,
        task,
        tracer,
        ...(signal ? { signal } : {}),
        parentId: taskSpan.id,
      });
      const proposed = { ...raw, proposals: withSchemaChecked(raw.proposals, replyFormat) };
      if (proposed.failures.length === participants.length) {
        const reasons = proposed.failures.map((failure) => `${failure.agentId}: ${failure.message}`).join('; ');
        throw new ProviderError({
          provider: `team:${name}`,
          attempts: participants.length,
          message: `every agent of team ${name} failed (${reasons}); check the agents' endpoints`,
        });
      }
      const rated =
        selecting.ratings && participants.length > 1
          ? await rateStep({
              agents: participants,
              task,
              proposals: proposed.proposals,
              tracer,
              ...(signal ? { signal } : {}),
              parentId: taskSpan.id,
            })
          : { ratings: [], usage: [], failures: [] };
      const failures = [...proposed.failures, ...rated.failures];
      const usage = [...proposed.usage, ...rated.usage];
      // The verifier judges outside the store transaction (its calls may take seconds).
      let verdicts: Verdicts | undefined;
      if (options.verifier !== undefined) {
        try {
          verdicts = await verifyProposals({ verifier: options.verifier, task, proposals: proposed.proposals });
        } catch (error) {
          if (signal?.aborted || !(error instanceof ProviderError)) throw error;
          failures.push({
            agentId: options.verifierId ?? 'verifier',
            act: 'verify',
            round: 0,
            message: error.message,
            kind: 'provider',
          });
        }
      }

      return store.transaction(() => {
        // One long-lived method (its aggregator keeps state across tasks, as in a `repute run`
        // session); its reputation is reloaded from the store inside the transaction.
        const reputation = deciding.reputation;
        const latest = store.loadReputation({ scope: { team: name }, name: method });
        if (reputation) restoreSnapshot(reputation, latest, agentIds);
        const weights = reputation ? reputation.weights(selection.selected) : undefined;
        const decision = decideStep({
          task,
          proposals: proposed.proposals,
          history: [],
          agents: participants.map((agent) => agent.identity),
          ...(weights ? { weights } : {}),
          ...(verdicts === undefined || options.verifier === undefined
            ? {}
            : { verdicts: { verifier: options.verifier.name, verdicts } }),
          aggregator: deciding.aggregator,
          tracer,
          parentId: taskSpan.id,
        });
        // One outcome per distinct task and agent: an agent that already gave evidence on this very
        // request (same kind, conversation, sampling settings and reply format; a repeat, typically
        // served from the cache) gives none again. Recorded in the store, so it holds across
        // restarts and across servers of the team.
        const evidenceFrom = new Set(
          proposed.proposals
            .filter((proposal) =>
              store.putCachedResponse({
                key: evidenceKey(name, method, fingerprint, proposal.agentId),
                value: { schemaVersion: 1, taskId },
              }),
            )
            .map((proposal) => proposal.agentId),
        );
        const repeated = participants.map((agent) => agent.identity.id).filter((id) => !evidenceFrom.has(id));
        const updated =
          reputation && evidenceFrom.size > 0
            ? updateReputationStep({
                reputation,
                feedback: deciding.feedback ?? consensusFeedback,
                input: {
                  task,
                  decision,
                  proposals: proposed.proposals.filter((proposal) => evidenceFrom.has(proposal.agentId)),
                  history: [],
                  ratings: rated.ratings.filter((rating) => evidenceFrom.has(rating.rater)),
                  ...(verdicts === undefined ? {} : { verdicts }),
                },
                tracer,
                parentId: taskSpan.id,
              })
            : { before: reputation?.scores() ?? {}, after: reputation?.scores() ?? {} };
        tracer.end(taskSpan);
        const reasons = new Map(decision.reasons.map((reason) => [reason.agentId, reason]));
        const answers = Object.fromEntries(proposed.proposals.map((proposal) => [proposal.agentId, proposal.answer]));
        const winner =
          decision.answer === null
            ? undefined
            : proposed.proposals
                .filter((proposal) => proposal.answer === decision.answer)
                .sort(
                  (left, right) => (reasons.get(right.agentId)?.weight ?? 0) - (reasons.get(left.agentId)?.weight ?? 0),
                )[0];
        const record: DebateTaskRecord = {
          schemaVersion: 1,
          taskId,
          answer: decision.answer,
          correct: null,
          participants: selection.selected,
          excluded: selection.excluded,
          answers,
          support: decision.support,
          reputation: updated.after,
          failures: failures.length,
        };
        store.recordTaskResult({
          runId,
          method,
          taskId,
          result: record,
          events: events(),
          reputation:
            reputation && evidenceFrom.size > 0
              ? [{ scope: { team: name }, name: method, snapshot: reputation.snapshot() }]
              : [],
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
        return {
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
          repeated,
          reputation: updated.after,
          usage: {
            inputTokens: usage.reduce((sum, entry) => sum + entry.inputTokens, 0),
            outputTokens: usage.reduce((sum, entry) => sum + entry.outputTokens, 0),
          },
        };
      });
    },
  };
}

/**
 * The run id of a served team: `serve-<team>-<hash of method, agents, k and seed>-<instance>`, so a
 * changed team starts a new run, and each serve process (its own `instance`) has a run of its own:
 * two servers on one team never overwrite each other's run status. Reputation is the team's, shared.
 */
export function serveRunId({
  name,
  method = 'minirep',
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
function requestFingerprint(task: Task): string {
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
