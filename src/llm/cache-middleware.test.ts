import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../core/errors.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import type { ResponseCache } from './cache-middleware.js';
import { wrapWithPlumbing } from './create-language-model.js';
import type { LlmCallRecord, LlmUsageEntry } from './ledger-middleware.js';
import { createProviderLimiter } from './semaphore.js';
import { llmCallOptions } from './call-context.js';

/** A cache that reads fine and refuses every write, the way a full disk or a closed store would. */
function unwritableCache(): ResponseCache & { writes: number } {
  const cache = {
    writes: 0,
    getCachedResponse: () => undefined,
    putCachedResponse: () => {
      cache.writes += 1;
      throw new Error('SQLITE_FULL: database or disk is full');
    },
  };
  return cache;
}

// 1000 × 2 / 10⁶ + 500 × 8 / 10⁶ = 0.002 + 0.004 = 0.006
const price = { inputPerMillion: 2, outputPerMillion: 8 };
const usage = { inputTokens: 1000, outputTokens: 500 };

describe('cache middleware: a failed cache write after a paid call', () => {
  it('still books the paid generate call, and reports the write failure as a StoreError', async () => {
    const cache = unwritableCache();
    const entries: LlmUsageEntry[] = [];
    const records: LlmCallRecord[] = [];
    const scripted = new ScriptedModel({ replies: [{ text: 'paid answer', usage }] });
    const model = wrapWithPlumbing({
      model: scripted,
      cache,
      ledger: { recordUsage: (entry) => entries.push(entry) },
      onCall: (record) => records.push(record),
      price,
      context: { runId: 'r1', agentId: 'a1' },
      limiter: createProviderLimiter(),
    });
    const error = await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(entries).toHaveLength(1);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/recording the reply .* in the cache failed.*SQLITE_FULL/);
    expect((error as StoreError).message).toMatch(/the provider call succeeded and the ledger books it as paid/);
    expect([scripted.calls.length, cache.writes]).toEqual([1, 1]);
    expect(entries[0]).toMatchObject({
      runId: 'r1',
      agentId: 'a1',
      inputTokens: 1000,
      outputTokens: 500,
      cached: false,
    });
    expect(entries[0]!.cost).toBeCloseTo(0.006, 12);
    expect(records).toHaveLength(1);
  });

  it('books the paid call once when identical calls in flight shared it (the waiter is booked as cached)', async () => {
    const cache = unwritableCache();
    const entries: LlmUsageEntry[] = [];
    const scripted = new ScriptedModel({ replies: [{ text: 'shared answer', usage, delayMs: 20 }] });
    const model = wrapWithPlumbing({
      model: scripted,
      cache,
      ledger: { recordUsage: (entry) => entries.push(entry) },
      price,
      limiter: createProviderLimiter(),
    });
    const [maker, waiter] = await Promise.allSettled([
      generateText({ model, prompt: 'same', maxRetries: 0 }),
      generateText({ model, prompt: 'same', maxRetries: 0 }),
    ]);
    // The caller whose call wrote the cache hears about the failure; the waiter got its answer.
    expect(maker.status).toBe('rejected');
    expect((maker as PromiseRejectedResult).reason).toBeInstanceOf(StoreError);
    expect(waiter.status === 'fulfilled' ? waiter.value.text : waiter.reason).toBe('shared answer');
    expect(scripted.calls).toHaveLength(1);
    expect(entries.map((entry) => [entry.inputTokens, entry.outputTokens, entry.cached])).toEqual([
      [1000, 500, false],
      [1000, 500, true],
    ]);
    expect(entries.map((entry) => entry.cost)).toEqual([expect.closeTo(0.006, 12), 0]);
  });

  it('still books the paid stream, and ends it with the write failure as an error part', async () => {
    const cache = unwritableCache();
    const entries: LlmUsageEntry[] = [];
    const scripted = new ScriptedModel({ replies: [{ text: 'streamed and paid', usage }] });
    const model = wrapWithPlumbing({
      model: scripted,
      cache,
      ledger: { recordUsage: (entry) => entries.push(entry) },
      price,
      limiter: createProviderLimiter(),
    });
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await result.consumeStream();
    expect(cache.writes).toBe(1);
    expect(entries).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StoreError);
    expect(entries[0]).toMatchObject({ inputTokens: 1000, outputTokens: 500, cached: false });
    expect(entries[0]!.cost).toBeCloseTo(0.006, 12);
  });
});

