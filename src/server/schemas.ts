// The zod schemas of every request parameter and response body of the JSON API. Routes validate
// with them, and `/openapi.json` is generated from them (zod 4's `z.toJSONSchema`).
import { z } from 'zod';
import { answerKinds } from '../core/answers/answer-kind.js';

const name = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\u0000-\u001f/]+$/, 'must be a non-empty name without slashes or control characters');

// A team's name is only a store key (team files allow any non-empty name, e.g. `org/team`), never a
// file path, so it may hold slashes: clients send it percent-encoded as one path segment.
const teamName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\u0000-\u001f]+$/, 'must be a non-empty name without control characters');

/** Path parameters `:team` (percent-encode `/` as `%2F`). */
export const teamParams = z.object({ team: teamName });
/** Path parameters `:id` of a run. */
export const runParams = z.object({ id: name });
/** Path parameters `:name` of a replay output folder. */
export const replayParams = z.object({
  name: z
    .string()
    .regex(
      /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/,
      'must be a folder name of letters, digits, ".", "_" or "-" (no path separators)',
    ),
});

const integerString = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .transform(Number)
    // Range before integer: a huge value is told the range (1..500), not the safe-integer bound.
    .pipe(z.number().min(min).max(max).int())
    .optional()
    .transform((value) => value ?? fallback);

/** Query of `GET /api/runs/:id/decisions`. */
export const decisionsQuery = z.object({
  offset: integerString(0, 1_000_000_000, 0),
  limit: integerString(1, 500, 50),
  method: name.optional(),
  taskId: name.optional(),
  order: z.enum(['asc', 'desc']).default('asc').describe('asc: first finished first; desc: newest first'),
});
/** Query of `GET /api/runs/:id/reputation`. */
export const reputationQuery = z.object({ method: name.optional() });
/** Query of `GET /api/runs/:id/events`: `after` resumes like `Last-Event-ID`. */
export const eventsQuery = z.object({ after: integerString(0, Number.MAX_SAFE_INTEGER, 0) });
/** The `Last-Event-ID` header of an SSE reconnection. */
export const lastEventIdHeader = z
  .string()
  .regex(/^\d+$/, 'must be the seq number of the last event received')
  .transform(Number)
  .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER));
/** Query of `GET /api/runs`. */
export const runsQuery = z.object({
  team: teamName.optional(),
  kind: name.optional(),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.number().min(1).max(500).int())
    .optional(),
});

/** Token, call and cost totals. */
export const usageTotals = z.object({
  calls: z.number().int(),
  cachedCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cost: z.number(),
  failedCalls: z.number().int(),
  unreportedUsageCalls: z.number().int(),
});

/** One method of a run. */
export const methodView = z.object({
  name: z.string(),
  tasks: z.number().int().describe('tasks finished'),
  graded: z.number().int().describe('tasks with a reference answer'),
  correct: z.number().int(),
  accuracy: z.number().nullable().describe('correct / graded, null when nothing was graded'),
  failures: z.number().int().describe('agent acts that failed'),
  usage: usageTotals.describe(
    'ledger entries of the run attributed to this method (a call belongs to the first result of its task recorded at or after it)',
  ),
});

/** A run with its per-method results and usage. */
export const runView = z.object({
  schemaVersion: z.literal(1),
  id: z.string(),
  kind: z.string(),
  team: z.string().nullable(),
  status: z.enum(['running', 'completed', 'failed', 'interrupted']),
  createdAt: z.number(),
  updatedAt: z.number(),
  methods: z.array(methodView),
  usage: usageTotals,
});

/** `GET /api/runs`. */
export const runList = z.object({
  runs: z.array(runView.omit({ methods: true, usage: true }).extend({ tasks: z.number().int() })),
});

/** Why one agent got its weight: the `WeightReason` of the vote plus the agent's answer. */
export const agentWeight = z.object({
  agentId: z.string(),
  weight: z.number(),
  components: z.record(z.string(), z.number()),
  note: z.string().nullable(),
  answer: z.string().nullable().describe("the agent's final answer, null when unparseable or absent"),
  reputationBefore: z.number().nullable(),
  reputationAfter: z.number().nullable(),
  selected: z.boolean(),
  selectionNote: z.string().nullable(),
});

/** One method's decision on one task. */
export const methodDecision = z.object({
  answer: z.string().nullable(),
  correct: z.boolean().nullable(),
  support: z.record(z.string(), z.number()),
  failures: z.number().int(),
  readVersion: z
    .number()
    .int()
    .nullable()
    .describe("version of the team's reputation log the decision read (docs/scaling.md); null when not recorded"),
  weights: z.array(agentWeight),
});

/** `GET /api/runs/:id/decisions`. */
export const decisionPage = z.object({
  runId: z.string(),
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
  tasks: z.array(
    z.object({ taskId: z.string(), index: z.number().int(), methods: z.record(z.string(), methodDecision) }),
  ),
});

/** Path parameters of `GET /api/runs/:id/tasks/:taskId/trace`. */
export const taskParams = z.object({ id: name, taskId: name });

