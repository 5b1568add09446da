import { z } from 'zod';
import type { AgentIdentity } from '../core/agent-identity.js';
import { validateTeam } from '../core/agent-identity.js';
import { extractAnswer } from '../core/answers/answers.js';
import type { AnswerKind } from '../core/answers/answer-kind.js';
import type { ChatTurn, ReplyFormat, SamplingSettings } from '../core/chat-request.js';
import { DataFormatError, InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import type {
  Acted,
  ActUsage,
  Agent,
  AuditRequest,
  AuditVerdict,
  ProposeRequest,
  RateRequest,
  RefineSubscriptionRequest,
  ReviseRequest,
} from './agent.js';
import { BadReplyError } from './bad-reply-error.js';
import { conversationInstruction, defaultPrompts, type LivePrompts } from './live-prompts.js';

/** One completion request: what a live agent sends to its model. */
export interface CompletionRequest {
  readonly system: string;
  readonly prompt: string;
  /** A served conversation: sent after `system` as messages instead of `prompt`. @default none */
  readonly messages?: readonly ChatTurn[];
  /** Sampling settings to forward (else the model's deterministic defaults). @default none */
  readonly sampling?: SamplingSettings;
  /** Reply format to ask the provider for. @default text */
  readonly replyFormat?: ReplyFormat;
  readonly signal?: AbortSignal;
  /**
   * Tags the call for the ledger and the call log (task and act); never sent to the provider.
   * `answerKind`: the reply must hold an answer of this kind, else the cache neither records nor serves it.
   */
  readonly context: {
    readonly agentId: string;
    readonly taskId?: string;
    readonly act: string;
    readonly answerKind?: AnswerKind;
  };
}

/** A model's reply with its usage. */
export interface CompletionResult {
  readonly text: string;
  readonly usage: ActUsage;
}

/**
 * Sends one request to a language model. Build it from an AI SDK model with the LLM layer's
 * plumbing (cache, ledger, retries); live agents never import the AI SDK themselves.
 */
export type Complete = (request: CompletionRequest) => Promise<CompletionResult>;

/** Options of {@link createLiveAgent}. */
export interface LiveAgentOptions {
  /** Who the agent is: its unique id and the model it runs. */
  readonly identity: AgentIdentity;
  /** The model call, e.g. `createCompletion(createLanguageModel({ ... }))`. */
  readonly complete: Complete;
  /** Prompt templates per act; missing acts use {@link defaultPrompts}. @default defaultPrompts */
  readonly prompts?: Partial<LivePrompts>;
  /** Characters of each peer's text shown in a debate round, ≥ 0. @default 600 */
  readonly peerTextLimit?: number;
}

const answerReply = z
  .object({ reasoning: z.string().optional(), answer: z.union([z.string(), z.number()]).nullable() })
  .passthrough();
const ratingReply = z
  .object({ score: z.coerce.number().min(0).max(1), reason: z.string().optional().default('') })
  .passthrough();
const auditReply = z.object({ reliable: z.boolean(), reason: z.string().optional().default('') }).passthrough();
const subscriptionReply = z.object({ subscription: z.string().min(1) }).passthrough();

/**
 * Pulls the first JSON object out of a reply (bare, or in a ```json fence, or embedded in prose),
 * or `undefined` when there is none that parses.
 */
export function parseJsonReply(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidates = [fenced?.[1], text];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    const start = candidate.indexOf('{');
    if (start < 0) continue;
    // Try each closing brace from the last backwards, so nested objects and trailing prose both work.
    for (let end = candidate.lastIndexOf('}'); end > start; end = candidate.lastIndexOf('}', end - 1)) {
      try {
        return JSON.parse(candidate.slice(start, end + 1));
      } catch {
        // keep shrinking
      }
    }
  }
  return undefined;
}

/**
 * The canonical answer key of a propose/revise reply: the JSON `answer` field extracted per the
 * task's answer kind, else the answer found in the whole text, else `null` (unparseable, counted
 * as wrong). Never throws on model output.
 */
export function answerFromReply(kind: AnswerKind, text: string): string | null {
  const parsed = answerReply.safeParse(parseJsonReply(kind === 'math' ? keepLatexBackslashes(text) : text));
  if (parsed.success && parsed.data.answer !== null) {
    const raw = String(parsed.data.answer).trim();
    if (raw.length > 0) {
      const key = safeExtract(kind, raw) ?? safeExtract(kind, `\\boxed{${raw}}`);
      if (key !== null) return key;
    }
  }
  return safeExtract(kind, text);
}

/** The last `Answer: …` line of a reply (optionally bold or prefixed "Final"). */
const answerLine =
  /^[ \t]*(?:\*\*)?[ \t]*(?:final[ \t]+)?answer[ \t]*(?:\*\*)?[ \t]*:[ \t]*(.+?)[ \t]*(?:\*\*)?[ \t]*$/gim;

