import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../core/errors.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import type { ResponseCache } from './cache-middleware.js';
import { wrapWithPlumbing } from './create-language-model.js';
import type { LlmCallRecord, LlmUsageEntry } from './ledger-middleware.js';
import { createProviderLimiter } from './semaphore.js';

const price = { inputPerMillion: 2, outputPerMillion: 8, perCall: 0.001 };

function memoryCache(): ResponseCache & { size(): number } {
  const entries = new Map<string, string>();
  return {
    getCachedResponse: (key) => {
      const text = entries.get(key);
      return text === undefined ? undefined : JSON.parse(text);
    },
    putCachedResponse: ({ key, value }) => {
      if (!entries.has(key)) entries.set(key, JSON.stringify(value));
    },
    size: () => entries.size,
  };
}

function plumbed(scripted: ScriptedModel, cache?: ResponseCache) {
  const entries: LlmUsageEntry[] = [];
  const records: LlmCallRecord[] = [];
  const model = wrapWithPlumbing({
    model: scripted,
    ...(cache === undefined ? {} : { cache }),
    ledger: { recordUsage: (entry) => entries.push(entry) },
    onCall: (record) => records.push(record),
    price,
    limiter: createProviderLimiter(),
    retry: { maxRetries: 0 },
  });
  return { model, entries, records };
}

/** A scripted model whose streams are exactly `parts`. */
function streamingModel(parts: readonly LanguageModelV3StreamPart[]): ScriptedModel {
  const scripted = new ScriptedModel({ replies: () => 'unused' });
  scripted.doStream = async () => ({
    stream: new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  });
  return scripted;
}

const finish = (inputTokens: number, outputTokens: number): LanguageModelV3StreamPart => ({
  type: 'finish',
  usage: {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  },
  finishReason: { unified: 'stop', raw: 'stop' },
});

describe('ledger middleware: absurd usage reported by the provider', () => {
  it.each([
    ['negative', -5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['fractional', 2.5],
    ['absurdly large', 1e12],
  ])('books the valid part of a %s input count and fails the call naming the field', async (_label, bad) => {
    const { model, entries, records } = plumbed(
      new ScriptedModel({ replies: [{ text: 'answer', usage: { inputTokens: bad, outputTokens: 500 } }] }),
    );
    const error = await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch((caught: unknown) => caught);
    // Booked: the call, its 500 valid output tokens, and 0 for the count that is no count.
    // cost = 0 × 2 / 10⁶ + 500 × 8 / 10⁶ + 0.001 = 0.004 + 0.001 = 0.005
    expect(entries.map((entry) => [entry.inputTokens, entry.outputTokens, entry.cached])).toEqual([[0, 500, false]]);
    expect(entries[0]!.cost).toBeCloseTo(0.005, 12);
    expect(records).toHaveLength(1);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('malformed');
    expect((error as ProviderError).message).toContain(`usage.inputTokens.total = ${String(bad)}`);
    expect((error as ProviderError).message).toMatch(
      /integer in \[0, 100000000\]\); the call was booked in the ledger with 0 input tokens/,
    );
  });

  it('books the valid input count when the output count is absurd', async () => {
    const { model, entries } = plumbed(
      new ScriptedModel({ replies: [{ text: 'answer', usage: { inputTokens: 1000, outputTokens: 1e12 } }] }),
    );
    const error = await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch((caught: unknown) => caught);
    // cost = 1000 × 2 / 10⁶ + 0 + 0.001 = 0.002 + 0.001 = 0.003
    expect(entries.map((entry) => [entry.inputTokens, entry.outputTokens])).toEqual([[1000, 0]]);
    expect(entries[0]!.cost).toBeCloseTo(0.003, 12);
    expect((error as ProviderError).message).toContain('usage.outputTokens.total = 1000000000000');
  });

  it('accepts counts up to the limit of 100 000 000 tokens per call', async () => {
    const { model, entries } = plumbed(
      new ScriptedModel({ replies: [{ text: 'answer', usage: { inputTokens: 100_000_000, outputTokens: 0 } }] }),
    );
    expect((await generateText({ model, prompt: 'hi', maxRetries: 0 })).text).toBe('answer');
    // 100 000 000 × 2 / 10⁶ + 0.001 = 200.001
    expect(entries.map((entry) => [entry.inputTokens, entry.outputTokens])).toEqual([[100_000_000, 0]]);
    expect(entries[0]!.cost).toBeCloseTo(200.001, 9);
  });

  it('does not cache a reply with absurd usage, so a rerun asks again', async () => {
    const cache = memoryCache();
    const scripted = new ScriptedModel({
      replies: () => ({ text: 'answer', usage: { inputTokens: -1, outputTokens: 5 } }),
    });
    const { model, entries } = plumbed(scripted, cache);
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toBeInstanceOf(ProviderError);
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toBeInstanceOf(ProviderError);
    expect([scripted.calls.length, cache.size()]).toEqual([2, 0]);
    expect(entries.map((entry) => [entry.inputTokens, entry.outputTokens, entry.cached])).toEqual([
      [0, 5, false],
      [0, 5, false],
    ]);
  });

  it('books the valid part of a stream with absurd usage and ends it with the error', async () => {
    const scripted = streamingModel([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: '1' },
      { type: 'text-delta', id: '1', delta: 'streamed' },
      { type: 'text-end', id: '1' },
      finish(Number.NaN, 500),
    ]);
    const cache = memoryCache();
    const { model, entries } = plumbed(scripted, cache);
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
    // cost = 500 × 8 / 10⁶ + 0.001 = 0.005
    expect(entries.map((entry) => [entry.inputTokens, entry.outputTokens])).toEqual([[0, 500]]);
    expect(entries[0]!.cost).toBeCloseTo(0.005, 12);
    expect(errors).toHaveLength(1);
    expect((errors[0] as ProviderError).message).toContain('usage.inputTokens.total = NaN');
    expect(cache.size()).toBe(0);
  });
});