/** `GET /api/runs/:id/tasks/:taskId/trace`: every LLM call of one task beside each method's decision. */
export const taskTrace = z.object({
  runId: z.string(),
  taskId: z.string(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  calls: z.array(
    z.object({
      agentId: z.string().nullable(),
      act: z.string().nullable(),
      model: z.string().nullable(),
      startedAt: z.number().nullable().describe('ms; null for calls booked before schema version 4'),
      endedAt: z.number().nullable(),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      cost: z.number(),
      cached: z.boolean(),
      status: z.enum(['ok', 'failed']),
      messages: z
        .array(z.object({ role: z.string(), content: z.string() }))
        .nullable()
        .describe('null when content capture was off'),
      completion: z.string().nullable(),
    }),
  ),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), cost: z.number() }),
  methods: z.record(z.string(), methodDecision),
});

/** `GET /api/runs/:id/reputation`: each agent's score after every task, per method. */
export const reputationSeries = z.object({
  runId: z.string(),
  methods: z.array(
    z.object({
      name: z.string(),
      agents: z.array(z.string()),
      taskIds: z.array(z.string()),
      scores: z.record(z.string(), z.array(z.number().nullable())),
    }),
  ),
});

/** One agent's explained score (`ScoreExplanation`). */
export const scoreExplanation = z.object({
  agentId: z.string(),
  score: z.number(),
  components: z.record(z.string(), z.number()),
  evidenceCount: z.number().int(),
  summary: z.string(),
});

/** `GET /api/teams`. */
export const teamList = z.object({
  teams: z.array(
    z.object({ name: z.string(), agents: z.array(z.string()), runs: z.number().int(), methods: z.array(z.string()) }),
  ),
});

/** `GET /api/teams/:team/reputation`. */
export const teamReputation = z.object({
  team: z.string(),
  methods: z.array(z.object({ name: z.string(), model: z.string(), agents: z.array(scoreExplanation) })),
});

/** `GET /api/replays`. */
export const replayList = z.object({
  replays: z.array(z.object({ name: z.string(), dataset: z.string().nullable(), methods: z.array(z.string()) })),
});

/** `GET /api/replays/:name`. */
export const replayView = z.object({
  name: z.string(),
  summary: z.record(z.string(), z.unknown()).describe('summary.json as written by `repute replay`'),
  conditions: z
    .array(z.record(z.string(), z.union([z.string(), z.number(), z.null()])))
    .describe('conditions.csv rows'),
  byAttack: z
    .object({ attacks: z.array(z.string()), methods: z.record(z.string(), z.array(z.number().nullable())) })
    .describe('mean accuracy per attack ("clean" first) and method'),
});

/** `GET /health`. */
export const health = z.object({
  status: z
    .enum(['ok', 'unavailable'])
    .describe(
      "'unavailable' (HTTP 503) when the store does not answer a read: take the process out of rotation and restart it",
    ),
  version: z.string().optional().describe('only with the bearer token, when one is set'),
  store: z.string().optional().describe('only with the bearer token, when one is set'),
  schemaVersion: z.number().int().optional().describe('only with the bearer token, when one is set'),
  message: z.string().optional().describe('why the store is unavailable; only with the bearer token, when one is set'),
});

/** Error body of every failed JSON API call. */
export const errorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), parameter: z.string().optional() }),
});

/** One part of a message's content: only text reaches the agents. */
const contentPart = z
  .object({
    type: z.literal('text', {
      error: 'only text parts are supported (the team answers text); send images or files as text, or leave them out',
    }),
    text: z.string(),
  })
  .passthrough();

/** One message of a chat completion request. */
export const chatMessage = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'developer', 'tool']),
    content: z.union([z.string(), z.array(contentPart), z.null()]),
    name: z.string().optional(),
  })
  .passthrough();

/** Text of a message's content (text parts joined), as the team's prompt holds it. */
function messageText(content: z.output<typeof chatMessage>['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text).join('');
}

/** `response_format` of a chat request: text, any JSON object, or a JSON object matching a schema. */
const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1).max(64),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

/**
 * Fields of a chat request the team forwards or uses; every other field is refused (400 naming
 * it), never dropped: the team cannot honour what it does not read.
 */
export const chatRequestFields = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'n',
  'tools',
  'functions',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'response_format',
  'user',
] as const;

/**
 * `POST /v1/chat/completions` body (OpenAI shape). Sampling fields (`temperature`, `top_p`,
 * `max_tokens` / `max_completion_tokens`, `stop`, `seed`, `presence_penalty`, `frequency_penalty`)
 * and `response_format` are forwarded to every agent; fields whose answer the team cannot give
 * (`n` > 1, tools, function calls, and any field not in {@link chatRequestFields}) are refused
 * rather than silently dropped.
 */
