// Property-based fuzzing of the chat-completions request body (fast-check, seeded): whatever JSON or
// bytes a client posts to /v1/chat/completions, the server answers with a 4xx and an OpenAI-style
// error, never a 500 (an untyped error) and never hangs. The number of bodies tried is printed.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import { createApp } from '../app.js';

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
