import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wrapLanguageModel } from 'ai';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveAgent } from '../agents/live-agent.js';
import { InvalidArgumentError, ProviderError } from '../core/errors.js';
import { createTestResources } from '../testing/_test-resources.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { createCacheMiddleware } from './cache-middleware.js';
import { createCompletion } from './complete.js';
import { createLanguageModel, wrapWithPlumbing } from './create-language-model.js';
import type { LanguageModelV3 } from './language-model-types.js';
import { createProviderLimiter } from './semaphore.js';

const { serve, memoryStore, closeAll } = createTestResources();
afterEach(closeAll);

const price = { inputPerMillion: 2, outputPerMillion: 8, perCall: 0.001 };
const request = (taskId: string, act = 'propose') => ({
  system: 'You are agent a1.',
  prompt: 'What is 6 × 7?',
  context: { agentId: 'a1', taskId, act },
});
const usageOf = (row: { inputTokens: number; outputTokens: number; cost: number; cached: boolean }) => ({
  inputTokens: row.inputTokens,
  outputTokens: row.outputTokens,
  cost: row.cost,
  cached: row.cached,
});

describe('createCompletion against a local OpenAI-compatible server (real AI SDK client)', () => {
  it('reports real tokens and cost on a miss, cached at cost 0 on the identical second call, and agrees with the ledger', async () => {
    const server = await serve([
      { type: 'reply', text: '{"answer": "42"}', usage: { prompt_tokens: 1200, completion_tokens: 300 } },
    ]);
    const store = memoryStore();
    const model = createLanguageModel({
      provider: 'openai-compatible',
      model: 'test-model',
      baseURL: server.baseURL,
      limiter: createProviderLimiter(),
      cache: store,
      ledger: store,
      price,
      context: { agentId: 'a1' },
    });
    const complete = createCompletion({ model, runId: 'run-1' });

    const first = await complete(request('t1'));
    expect(first.text).toBe('{"answer": "42"}');
    // 1200 × 2 / 10⁶ + 300 × 8 / 10⁶ + 0.001 = 0.0024 + 0.0024 + 0.001 = 0.0058 dollars
    expect(first.usage.cost).toBeCloseTo(0.0058, 12);
    expect(first.usage).toMatchObject({ inputTokens: 1200, outputTokens: 300, cached: false });
    expect(server.requestCount).toBe(1);

    // Same system and prompt (another task id: the tag is not part of the cache key).
    const second = await complete(request('t2'));
    expect(second.text).toBe(first.text);
    expect(second.usage).toEqual({ inputTokens: 1200, outputTokens: 300, cost: 0, cached: true });
    expect(server.requestCount).toBe(1);

    // The provider saw a system and a user message at temperature 0, and no Repute tag.
    const body = server.requests[0]!.body as { messages: unknown; temperature: number };
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are agent a1.' },
      { role: 'user', content: 'What is 6 × 7?' },
    ]);
    expect(body.temperature).toBe(0);
    expect(JSON.stringify(body)).not.toContain('repute');

    const rows = store.usageEntries({ runId: 'run-1' });
    expect(rows.map((row) => [row.agentId, row.taskId, row.act, row.model])).toEqual([
      ['a1', 't1', 'propose', 'test-model'],
      ['a1', 't2', 'propose', 'test-model'],
    ]);
    expect(rows.map(usageOf)).toEqual([first.usage, second.usage]);
    const [total] = store.usageSummary({ by: 'run', runId: 'run-1' });
    expect(total).toMatchObject({ calls: 2, cachedCalls: 1, inputTokens: 2400, outputTokens: 600 });
    expect(total!.cost).toBeCloseTo(first.usage.cost + second.usage.cost, 12);
  });

  it('gives a live agent its real usage, and a replay-only model on the same store makes zero requests', async () => {
    const server = await serve([
      {
        type: 'reply',
        text: '{"reasoning": "6·7", "answer": 42}',
        usage: { prompt_tokens: 500, completion_tokens: 250 },
      },
    ]);
    const store = memoryStore();
    const build = (cacheMode: 'record' | 'replay-only') =>
      createLanguageModel({
        provider: 'openai-compatible',
        model: 'test-model',
        baseURL: server.baseURL,
        limiter: createProviderLimiter(),
        cache: store,
        cacheMode,
        ledger: store,
        price: { perCall: 0.01, outputPerMillion: 4 },
      });
    const identity = { id: 'a1', model: 'test-model' };
    const task = { id: 't1', kind: 'number' as const, prompt: 'What is 6 × 7?' };

    const recorded = await createLiveAgent({
      identity,
      complete: createCompletion({ model: build('record'), runId: 'run-1' }),
    }).propose({ task });
    expect(recorded.value.answer).toBe('42');
    // 500 × 0 + 250 × 4 / 10⁶ + 0.01 = 0.001 + 0.01 = 0.011
    expect(recorded.usage.cost).toBeCloseTo(0.011, 12);
    expect(recorded.usage).toMatchObject({ inputTokens: 500, outputTokens: 250, cached: false });

    const replayed = await createLiveAgent({
      identity,
      complete: createCompletion({ model: build('replay-only'), runId: 'run-2' }),
    }).propose({ task });
    expect(replayed.value).toEqual(recorded.value);
    expect(replayed.usage).toEqual({ inputTokens: 500, outputTokens: 250, cost: 0, cached: true });
    expect(server.requestCount).toBe(1);

    expect(
      store.usageEntries().map((row) => [row.runId, row.agentId, row.act, ...Object.values(usageOf(row))]),
    ).toEqual([
      ['run-1', 'a1', 'propose', 500, 250, recorded.usage.cost, false],
      ['run-2', 'a1', 'propose', 500, 250, 0, true],
    ]);
  });
});

