// Property-based fuzzing of the chat-completions request body (fast-check, seeded): whatever JSON or
// bytes a client posts to /v1/chat/completions, the server answers with a 4xx and an OpenAI-style
// error, never a 500 (an untyped error) and never hangs. The number of bodies tried is printed.
// Random bodies never pass the schema, so a second property posts near-valid ones to a real team
// (live agents on the local OpenAI-compatible test server): those are answered, or refused with a
// 4xx before any agent is called.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createLiveTeam } from '../../cli/commands/_live-team.js';
import { readTeamFile } from '../../cli/commands/_team-file.js';
import { openStore } from '../../store/store.js';
import { startOpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { writeSumTeam } from '../../testing/_test-sum-team.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { createApp } from '../app.js';
import { createTeamService } from '../team-service.js';

const store = openStore({ path: ':memory:' });
afterAll(() => store.close());

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('system', 'user', 'assistant', 'tool'), fc.string({ maxLength: 6 })),
    content: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fc.record({ type: fc.constant('text'), text: fc.string() })),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc
    .record(
      {
        model: fc.oneof(fc.constant('team:nobody'), fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 1 })),
        messages: fc.oneof(fc.array(message, { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
        stream: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
        temperature: fc.oneof(fc.double(), fc.string({ maxLength: 4 })),
        n: fc.integer({ min: -2, max: 5 }),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
);

describe('POST /v1/chat/completions under random bodies (fuzzing)', () => {
  it('answers every body with a 4xx OpenAI-style error, never a 500', async () => {
    const app = createApp({ store });
    let tried = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        tried++;
        const response = await app.request('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text,
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        const payload = (await response.json()) as { error?: { message?: unknown } };
        expect(typeof payload.error?.message).toBe('string');
      }),
      { numRuns: 600, seed: 2030 },
    );
    expect(tried).toBe(600);
    process.stdout.write(
      `fuzz: chat-completions request body: ${tried} bodies, statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`,
    );
  }, 60_000);
});

/** A value of the wrong shape for any field. */
const wrongValue = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.string({ maxLength: 4 }),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.jsonValue({ maxDepth: 2 }),
);
/** Mostly `valid`; one time in ten a value of the wrong shape. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 9, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: wrongValue });

const nearValidMessage = fc.record(
  {
    role: mostly(fc.constantFrom('system', 'user', 'user', 'assistant', 'developer', 'tool')),
    content: mostly(
      fc.oneof(
        fc.constantFrom('What is 2 + 2?', 'Answer briefly.', '', '  '),
        fc.array(fc.record({ type: fc.constant('text'), text: fc.constantFrom('What is', ' 3 + 4?', '') }), {
          maxLength: 3,
        }),
        fc.constant(null),
      ),
    ),
    name: mostly(fc.string({ maxLength: 6 })),
  },
  { requiredKeys: ['role', 'content'] },
);
const schemaObject = fc.oneof(
  fc.constant({ type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] }),
  fc.constant({ type: 'object' }),
  fc.dictionary(
    fc.constantFrom('type', 'properties', 'required', 'items', 'enum', '$ref', 'anyOf'),
    fc.jsonValue({ maxDepth: 2 }),
    {
      maxKeys: 3,
    },
  ),
);
const optionalFields = fc.record({
  stream: mostly(fc.boolean()),
  stream_options: mostly(fc.record({ include_usage: mostly(fc.boolean()) }, { requiredKeys: [] })),
  temperature: mostly(fc.double({ min: -1, max: 3, noNaN: true })),
  top_p: mostly(fc.double({ min: -0.5, max: 1.5, noNaN: true })),
  max_tokens: mostly(fc.integer({ min: -1, max: 200 })),
  max_completion_tokens: mostly(fc.integer({ min: -1, max: 200 })),
  stop: mostly(fc.oneof(fc.string({ maxLength: 4 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 6 }))),
  seed: mostly(fc.integer()),
  presence_penalty: mostly(fc.double({ min: -3, max: 3, noNaN: true })),
  frequency_penalty: mostly(fc.double({ min: -3, max: 3, noNaN: true })),
  response_format: mostly(
    fc.oneof(
      fc.constant({ type: 'text' }),
      fc.constant({ type: 'json_object' }),
      fc.record({
        type: fc.constant('json_schema'),
        json_schema: fc.record(
          {
            name: mostly(fc.string({ minLength: 1, maxLength: 8 })),
            schema: mostly(schemaObject),
            strict: mostly(fc.boolean()),
          },
          { requiredKeys: ['name'] },
        ),
      }),
    ),
  ),
  user: mostly(fc.string({ maxLength: 8 })),
  n: mostly(fc.constantFrom(1, 2, null)),
  tools: mostly(fc.constantFrom([], [{ type: 'function' }], null)),
  functions: mostly(fc.constantFrom([], null)),
  logprobs: fc.boolean(),
});

/** `model` and `messages` (each mostly right), and up to two more fields, each of either shape. */
const nearValidBody = fc
  .record({
    model: fc.oneof(
      { weight: 9, arbitrary: fc.constant('team:sum-team') },
      { weight: 1, arbitrary: fc.constantFrom('team:other', 'gpt-4o') },
    ),
    messages: mostly(fc.array(nearValidMessage, { minLength: 1, maxLength: 3 })),
    optional: optionalFields,
    keys: fc.subarray(
      [
        'stream',
        'stream_options',
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
        'n',
        'tools',
        'functions',
        'logprobs',
      ] as const,
      { maxLength: 2 },
    ),
  })
  .map(
    ({ model, messages, optional, keys }): Record<string, unknown> => ({
      model,
      messages,
      ...Object.fromEntries(keys.map((key) => [key, optional[key]])),
    }),
  );

