import { generateText, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../core/errors.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { createCacheMiddleware, requestCacheKey, type ResponseCache } from './cache-middleware.js';
import { llmCallOptions } from './call-context.js';
import { createConcurrencyMiddleware } from './concurrency-middleware.js';
import { wrapWithPlumbing } from './create-language-model.js';
import {
  llmCallSpanData,
  priceCall,
  type LlmCallRecord,
  type LlmUsageEntry,
  type UsageLedger,
} from './ledger-middleware.js';
import { createProviderLimiter, createSemaphore } from './semaphore.js';

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];

/**
 * The cache and ledger the llm layer declares, in memory (the SQLite store implements the same two
 * interfaces; src/store tests cover that side). Values round-trip through JSON as they would in SQLite.
 */
function memoryStore(): ResponseCache &
  UsageLedger & { countCachedResponses(): number; usageEntries(): LlmUsageEntry[]; close(): void } {
  const cache = new Map<string, string>();
  const entries: LlmUsageEntry[] = [];
  return {
    getCachedResponse: (key) => {
      const text = cache.get(key);
      return text === undefined ? undefined : JSON.parse(text);
    },
    putCachedResponse: ({ key, value }) => {
      if (cache.has(key)) return false; // the first write of a key wins
      cache.set(key, JSON.stringify(value));
      return true;
    },
    recordUsage: (entry) => entries.push(entry),
    countCachedResponses: () => cache.size,
    usageEntries: () => entries,
    close: () => cache.clear(),
  };
}

describe('requestCacheKey', () => {
  const base = { provider: 'p', modelId: 'm', type: 'generate' as const };

  it('ignores the abort signal, headers, key order and the call-context tag', () => {
    const key = requestCacheKey({
      ...base,
      params: { prompt, temperature: 0, providerOptions: { x: { a: 1, b: 2 } } },
    });
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(
      requestCacheKey({
        ...base,
        params: {
          providerOptions: { x: { b: 2, a: 1 }, ...llmCallOptions({ taskId: 't9', act: 'rate' }).providerOptions },
          temperature: 0,
          prompt,
          abortSignal: new AbortController().signal,
          headers: { 'x-trace': '1' },
        },
      }),
    ).toBe(key);
  });

  it('gives a tagged call and the same call untagged one key (the provider sees the same request)', () => {
    const untagged = requestCacheKey({ ...base, params: { prompt, temperature: 0 } });
    const tagged = requestCacheKey({
      ...base,
      params: { prompt, temperature: 0, ...llmCallOptions({ taskId: 't1' }) },
    });
    expect(tagged).toBe(untagged);
    expect(requestCacheKey({ ...base, params: { prompt, temperature: 0, providerOptions: {} } })).toBe(untagged);
  });

  it('changes with any setting, the model, the provider or the call type', () => {
    const key = requestCacheKey({ ...base, params: { prompt, temperature: 0 } });
    const variants = [
      requestCacheKey({ ...base, params: { prompt, temperature: 0.1 } }),
      requestCacheKey({ ...base, params: { prompt, temperature: 0, seed: 1 } }),
      requestCacheKey({
        ...base,
        params: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi!' }] }], temperature: 0 },
      }),
      requestCacheKey({ ...base, modelId: 'm2', params: { prompt, temperature: 0 } }),
      requestCacheKey({ ...base, provider: 'q', params: { prompt, temperature: 0 } }),
      requestCacheKey({ ...base, type: 'stream', params: { prompt, temperature: 0 } }),
    ];
    expect(new Set([key, ...variants]).size).toBe(7);
  });
});

