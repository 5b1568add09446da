// OpenAI-compatible team endpoint: `GET /v1/models` lists `team:<name>`, and
// `POST /v1/chat/completions` with `model: "team:<name>"` is answered by the team. The response is
// OpenAI-shaped (the winning proposal's text as the message) plus a `repute` field with the
// decision, weights and reasons; `stream: true` streams the decided answer as chunks.
import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { InvalidArgumentError, NotFoundError, ReputeError } from '../../core/errors.js';
import { taskIdHeader } from '../_access-log.js';
import { withoutVariableNames } from '../_public-message.js';
import type { ServerContext } from '../context.js';
import { parseInput } from '../_validate.js';
import type { ReplyFormat, SamplingSettings } from '../../core/chat-request.js';
import {
  chatCompletionRequest,
  chatRequestFields,
  deadlineHeader,
  feedbackRequest,
  idempotencyKeyHeader,
  kindHeader,
} from '../schemas.js';
import type { TeamAnswer, TeamProgress } from '../team-service.js';
import { z } from 'zod';

/** Response header with the OpenTelemetry trace id of a served decision (when spans are exported). */
export const traceIdHeader = 'x-repute-trace-id';

/** Response header set on an answer given earlier under the request's `Idempotency-Key`. */
export const replayedHeader = 'idempotent-replayed';

const headers = z.object({
  'x-repute-kind': kindHeader.optional(),
  'x-repute-deadline-ms': deadlineHeader.optional(),
  'idempotency-key': idempotencyKeyHeader.optional(),
});

function reputeField(answer: TeamAnswer & { readonly replayed?: true }) {
  const { content: _content, usage: _usage, replayed: _replayed, ...repute } = answer;
  return {
    ...repute,
    degraded: repute.degraded.map((entry) => ({ ...entry, message: withoutVariableNames(entry.message) })),
  };
}

/**
 * Refuses a body with fields the team does not read (`logprobs`, `logit_bias`, `tool_choice`,
 * `audio`, ...): 400 naming every one of them, before any agent is called.
 */
function refuseUnsupportedFields(raw: unknown): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  const known: readonly string[] = chatRequestFields;
  const unsupported = Object.keys(raw).filter((key) => !known.includes(key));
  if (unsupported.length === 0) return;
  const names = unsupported.map((key) => JSON.stringify(key.slice(0, 60))).join(', ');
  throw new InvalidArgumentError({
    parameter: `body.${unsupported[0]}`,
    value: unsupported,
    message: `the team cannot honour ${names}: a request is answered only with the fields ${chatRequestFields.join(', ')}; remove ${unsupported.length === 1 ? 'it' : 'them'} (nothing is dropped silently)`,
  });
}