describe('POST /v1/chat/completions under near-valid bodies, with a team (fuzzing)', () => {
  it('answers each body from the team (200, OpenAI-shaped) or refuses it with a 4xx before any agent is called, never a 5xx', async () => {
    const provider = await startOpenAICompatibleServer({ script: () => '{"reasoning": "counted", "answer": "4"}' });
    const dir = temporaryDirectory('repute-fuzz-chat-');
    const file = readTeamFile(
      writeSumTeam(dir, { baseURL: provider.baseURL, tasks: 1, agents: ['a', 'b'], methods: ['majority'] }),
    );
    const teamStore = openStore({ path: join(dir, 'repute.db') });
    let counter = 0;
    const team = createTeamService({
      name: file.name,
      agents: createLiveTeam(file, teamStore, 'serve'),
      store: teamStore,
      method: 'majority',
      kind: 'number',
      runId: 'serve',
      generateId: () => `chat-${++counter}`,
    });
    const app = createApp({ store: teamStore, team });
    let tried = 0;
    const statuses = new Map<number, number>();
    try {
      await fc.assert(
        fc.asyncProperty(nearValidBody, fc.option(fc.constantFrom('number', 'exact', 'bogus')), async (body, kind) => {
          tried++;
          const before = provider.requestCount;
          const response = await app.request('/v1/chat/completions', {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(kind === null ? {} : { 'x-repute-kind': kind }) },
            body: JSON.stringify(body),
          });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const text = await response.text();
          expect(response.status, text).toBeLessThan(500);
          if (response.status === 200) {
            if (body.stream === true) expect(text).toContain('data: [DONE]');
            else expect(typeof JSON.parse(text).choices?.[0]?.message?.content).toBe('string');
            return;
          }
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(typeof JSON.parse(text).error?.message).toBe('string');
          // Refused before any agent was called.
          expect(provider.requestCount).toBe(before);
        }),
        { numRuns: 400, seed: 2031 },
      );
    } finally {
      teamStore.close();
      await provider.close();
    }
    expect(tried).toBe(400);
    process.stdout.write(
      `fuzz: chat-completions request body, near-valid with a team: ${tried} bodies, statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`,
    );
    // Both paths were reached: bodies the team answered, and bodies refused past the JSON parse.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThan(0);
  }, 120_000);
});