describe('plumbing around a ScriptedModel', () => {
  it('merges the model context with each call tag in the ledger and never forwards the tag', async () => {
    const store = memoryStore();
    const scripted = new ScriptedModel({ replies: ['a', 'b'] });
    const records: LlmCallRecord[] = [];
    let clock = 0;
    const model = wrapWithPlumbing({
      model: scripted,
      ledger: store,
      price: { perCall: 0.25 },
      context: { runId: 'r', agentId: 'agent-1' },
      limiter: createProviderLimiter(),
      now: () => (clock += 10),
      onCall: (record) => records.push(record),
    });
    await generateText({ model, prompt: 'x', maxRetries: 0, ...llmCallOptions({ taskId: 't1', act: 'propose' }) });
    await generateText({ model, prompt: 'y', maxRetries: 0, ...llmCallOptions({ agentId: 'agent-2', act: 'rate' }) });
    expect(scripted.calls.map((call) => call.providerOptions?.repute)).toEqual([undefined, undefined]);
    expect(
      store
        .usageEntries()
        .map((entry) => [
          entry.runId,
          entry.agentId,
          entry.taskId,
          entry.act,
          entry.inputTokens,
          entry.outputTokens,
          entry.cost,
        ]),
    ).toEqual([
      ['r', 'agent-1', 't1', 'propose', 10, 5, 0.25],
      ['r', 'agent-2', null, 'rate', 10, 5, 0.25],
    ]);
    // Clock ticks 10 at the start and 20 at the end of the first call: 10 ms.
    expect(records[0]!.durationMs).toBe(10);
    expect(llmCallSpanData(records[0]!)).toEqual({
      type: 'llm-call',
      agentId: 'agent-1',
      act: 'propose',
      cached: false,
      inputTokens: 10,
      outputTokens: 5,
      costUsd: 0.25,
      durationMs: 10,
      // The scripted model answered the first attempt and reported its usage.
      status: 'ok',
      usageReported: true,
      attempts: 1,
    });
    store.close();
  });

  it('prices calls per million tokens plus per call', () => {
    // 250 000 × 3 / 1e6 + 10 000 × 15 / 1e6 + 0.01 = 0.75 + 0.15 + 0.01 = 0.91
    expect(priceCall({ inputPerMillion: 3, outputPerMillion: 15, perCall: 0.01 }, 250_000, 10_000)).toBeCloseTo(
      0.91,
      12,
    );
    expect(priceCall({}, 1_000_000, 1_000_000)).toBe(0);
    expect(() =>
      wrapWithPlumbing({ model: new ScriptedModel({ replies: [] }), price: { inputPerMillion: -1 } }),
    ).toThrow(/price.inputPerMillion/);
  });

  it('does not cache a stream that ends in an error part, and caches a clean one', async () => {
    const store = memoryStore();
    let call = 0;
    const flaky = new ScriptedModel({ replies: ['unused'] });
    flaky.doStream = async () => {
      call += 1;
      const parts =
        call === 1
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'error', error: new Error('midway') },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: '1' },
              { type: 'text-delta', id: '1', delta: 'fine' },
              { type: 'text-end', id: '1' },
              {
                type: 'finish',
                usage: {
                  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
                  outputTokens: { total: 1, text: 1, reasoning: undefined },
                },
                finishReason: { unified: 'stop', raw: 'stop' },
              },
            ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part as never);
            controller.close();
          },
        }),
      };
    };
    const model = wrapLanguageModel({ model: flaky, middleware: createCacheMiddleware({ cache: store }) });
    const failed = streamText({ model, prompt: 'p', maxRetries: 0, onError: () => {} });
    await failed.consumeStream();
    expect(store.countCachedResponses()).toBe(0);
    expect(await streamText({ model, prompt: 'p' }).text).toBe('fine');
    expect(await streamText({ model, prompt: 'p' }).text).toBe('fine');
    expect([call, store.countCachedResponses()]).toEqual([2, 1]);
    store.close();
  });

  it('rejects a corrupted cache entry with a DataFormatError', async () => {
    const store = memoryStore();
    const scripted = new ScriptedModel({ replies: ['x'] });
    const model = wrapLanguageModel({ model: scripted, middleware: createCacheMiddleware({ cache: store }) });
    // A cache that answers every key with something that is not a recorded reply.
    const cache = { getCachedResponse: () => ({ nope: true }), putCachedResponse: () => true };
    const corrupted = wrapLanguageModel({ model: scripted, middleware: createCacheMiddleware({ cache }) });
    await expect(generateText({ model: corrupted, prompt: 'hi', maxRetries: 0 })).rejects.toBeInstanceOf(
      DataFormatError,
    );
    expect(scripted.calls).toHaveLength(0);
    expect((await generateText({ model, prompt: 'hi' })).text).toBe('x');
    store.close();
  });

  it.each([
    ['a generate payload without content', { schemaVersion: 1, type: 'generate', payload: {} }],
    ['a null generate payload', { schemaVersion: 1, type: 'generate', payload: null }],
    ['a generate payload whose content is a string', { schemaVersion: 1, type: 'generate', payload: { content: 'x' } }],
    ['a stream payload that is not a list', { schemaVersion: 1, type: 'stream', payload: {} }],
  ])(
    'rejects a truncated or damaged cache entry (%s) with a DataFormatError, not a TypeError',
    async (_label, value) => {
      const scripted = new ScriptedModel({ replies: () => 'x' });
      const cache = { getCachedResponse: () => value, putCachedResponse: () => true };
      const corrupted = wrapLanguageModel({ model: scripted, middleware: createCacheMiddleware({ cache }) });
      const call = value.type === 'stream' ? corrupted.doStream({ prompt }) : corrupted.doGenerate({ prompt });
      await expect(call).rejects.toBeInstanceOf(DataFormatError);
      await expect(call).rejects.toThrow(/is not a schemaVersion 1 (generate|stream) reply; delete it/);
      expect(scripted.calls).toHaveLength(0);
    },
  );

  it('releases the concurrency slot when a stream is cancelled or fails', async () => {
    const gate = createSemaphore(1);
    const scripted = new ScriptedModel({ replies: () => 'streamed' });
    const model = wrapLanguageModel({ model: scripted, middleware: createConcurrencyMiddleware({ semaphore: gate }) });
    const result = await model.doStream({ prompt });
    expect(gate.active).toBe(1);
    await result.stream.cancel();
    expect(gate.active).toBe(0);
    const full = streamText({ model, prompt: 'x' });
    expect(await full.text).toBe('streamed');
    expect(gate.active).toBe(0);
    const failing = new ScriptedModel({ replies: [{ error: new Error('no stream') }] });
    const failingModel = wrapLanguageModel({
      model: failing,
      middleware: createConcurrencyMiddleware({ semaphore: gate }),
    });
    await expect(failingModel.doStream({ prompt })).rejects.toThrow('no stream');
    expect(gate.active).toBe(0);
  });
});