/**
 * A served reply's text for the requester and its answer key for the vote: the key comes from the
 * reply's last `Answer: …` line (extracted per the kind), and that line is removed from the text;
 * a reply without one keeps its text and is read as {@link answerFromReply} reads it.
 */
export function servedReplyAnswer(kind: AnswerKind, text: string): { reply: string; answer: string | null } {
  const lines = [...text.matchAll(answerLine)];
  const last = lines.at(-1);
  if (last === undefined || last.index === undefined) return { reply: text, answer: answerFromReply(kind, text) };
  const raw = (last[1] ?? '').replace(/^`+|`+$/g, '').trim();
  const answer = safeExtract(kind, raw) ?? safeExtract(kind, `\\boxed{${raw}}`) ?? answerFromReply(kind, text);
  const reply = `${text.slice(0, last.index)}${text.slice(last.index + last[0].length)}`.trim();
  return { reply: reply === '' ? raw : reply, answer };
}

/**
 * A JSON reply's text and its answer key: the first JSON object of the reply, written back with its
 * keys sorted (so replies that differ only in key order or spacing vote together), or `null` when
 * the reply holds no JSON object; the text is the object as the agent wrote it.
 */
export function jsonReplyAnswer(text: string): { reply: string; answer: string | null } {
  const parsed = parseJsonReply(text);
  if (parsed === undefined || parsed === null || typeof parsed !== 'object') return { reply: text, answer: null };
  return { reply: JSON.stringify(parsed), answer: canonicalJson(parsed) };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * Doubles each lone backslash before a letter (other than `\u`, a unicode escape), so that LaTeX a
 * model wrote into a JSON string with single backslashes survives `JSON.parse`: `"\frac{3}{4}"` would
 * read as a form feed and `rac{3}{4}` (and `\times`, `\theta`, `\neq`, `\beta`, `\right` lose their
 * first letter the same way), while `\sqrt` or `\pi` would make the whole object unparseable.
 * Doubled backslashes (`\\frac`, correct JSON) are left alone. Only for math answers: there a line
 * break or tab inside the answer never belongs, while code answers need them.
 */
export function keepLatexBackslashes(text: string): string {
  return text.replace(/(?<!\\)((?:\\\\)*)\\(?=[a-tv-zA-Z])/g, '$1\\\\');
}

function addUsage(first: ActUsage, second: ActUsage): ActUsage {
  return {
    inputTokens: first.inputTokens + second.inputTokens,
    outputTokens: first.outputTokens + second.outputTokens,
    cost: first.cost + second.cost,
    cached: first.cached && second.cached,
  };
}

function safeExtract(kind: AnswerKind, text: string): string | null {
  try {
    return extractAnswer(kind, text);
  } catch {
    return null;
  }
}

const knownLiveAgentOptions = defineOptionKeys<LiveAgentOptions>()([
  'identity',
  'complete',
  'prompts',
  'peerTextLimit',
]);
const knownPromptKeys = defineOptionKeys<LivePrompts>()([
  'system',
  'propose',
  'revise',
  'rate',
  'audit',
  'refineSubscription',
  'repair',
]);

/**
 * Creates an agent backed by a language model: one prompt template per act, JSON replies parsed
 * with zod, answers extracted per the task's answer kind. An unparseable proposal has answer
 * `null`; an unparseable rating is neutral (0.5, saying so in its reason); an unparseable audit or
 * subscription reply throws `DataFormatError` so the caller counts it.
 *
 * @example
 * const agent = createLiveAgent({ identity: { id: 'qwen-1', model: 'qwen2.5:7b' }, complete: createCompletion({ model }) });
 * const { value } = await agent.propose({ task });
 */
export function createLiveAgent(options: LiveAgentOptions): Agent {
  assertKnownOptions('', options, knownLiveAgentOptions, 'createLiveAgent');
  assertKnownOptions('prompts', options.prompts, knownPromptKeys, 'createLiveAgent');
  const { identity, complete, prompts = {}, peerTextLimit = 600 } = options;
  validateTeam([identity], 'identity');
  if (typeof complete !== 'function') {
    throw new InvalidArgumentError({
      parameter: 'complete',
      value: complete,
      message:
        'complete must be a function (request) => Promise<{ text, usage }>; build it with createCompletion({ model })',
    });
  }
  const templates: LivePrompts = { ...defaultPrompts, ...prompts };
  const agentId = identity.id;
  const ask = (
    act: string,
    system: string,
    prompt: string,
    signal: AbortSignal | undefined,
    taskId?: string,
    answerKind?: AnswerKind,
  ) =>
    complete({
      system,
      prompt,
      ...(signal ? { signal } : {}),
      context: {
        agentId,
        act,
        ...(taskId === undefined ? {} : { taskId }),
        ...(answerKind === undefined ? {} : { answerKind }),
      },
    });

  const propose = async (
    task: Task,
    round: number,
    prompt: string,
    act: string,
    signal?: AbortSignal,
  ): Promise<Acted<Proposal>> => {
    if (task.conversation !== undefined && round === 0) return converse(task, act, signal);
    const system = templates.system(identity);
    const first = await ask(act, system, prompt, signal, task.id, task.kind);
    const answer = answerFromReply(task.kind, first.text);
    if (answer !== null)
      return { value: { agentId, taskId: task.id, round, text: first.text, answer }, usage: first.usage };
    // No answer of the task's kind in a normal prose reply: ask once more, quoting the reply.
    const repair = await ask(
      `${act}-repair`,
      system,
      templates.repair({ task, reply: first.text }),
      signal,
      task.id,
      task.kind,
    );
    const usage = addUsage(first.usage, repair.usage);
    const repaired = answerFromReply(task.kind, repair.text);
    if (repaired !== null)
      return { value: { agentId, taskId: task.id, round, text: repair.text, answer: repaired }, usage };
    throw new BadReplyError({ agentId, act, kind: task.kind, reply: repair.text, usage });
  };

  // A served conversation: the turns go to the model as messages, with the requester's sampling
  // settings and reply format; the agent replies as it normally would and names its short answer on
  // a last line, which is read for the vote and kept out of the reply's text.
  const converse = async (task: Task, act: string, signal?: AbortSignal): Promise<Acted<Proposal>> => {
    const format = task.replyFormat ?? { type: 'text' as const };
    const { text, usage } = await complete({
      system: `${templates.system(identity)}\n\n${conversationInstruction(task.kind, format)}`,
      prompt: task.prompt,
      messages: task.conversation ?? [],
      ...(task.sampling === undefined ? {} : { sampling: task.sampling }),
      ...(format.type === 'json' ? { replyFormat: format } : {}),
      ...(signal ? { signal } : {}),
      context: { agentId, act, taskId: task.id },
    });
    const { reply, answer } = format.type === 'json' ? jsonReplyAnswer(text) : servedReplyAnswer(task.kind, text);
    return { value: { agentId, taskId: task.id, round: 0, text: reply, answer }, usage };
  };

  return {
    identity,
    kind: 'live',
    propose({ task, signal }: ProposeRequest) {
      return propose(task, 0, templates.propose({ task }), 'propose', signal);
    },
    revise({ task, round, own, peers, signal }: ReviseRequest) {
      const clip = (text: string) => (text.length > peerTextLimit ? `${text.slice(0, peerTextLimit)}…` : text);
      return propose(
        task,
        round,
        templates.revise({
          task,
          round,
          own: { ...own, text: clip(own.text) },
          peers: peers.map((peer) => ({ ...peer, text: clip(peer.text) })),
        }),
        'revise',
        signal,
      );
    },
    async rate({ task, proposal, own, signal }: RateRequest) {
      const { text, usage } = await ask(
        'rate',
        templates.system(identity),
        templates.rate({ task, proposal, ...(own ? { own } : {}) }),
        signal,
        task.id,
      );
      const parsed = ratingReply.safeParse(parseJsonReply(text));
      const base = { rater: agentId, ratee: proposal.agentId, taskId: task.id };
      return {
        value: parsed.success
          ? { ...base, score: parsed.data.score, reason: parsed.data.reason }
          : { ...base, score: 0.5, reason: 'unparseable rating reply; neutral score 0.5' },
        usage,
      };
    },
    async audit({ message, task, signal }: AuditRequest): Promise<Acted<AuditVerdict>> {
      const { text, usage } = await ask(
        'audit',
        templates.system(identity),
        templates.audit({ message, ...(task ? { task } : {}) }),
        signal,
        task?.id ?? message.taskId,
      );
      const parsed = auditReply.safeParse(parseJsonReply(text));
      if (!parsed.success)
        throw new DataFormatError({
          file: `reply of agent ${agentId}`,
          message: `audit reply is not {"reliable": boolean, "reason": string}: ${JSON.stringify(text.slice(0, 120))}`,
        });
      return { value: { reliable: parsed.data.reliable, reason: parsed.data.reason }, usage };
    },
    async refineSubscription({ current, received, signal }: RefineSubscriptionRequest) {
      const { text, usage } = await ask(
        'refine-subscription',
        templates.system(identity),
        templates.refineSubscription({ current, received }),
        signal,
      );
      const parsed = subscriptionReply.safeParse(parseJsonReply(text));
      if (!parsed.success)
        throw new DataFormatError({
          file: `reply of agent ${agentId}`,
          message: `subscription reply is not {"subscription": string}: ${JSON.stringify(text.slice(0, 120))}`,
        });
      return { value: parsed.data.subscription.trim(), usage };
    },
  };
}