export const chatCompletionRequest = z
  .object({
    model: z.string().regex(/^team:.+$/, 'must be "team:<name>", one of GET /v1/models'),
    messages: z.array(chatMessage).min(1),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().gt(0).max(1).nullable().optional(),
    max_tokens: z.number().int().min(1).nullable().optional(),
    max_completion_tokens: z.number().int().min(1).nullable().optional(),
    stop: z
      .union([z.string(), z.array(z.string()).max(4)])
      .nullable()
      .optional(),
    seed: z.number().int().nullable().optional(),
    presence_penalty: z.number().min(-2).max(2).nullable().optional(),
    frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
    response_format: responseFormat.nullable().optional(),
    user: z.string().max(256).optional(),
    n: z
      .literal(1, { error: 'must be 1: the team decides one answer per request; send n > 1 as separate requests' })
      .nullable()
      .optional(),
    tools: z
      .array(z.unknown())
      .max(0, 'tools are not supported: the team answers with text, never a tool call; remove tools')
      .nullable()
      .optional(),
    functions: z
      .array(z.unknown())
      .max(0, 'functions are not supported: the team answers with text, never a function call; remove functions')
      .nullable()
      .optional(),
  })
  .passthrough()
  .superRefine((body, context) => {
    // An empty question would still be sent to every agent, decided and scored.
    if (body.messages.some((message) => messageText(message.content).trim() !== '')) return;
    context.addIssue({
      code: 'custom',
      path: body.messages.length === 1 ? ['messages', 0, 'content'] : ['messages'],
      message: 'every message is empty; send the question as the content of a user message',
    });
  });

/** `POST /v1/feedback`: a grade of one served decision (exactly one of reference, correct, score). */
export const feedbackRequest = z
  .object({
    taskId: z.string().min(1).max(300).describe('repute.taskId of the completion, or its id (chatcmpl-…)'),
    reference: z.string().max(100_000).optional(),
    correct: z.boolean().optional(),
    score: z.number().min(0).max(1).optional(),
  })
  .strict();

/** `POST /v1/feedback` response. */
export const feedbackResponse = z.object({
  schemaVersion: z.literal(1),
  taskId: z.string(),
  applied: z.boolean().describe('false when the decision had been graded before (nothing changed)'),
  score: z.number().describe("the decision's grade in [0, 1]"),
  successes: z.record(z.string(), z.number()).describe("each graded agent's success in [0, 1]"),
  reputation: z.record(z.string(), z.number()).describe('scores after the grade'),
});

/** The `x-repute-kind` header: the answer kind the team decides under. */
export const kindHeader = z.enum(answerKinds as unknown as [string, ...string[]]);

/** The `x-repute-deadline-ms` header: this request's deadline in ms, in place of the team file's `serve.deadlineMs`. */
export const deadlineHeader = z
  .string()
  .regex(/^[0-9]{1,9}$/, 'must be a whole number of milliseconds, e.g. 2000')
  .transform(Number)
  .pipe(z.number().int().min(1, 'must be at least 1 ms').max(600_000, 'must be at most 600000 ms (10 minutes)'));

/**
 * The `Idempotency-Key` header: the client's key for one request. A retry with the same key (after a
 * timeout, or against another server of the team) gets the first answer back, with no new decision.
 */
export const idempotencyKeyHeader = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1-255 visible ASCII characters, e.g. a UUID');

/** The `repute` field added to a chat completion. */
export const reputeField = z.object({
  schemaVersion: z.literal(1),
  team: z.string(),
  method: z.string(),
  kind: z.string(),
  taskId: z.string(),
  decision: z.object({ answer: z.string().nullable(), support: z.record(z.string(), z.number()) }),
  weights: z.array(
    z.object({
      agentId: z.string(),
      weight: z.number(),
      components: z.record(z.string(), z.number()),
      note: z.string().nullable(),
      answer: z.string().nullable(),
      verdict: z
        .number()
        .nullable()
        .optional()
        .describe("the team's verifier's verdict (probability correct); absent without a verifier"),
    }),
  ),
  winner: z.string().nullable().describe('agent whose proposal text is the message content'),
  degraded: z
    .array(z.object({ agentId: z.string(), message: z.string() }))
    .describe('agents whose call failed; the team decided without them'),
  repeated: z
    .array(z.string())
    .describe('agents that already gave evidence on this very request (a repeat): their reputation did not move'),
  skipped: z
    .array(
      z.object({
        agentId: z.string(),
        reason: z.enum(['circuit-open', 'quorum', 'deadline']),
        failures: z.number().int().optional().describe('circuit-open: failures in a row that opened it'),
        retryAt: z.number().optional().describe('circuit-open: when the agent is probed again, epoch ms'),
        waitedMs: z
          .number()
          .optional()
          .describe('quorum, deadline: time from the start of the round to the decision, in ms'),
      }),
    )
    .describe(
      'agents the team decided without: circuit-open (not called after repeated failures), quorum (enough others answered first) or deadline; late answers are recorded for reputation when they arrive',
    ),
  reputation: z.record(z.string(), z.number()).describe('scores after the update'),
});

/** `POST /v1/chat/completions` response (non-streaming). */
export const chatCompletionResponse = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal('assistant'), content: z.string() }),
      finish_reason: z.string(),
    }),
  ),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  repute: reputeField,
});

/** `GET /v1/models`. */
export const modelList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }),
  ),
});

/** OpenAI-style error body of the `/v1` routes. */
export const openAIError = z.object({
  error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
});