describe('cache middleware: replies that must hold an answer', () => {
  /** A cache in a Map, counting writes. */
  function mapCache(): ResponseCache & { entries: Map<string, unknown>; writes: number } {
    const cache = {
      entries: new Map<string, unknown>(),
      writes: 0,
      getCachedResponse: (key: string) => cache.entries.get(key),
      putCachedResponse: ({ key, value }: { key: string; value: unknown }) => {
        cache.writes += 1;
        if (!cache.entries.has(key)) cache.entries.set(key, value);
      },
    };
    return cache;
  }

  it('neither records nor serves a reply without an answer of the asked kind; records the fixed reply', async () => {
    const cache = mapCache();
    const scripted = new ScriptedModel({ replies: [{ text: 'lorem ipsum' }, { text: 'The answer is 13.' }] });
    const model = wrapWithPlumbing({ model: scripted, cache, limiter: createProviderLimiter() });
    const ask = () =>
      generateText({
        model,
        prompt: 'What is 10 + 3?',
        maxRetries: 0,
        ...llmCallOptions({ act: 'propose', answerKind: 'number' }),
      });
    expect((await ask()).text).toBe('lorem ipsum');
    expect(cache.writes).toBe(0);
    // The same request again goes to the model (the bad reply was not kept), and its answer is recorded.
    expect((await ask()).text).toBe('The answer is 13.');
    expect([scripted.calls.length, cache.writes]).toEqual([2, 1]);
    expect((await ask()).text).toBe('The answer is 13.');
    expect(scripted.calls.length).toBe(2);
  });

  it('skips a recorded reply without an answer (recorded before the check) and asks the model', async () => {
    const cache = mapCache();
    const recorder = wrapWithPlumbing({
      model: new ScriptedModel({ replies: [{ text: 'no number here' }] }),
      cache,
      limiter: createProviderLimiter(),
    });
    // Without an answer kind, any non-empty reply is recorded (rating, audit and plain calls).
    await generateText({ model: recorder, prompt: 'q', maxRetries: 0 });
    expect(cache.entries.size).toBe(1);
    const scripted = new ScriptedModel({ replies: [{ text: '{"answer": "7"}' }] });
    const model = wrapWithPlumbing({ model: scripted, cache, limiter: createProviderLimiter() });
    const result = await generateText({
      model,
      prompt: 'q',
      maxRetries: 0,
      ...llmCallOptions({ answerKind: 'number' }),
    });
    expect(result.text).toBe('{"answer": "7"}');
    expect(scripted.calls.length).toBe(1);
  });
});

describe('cache middleware: TTL windows', () => {
  it('reuses a reply within its window of ttlMs and asks the provider again in the next one', async () => {
    const entries = new Map<string, unknown>();
    const cache: ResponseCache = {
      getCachedResponse: (key) => entries.get(key),
      putCachedResponse: ({ key, value }) => {
        if (!entries.has(key)) entries.set(key, value);
      },
    };
    let time = 10_000;
    const scripted = new ScriptedModel({ replies: ['first', 'second', 'third'] });
    const model = wrapWithPlumbing({
      model: scripted,
      cache,
      cacheTtlMs: 1_000,
      now: () => time,
      limiter: createProviderLimiter(),
      retry: { maxRetries: 0 },
    });
    const ask = async () => (await generateText({ model, prompt: 'same question', maxRetries: 0 })).text;
    expect(await ask()).toBe('first');
    time = 10_999; // same window [10 000, 11 000)
    expect(await ask()).toBe('first');
    time = 11_000; // next window: recorded afresh
    expect(await ask()).toBe('second');
    expect(scripted.calls).toHaveLength(2);
    expect(() => wrapWithPlumbing({ model: scripted, cache, cacheTtlMs: 0 })).toThrow(/ttlMs must be an integer/);
  });
});