describe('ledger middleware: a stream that fails', () => {
  it('books a stream that ends with an error part after output as failed, its usage unreported', async () => {
    // Old: not booked, although "half an ans" was generated and billed.
    const { model, entries, records } = plumbed(
      streamingModel([
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: '1' },
        { type: 'text-delta', id: '1', delta: 'half an ans' },
        { type: 'error', error: new Error('upstream reset') },
      ]),
    );
    const errors: unknown[] = [];
    await streamText({
      model,
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    }).consumeStream();
    expect(errors).toHaveLength(1);
    // Nothing reported: 0 tokens as a lower bound, cost the per-call price 0.001.
    expect(entries.map((entry) => [entry.status, entry.usageReported, entry.inputTokens, entry.outputTokens])).toEqual([
      ['failed', false, 0, 0],
    ]);
    expect(entries[0]!.cost).toBeCloseTo(0.001, 12);
    expect(records).toHaveLength(1);
  });

  it('books a stream whose error part is followed by a finish part (as openai-compatible sends it) with that usage', async () => {
    const { model, entries } = plumbed(
      streamingModel([
        { type: 'stream-start', warnings: [] },
        { type: 'error', error: new Error('Response stream ended without a finish reason.') },
        finish(10, 0),
      ]),
    );
    await streamText({ model, prompt: 'hi', maxRetries: 0, onError: () => {} }).consumeStream();
    // Old: not booked. 10 × 2 / 10⁶ + 0.001 = 0.00102
    expect(entries.map((entry) => [entry.status, entry.usageReported, entry.inputTokens, entry.outputTokens])).toEqual([
      ['failed', true, 10, 0],
    ]);
    expect(entries[0]!.cost).toBeCloseTo(0.00102, 12);
  });

  it('books a clean stream once', async () => {
    const { model, entries } = plumbed(
      streamingModel([
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: '1' },
        { type: 'text-delta', id: '1', delta: 'fine' },
        { type: 'text-end', id: '1' },
        finish(1000, 500),
      ]),
    );
    expect(await streamText({ model, prompt: 'hi', maxRetries: 0 }).text).toBe('fine');
    // 1000 × 2 / 10⁶ + 500 × 8 / 10⁶ + 0.001 = 0.002 + 0.004 + 0.001 = 0.007
    expect(entries.map((entry) => [entry.inputTokens, entry.outputTokens])).toEqual([[1000, 500]]);
    expect(entries[0]!.cost).toBeCloseTo(0.007, 12);
  });
});

describe('ledger middleware: traces (timing and content)', () => {
  function clocked(captureContent?: boolean) {
    const entries: LlmUsageEntry[] = [];
    const records: LlmCallRecord[] = [];
    let time = 1_000;
    const scripted = new ScriptedModel({ replies: ['The answer is 4.'] });
    const model = wrapWithPlumbing({
      model: scripted,
      ledger: { recordUsage: (entry) => entries.push(entry) },
      onCall: (record) => records.push(record),
      // Each read advances 25 ms: the ledger reads once at the start and once at the end.
      now: () => (time += 25),
      limiter: createProviderLimiter(),
      retry: { maxRetries: 0 },
      ...(captureContent === undefined ? {} : { captureContent }),
    });
    return { model, entries, records };
  }

  it('books when the call started and ended, the messages sent and the reply, by default', async () => {
    const { model, entries, records } = clocked();
    await generateText({ model, system: 'Be brief.', prompt: 'What is 2 + 2?', maxRetries: 0 });
    expect(entries).toHaveLength(1);
    const [entry] = entries as [LlmUsageEntry];
    // Only the ledger reads this clock: 1000 + 25 at the start, + 25 again at the end.
    expect([entry.startedAt, entry.endedAt]).toEqual([1_025, 1_050]);
    expect(JSON.parse(entry.prompt ?? 'null')).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2 + 2?' },
    ]);
    expect(entry.completion).toBe('The answer is 4.');
    // onCall feeds logs and exported spans: never the content.
    expect(records[0]).toMatchObject({ prompt: null, completion: null, durationMs: 25 });
  });

  it('keeps the text out of the ledger with captureContent: false (tokens and timing stay)', async () => {
    const { model, entries } = clocked(false);
    await generateText({ model, prompt: 'What is 2 + 2?', maxRetries: 0 });
    expect(entries[0]).toMatchObject({
      prompt: null,
      completion: null,
      startedAt: 1_025,
      endedAt: 1_050,
      outputTokens: 5,
    });
  });

  it('books the text of a streamed reply as it arrived', async () => {
    const entries: LlmUsageEntry[] = [];
    const model = wrapWithPlumbing({
      model: streamingModel([
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Four' },
        { type: 'text-delta', id: 't', delta: ', surely.' },
        { type: 'text-end', id: 't' },
        finish(3, 2),
      ]),
      ledger: { recordUsage: (entry) => entries.push(entry) },
      limiter: createProviderLimiter(),
      retry: { maxRetries: 0 },
    });
    const result = streamText({ model, prompt: 'What is 2 + 2?', maxRetries: 0 });
    await result.consumeStream();
    expect(entries[0]).toMatchObject({ completion: 'Four, surely.', inputTokens: 3, outputTokens: 2 });
  });
});
