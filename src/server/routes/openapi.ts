// `GET /openapi.json`: the OpenAPI 3.1 document of the API, generated from the zod schemas the
// routes validate with (zod 4's `z.toJSONSchema`), so the document cannot drift from the checks.
import { Hono } from 'hono';
import { z } from 'zod';
import type { ServerContext } from '../context.js';
import * as schemas from '../schemas.js';

interface Operation {
  readonly method: 'get' | 'post';
  readonly path: string;
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly response: z.ZodType;
  readonly contentType?: string;
  readonly errors: readonly number[];
}

const operations: readonly Operation[] = [
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness and the store served (503 when the store does not answer a read)',
    response: schemas.health,
    errors: [503],
  },
  {
    method: 'get',
    path: '/api/teams',
    summary: 'Teams with runs or saved reputation',
    response: schemas.teamList,
    errors: [],
  },
  {
    method: 'get',
    path: '/api/teams/{team}/reputation',
    summary: "A team's current reputation per method, each agent's score explained",
    params: schemas.teamParams,
    response: schemas.teamReputation,
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/runs',
    summary: 'Runs, newest first',
    query: schemas.runsQuery,
    response: schemas.runList,
    errors: [400],
  },
  {
    method: 'get',
    path: '/api/runs/{id}',
    summary: 'Status, methods, accuracy, calls, tokens and cost of a run',
    params: schemas.runParams,
    response: schemas.runView,
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/runs/{id}/decisions',
    summary: "Per task: each method's answer, each agent's weight, its components and reason",
    params: schemas.runParams,
    query: schemas.decisionsQuery,
    response: schemas.decisionPage,
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/runs/{id}/tasks/{taskId}/trace',
    summary:
      "One task as a trace: every LLM call (agent, act, start, end, tokens, cost, prompt, reply) and each method's decision",
    params: schemas.taskParams,
    response: schemas.taskTrace,
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/runs/{id}/reputation',
    summary: "Each agent's reputation after every task, per method",
    params: schemas.runParams,
    query: schemas.reputationQuery,
    response: schemas.reputationSeries,
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/runs/{id}/events',
    summary:
      "The run's event log as Server-Sent Events (id = seq; resume with Last-Event-ID or ?after=); follows a run being written and ends with an `end` event once it stopped",
    params: schemas.runParams,
    query: schemas.eventsQuery,
    response: z.string(),
    contentType: 'text/event-stream',
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/replays',
    summary: 'Replay output folders under --replay-dir',
    response: schemas.replayList,
    errors: [],
  },
  {
    method: 'get',
    path: '/api/replays/{name}',
    summary: 'One replay: summary, conditions and accuracy per attack',
    params: schemas.replayParams,
    response: schemas.replayView,
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/v1/models',
    summary: 'OpenAI-compatible model list: team:<name>',
    response: schemas.modelList,
    errors: [],
  },
  {
    method: 'post',
    path: '/v1/chat/completions',
    summary:
      "OpenAI-compatible chat completion answered by the team: fan-out, the team's method decides, reputation is updated; `stream: true` streams the decided answer",
    body: schemas.chatCompletionRequest,
    response: schemas.chatCompletionResponse,
    errors: [400, 404, 413, 502],
  },
  {
    method: 'post',
    path: '/v1/feedback',
    summary:
      'Grade a served decision (reference, correct or score): reputation learns from it once per decision; a re-post returns the first grade with applied: false',
    body: schemas.feedbackRequest,
    response: schemas.feedbackResponse,
    errors: [400, 404],
  },
];

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function parameters(schema: z.ZodObject | undefined, where: 'path' | 'query'): unknown[] {
  if (schema === undefined) return [];
  const json = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

/** Builds the OpenAPI document (deterministic: same schemas, same document). */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const responses: Record<string, unknown> = {
      200: {
        description: 'OK',
        content: {
          [operation.contentType ?? 'application/json']: { schema: jsonSchema(operation.response, 'output') },
        },
      },
    };
    const errorSchema = operation.path.startsWith('/v1') ? schemas.openAIError : schemas.errorBody;
    for (const status of [...operation.errors, 401])
      responses[status] = {
        description:
          {
            400: 'Invalid input (the error names the field)',
            401: 'Missing or wrong bearer token (when the server has one)',
            404: 'Unknown id',
            413: 'Body too large',
            502: 'Every agent failed',
          }[status] ?? 'Error',
        content: { 'application/json': { schema: jsonSchema(errorSchema, 'output') } },
      };
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method]: {
        summary: operation.summary,
        parameters: [
          ...parameters(operation.params, 'path'),
          ...parameters(operation.query, 'query'),
          ...(operation.path.endsWith('/events')
            ? [{ name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^\\d+$' } }]
            : []),
          ...(operation.path === '/v1/chat/completions'
            ? [
                {
                  name: 'x-repute-kind',
                  in: 'header',
                  required: false,
                  schema: jsonSchema(schemas.kindHeader, 'input'),
                },
                {
                  name: 'x-repute-deadline-ms',
                  in: 'header',
                  required: false,
                  description:
                    "this request's deadline in ms (1-600000): decide with the answers in by then; later answers still count for reputation",
                  schema: { type: 'string', pattern: '^[0-9]{1,9}$' },
                },
                {
                  name: 'Idempotency-Key',
                  in: 'header',
                  required: false,
                  description:
                    'the client key of this request: a retry with the same key, on any server of the team, gets the first answer back (response header Idempotent-Replayed: true) and makes no new decision; the same key with a different request is refused (400)',
                  schema: jsonSchema(schemas.idempotencyKeyHeader, 'input'),
                },
              ]
            : []),
        ],
        ...(operation.body === undefined
          ? {}
          : {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: jsonSchema(operation.body, 'input') } },
              },
            }),
        responses,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Repute service',
      version,
      description:
        'Runs, decisions, reputation and replays of a Repute store, and an OpenAI-compatible endpoint answered by a reputation-weighted team. See docs/serve.md.',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{}, { bearer: [] }],
    paths,
  };
}

/** `GET /openapi.json`. */
export function openApiRoutes(context: ServerContext): Hono {
  const app = new Hono();
  const document = buildOpenApiDocument(context.version);
  app.get('/openapi.json', (c) => c.json(document));
  return app;
}