/** The sampling settings and reply format a request asks the agents for. */
function requestSettings(body: z.output<typeof chatCompletionRequest>): {
  sampling?: SamplingSettings;
  replyFormat?: ReplyFormat;
} {
  const stop = body.stop ?? undefined;
  const sampling: SamplingSettings = {
    ...(body.temperature == null ? {} : { temperature: body.temperature }),
    ...(body.top_p == null ? {} : { topP: body.top_p }),
    ...((body.max_completion_tokens ?? body.max_tokens) == null
      ? {}
      : { maxOutputTokens: (body.max_completion_tokens ?? body.max_tokens) as number }),
    ...(stop === undefined ? {} : { stopSequences: typeof stop === 'string' ? [stop] : stop }),
    ...(body.seed == null ? {} : { seed: body.seed }),
    ...(body.presence_penalty == null ? {} : { presencePenalty: body.presence_penalty }),
    ...(body.frequency_penalty == null ? {} : { frequencyPenalty: body.frequency_penalty }),
  };
  const format = body.response_format ?? undefined;
  if (format?.type === 'json_schema' && format.json_schema.schema !== undefined) {
    try {
      z.fromJSONSchema(format.json_schema.schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (error) {
      throw new InvalidArgumentError({
        parameter: 'body.response_format.json_schema.schema',
        value: undefined,
        message: `response_format.json_schema.schema is not a JSON Schema the team can check replies against (${error instanceof Error ? error.message.slice(0, 200) : String(error)}); send a JSON Schema object such as {"type": "object", "properties": {...}, "required": [...]}`,
        cause: error,
      });
    }
  }
  const replyFormat: ReplyFormat | undefined =
    format === undefined || format.type === 'text'
      ? undefined
      : format.type === 'json_object'
        ? { type: 'json' }
        : {
            type: 'json',
            name: format.json_schema.name,
            ...(format.json_schema.schema === undefined ? {} : { schema: format.json_schema.schema }),
          };
  return {
    ...(Object.keys(sampling).length === 0 ? {} : { sampling }),
    ...(replyFormat === undefined ? {} : { replyFormat }),
  };
}

/** A JSON body, refused unless sent as application/json (415) and parsed (400 when it is not JSON). */
async function readJsonBody(contentType: string | undefined, text: () => Promise<string>): Promise<unknown> {
  const type = contentType ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new InvalidArgumentError({
      parameter: 'header.content-type',
      value: type.slice(0, 100),
      message: `content-type must be application/json, got ${type === '' ? 'none' : JSON.stringify(type.slice(0, 100))}; send the body as JSON`,
    });
  try {
    return JSON.parse(await text());
  } catch (error) {
    throw new InvalidArgumentError({
      parameter: 'body',
      value: undefined,
      message: `body is not valid JSON (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`,
      cause: error,
    });
  }
}

/** Routes under `/v1`. */
export function openAIRoutes(context: ServerContext): Hono {
  const app = new Hono();
  const created = () => Math.floor(context.clock.now() / 1000);

  app.get('/v1/models', (c) =>
    c.json({
      object: 'list' as const,
      data: context.team
        ? [{ id: `team:${context.team.name}`, object: 'model' as const, created: created(), owned_by: 'repute' }]
        : [],
    }),
  );

  app.post('/v1/feedback', async (c) => {
    const raw = await readJsonBody(c.req.header('content-type'), () => c.req.text());
    const body = parseInput(feedbackRequest, raw, 'body');
    const team = context.team;
    if (team === undefined)
      throw new NotFoundError({
        entity: 'team',
        id: 'none',
        message: 'this server answers no team (start repute serve with a team file); there is no decision to grade',
      });
    return c.json(
      team.feedback({
        taskId: body.taskId,
        ...(body.reference === undefined ? {} : { reference: body.reference }),
        ...(body.correct === undefined ? {} : { correct: body.correct }),
        ...(body.score === undefined ? {} : { score: body.score }),
      }),
    );
  });

  app.post('/v1/chat/completions', async (c) => {
    // Only JSON: a browser sends text/plain, form and multipart bodies cross-site without a
    // preflight, so accepting them would let any web page spend the team's keys (CSRF).
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      return c.json(
        {
          error: {
            message: `content-type must be application/json, got ${type === '' ? 'none' : JSON.stringify(type.slice(0, 100))}; send the request body as JSON with content-type: application/json`,
            type: 'invalid_request_error',
            param: 'header.content-type',
            code: 'unsupported_media_type',
          },
        },
        415,
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch (error) {
      throw new InvalidArgumentError({
        parameter: 'body',
        value: undefined,
        message: `body is not valid JSON (${error instanceof Error ? error.message.slice(0, 200) : String(error)}); send a JSON object such as {"model": "team:<name>", "messages": [{"role": "user", "content": "..."}]}`,
        cause: error,
      });
    }
    refuseUnsupportedFields(raw);
    const body = parseInput(chatCompletionRequest, raw, 'body');
    const {
      'x-repute-kind': kind,
      'x-repute-deadline-ms': deadlineMs,
      'idempotency-key': idempotencyKey,
    } = parseInput(
      headers,
      {
        'x-repute-kind': c.req.header('x-repute-kind'),
        'x-repute-deadline-ms': c.req.header('x-repute-deadline-ms'),
        'idempotency-key': c.req.header('idempotency-key'),
      },
      'header',
    );
    const team = context.team;
    const wanted = body.model.slice('team:'.length);
    if (team === undefined || wanted !== team.name) {
      throw new NotFoundError({
        entity: 'model',
        id: body.model,
        message: `unknown model ${JSON.stringify(body.model.length > 120 ? `${body.model.slice(0, 120)}…` : body.model)}; this server answers ${team ? `team:${team.name}` : 'no team (start repute serve with a team file)'} (see GET /v1/models)`,
      });
    }
    // Wall time, as the ledger's call records have it (the injected clock only stamps responses).
    const startedAt = Date.now();
    // Progress of a streamed request: each agent that answers (or fails) before the decision.
    const progress: TeamProgress[] = [];
    let wake: () => void = () => {};
    let firstAnswer: (taskId: string | undefined) => void = () => {};
    const answered = new Promise<string | undefined>((resolve) => {
      firstAnswer = resolve;
    });
    const answering = team.answer({
      messages: body.messages,
      ...requestSettings(body),
      ...(kind === undefined ? {} : { kind: kind as AnswerKind }),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      ...(body.stream === true
        ? {
            onProgress: (event: TeamProgress) => {
              progress.push(event);
              if (!event.failed) firstAnswer(event.taskId);
              wake();
            },
          }
        : {}),
      signal: c.req.raw.signal,
    });
    const model = body.model;
    const usageOf = (answer: TeamAnswer) => ({
      prompt_tokens: answer.usage.inputTokens,
      completion_tokens: answer.usage.outputTokens,
      total_tokens: answer.usage.inputTokens + answer.usage.outputTokens,
    });
    const exported = (answer: TeamAnswer) =>
      context.telemetry?.exportDecision({ answer, startedAt, endedAt: Date.now() });
    if (body.stream === true) {
      // The stream starts once the first agent has answered, so a request that no agent answers
      // still gets its error status (502); until the decision it carries one progress chunk per
      // agent, then the chosen reply and the final chunk with `repute`.
      answering.then(
        () => firstAnswer(undefined),
        () => firstAnswer(undefined),
      );
      const taskId = (await answered) ?? (await answering).taskId;
      const id = `chatcmpl-${taskId}`;
      c.header(taskIdHeader, taskId);
      if (progress.length === 0 && (await answering.catch(() => undefined))?.replayed === true)
        c.header(replayedHeader, 'true');
      c.header('content-type', 'text/event-stream');
      c.header('cache-control', 'no-cache');
      return stream(c, async (output) => {
        const base = { id, object: 'chat.completion.chunk', created: created(), model };
        const send = (chunk: unknown) => output.write(`data: ${JSON.stringify(chunk)}\n\n`);
        await send({
          ...base,
          choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
        });
        let settled = false;
        const decided = answering.finally(() => {
          settled = true;
          wake();
        });
        decided.catch(() => {});
        let sent = 0;
        while (true) {
          while (sent < progress.length) {
            const { taskId: _taskId, ...event } = progress[sent++] as TeamProgress;
            await send({ ...base, choices: [], repute: { schemaVersion: 1, progress: { type: 'agent', ...event } } });
          }
          if (settled) break;
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (settled || sent < progress.length) resolve();
          });
        }
        let answer: TeamAnswer & { readonly replayed?: true };
        try {
          answer = await decided;
        } catch (error) {
          // The status line is gone: the error travels as an OpenAI-style error event.
          const known = error instanceof ReputeError;
          if (!known) console.error(error);
          await send({
            error: {
              message: known ? withoutVariableNames(error.message) : 'internal error; see the server log',
              type: known && error.code === 'provider' ? 'upstream_error' : 'server_error',
              param: null,
              code: known ? error.code : 'internal',
            },
          });
          await output.write('data: [DONE]\n\n');
          return;
        }
        const trace = answer.replayed === true ? undefined : exported(answer);
        await send({ ...base, choices: [{ index: 0, delta: { content: answer.content }, finish_reason: null }] });
        await send({
          ...base,
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
          usage: usageOf(answer),
          repute: { ...reputeField(answer), ...(trace === undefined ? {} : { traceId: trace.traceId }) },
        });
        await output.write('data: [DONE]\n\n');
      });
    }
    const answer = await answering;
    const id = `chatcmpl-${answer.taskId}`;
    c.header(taskIdHeader, answer.taskId);
    if (answer.replayed === true) c.header(replayedHeader, 'true');
    // A replayed answer was exported when it was first given.
    const trace = answer.replayed === true ? undefined : exported(answer);
    if (trace !== undefined) {
      c.header('traceparent', `00-${trace.traceId}-${trace.spanId}-01`);
      c.header(traceIdHeader, trace.traceId);
    }
    const usage = usageOf(answer);
    return c.json({
      id,
      object: 'chat.completion' as const,
      created: created(),
      model,
      choices: [{ index: 0, message: { role: 'assistant' as const, content: answer.content }, finish_reason: 'stop' }],
      usage,
      repute: reputeField(answer),
    });
  });
  return app;
}