describe('createCompletion on an empty reply', () => {
  it.each([
    ['null content', 'null'],
    ['empty content', '""'],
    // A reasoning model that put everything in reasoning_content: recorded before, so every rerun
    // replayed the failure without asking again.
    ['reasoning only', '"","reasoning_content":"Let me think: 2 + 2 = 4"'],
  ])(
    'throws a ProviderError instead of answering with nothing (%s), and does not record it',
    async (_label, content) => {
      let requests = 0;
      const server = createServer((incoming, response) => {
        incoming.resume();
        incoming.on('end', () => {
          requests += 1;
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            `{"id":"x","model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":${content}},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":0}}`,
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const store = memoryStore();
        const model = createLanguageModel({
          provider: 'openai-compatible',
          model: 'test-model',
          baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
          limiter: createProviderLimiter(),
          cache: store,
          ledger: store,
        });
        const complete = createCompletion({ model });
        for (let attempt = 0; attempt < 2; attempt++) {
          const error = (await complete(request('t1')).catch((caught: unknown) => caught)) as ProviderError;
          expect(error).toBeInstanceOf(ProviderError);
          expect([error.provider, error.reason]).toEqual(['openai-compatible.chat', 'malformed']);
          expect(error.message).toMatch(
            /model "test-model" returned an empty reply \(propose by a1, finish reason stop\); check/,
          );
        }
        // Not recorded: a rerun asks again instead of replaying the empty reply forever.
        expect([requests, store.countCachedResponses()]).toEqual([2, 0]);
        // Both paid calls are booked.
        expect(store.usageEntries()).toHaveLength(2);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );
});

describe('createCompletion on other stacks', () => {
  it("reports the plumbed model's own price (what its ledger books), not the completion's fallback price", async () => {
    const store = memoryStore();
    const model = wrapWithPlumbing({
      model: new ScriptedModel({ replies: [{ text: 'ok', usage: { inputTokens: 1000, outputTokens: 100 } }] }),
      limiter: createProviderLimiter(),
      ledger: store,
      price: { inputPerMillion: 3 },
    });
    const { usage } = await createCompletion({ model, price: { perCall: 5 } })(request('t1'));
    // 1000 × 3 / 10⁶ = 0.003; the perCall 5 of the completion's own price must not appear.
    expect(usage.cost).toBeCloseTo(0.003, 12);
    expect(usageOf(store.usageEntries()[0]!)).toEqual(usage);
  });

  it.each([
    ['length', /stopped at its output token limit before finishing the reply \(propose by a1\)/],
    ['content_filter', /had its reply stopped by the provider's content filter/],
  ])(
    'refuses a reply cut short (finish reason %s) instead of reading an answer from it',
    async (finishReason, message) => {
      // The partial working holds a number ("7") that answer extraction would take for the answer.
      const server = await serve([
        { type: 'reply', text: '{"reasoning": "10 * 6 = 60, then 60 + 16 is 7', finishReason },
      ]);
      const model = createLanguageModel({
        provider: 'openai-compatible',
        model: 'test-model',
        baseURL: server.baseURL,
        limiter: createProviderLimiter(),
      });
      const error = (await createCompletion({ model })(request('t1')).catch(
        (caught: unknown) => caught,
      )) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.reason).toBe('incomplete');
      expect(error.message).toMatch(message);
    },
  );

  it('prices a bare model with its price option by the ledger rule', async () => {
    const model = new ScriptedModel({ replies: [{ text: 'ok', usage: { inputTokens: 40, outputTokens: 60 } }] });
    const { text, usage } = await createCompletion({
      model,
      price: { inputPerMillion: 1_000, outputPerMillion: 500, perCall: 0.5 },
    })(request('t1'));
    // 40 × 1000 / 10⁶ + 60 × 500 / 10⁶ + 0.5 = 0.04 + 0.03 + 0.5 = 0.57
    expect(text).toBe('ok');
    expect(usage.cost).toBeCloseTo(0.57, 12);
    expect(usage).toMatchObject({ inputTokens: 40, outputTokens: 60, cached: false });
    expect(model.calls[0]!.temperature).toBe(0);
    // Without runId the tag carries agent, task and act only.
    expect(model.calls[0]!.providerOptions).toEqual({ repute: { agentId: 'a1', taskId: 't1', act: 'propose' } });
  });

  it('refuses a bare model reply whose usage is no token count, naming the field, like the ledger', async () => {
    const model = new ScriptedModel({ replies: [{ text: 'ok', usage: { inputTokens: 40, outputTokens: -3 } }] });
    const error = await createCompletion({ model, price: { perCall: 0.5 } })(request('t1')).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('malformed');
    expect((error as ProviderError).message).toContain(
      'reported usage.outputTokens.total = -3, which is not a token count',
    );
  });

  it('detects cache hits through a stack with a cache but no ledger', async () => {
    const store = memoryStore();
    const scripted = new ScriptedModel({ replies: ['first'] });
    const model = wrapLanguageModel({ model: scripted, middleware: createCacheMiddleware({ cache: store }) });
    const complete = createCompletion({ model, price: { perCall: 0.25 } });
    expect((await complete(request('t1'))).usage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      cost: 0.25,
      cached: false,
    });
    expect((await complete(request('t1'))).usage).toEqual({ inputTokens: 10, outputTokens: 5, cost: 0, cached: true });
    expect(scripted.calls).toHaveLength(1);
  });

  it('agrees with the ledger for any tokens and prices (cache miss then hit)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.record({
          inputPerMillion: fc.double({ min: 0, max: 100, noNaN: true }),
          outputPerMillion: fc.double({ min: 0, max: 100, noNaN: true }),
          perCall: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        async (inputTokens, outputTokens, modelPrice) => {
          const store = memoryStore();
          try {
            const scripted = new ScriptedModel({ replies: [{ text: 'x', usage: { inputTokens, outputTokens } }] });
            const model = wrapWithPlumbing({
              model: scripted,
              limiter: createProviderLimiter(),
              cache: store,
              ledger: store,
              price: modelPrice,
            });
            const complete = createCompletion({ model, runId: 'r' });
            const miss = await complete(request('t1'));
            const hit = await complete(request('t1'));
            const expected =
              (inputTokens * modelPrice.inputPerMillion) / 1e6 +
              (outputTokens * modelPrice.outputPerMillion) / 1e6 +
              modelPrice.perCall;
            expect(miss.usage.cost).toBeCloseTo(expected, 9);
            expect(hit.usage).toEqual({ inputTokens, outputTokens, cost: 0, cached: true });
            expect(store.usageEntries({ runId: 'r' }).map(usageOf)).toEqual([miss.usage, hit.usage]);
            expect(scripted.calls).toHaveLength(1);
          } finally {
            await closeAll();
          }
        },
      ),
      { numRuns: 40, seed: 7 },
    );
  });

  it('rejects a non-model, an empty runId and a negative price before any call', () => {
    const model = new ScriptedModel({ replies: [] });
    expect(() => createCompletion({ model: {} as LanguageModelV3 })).toThrow(InvalidArgumentError);
    expect(() => createCompletion({ model: {} as LanguageModelV3 })).toThrow(
      /model must be an AI SDK v3 language model/,
    );
    expect(() => createCompletion({ model, runId: '' })).toThrow(expect.objectContaining({ parameter: 'runId' }));
    expect(() => createCompletion({ model, price: { outputPerMillion: -1 } })).toThrow(
      expect.objectContaining({ parameter: 'price.outputPerMillion' }),
    );
    expect(model.calls).toHaveLength(0);
  });
});
