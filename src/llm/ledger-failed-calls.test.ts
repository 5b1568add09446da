import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { ProviderError, StoreError } from '../core/errors.js';
import { openStore } from '../store/store.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { wrapWithPlumbing, type WrapWithPlumbingOptions } from './create-language-model.js';
import type { LlmCallRecord, LlmUsageEntry } from './ledger-middleware.js';
import { createProviderLimiter } from './semaphore.js';
import { AttemptTimeoutError, StreamLimitError } from './timeout-middleware.js';

// 2 per million input, 8 per million output, 0.001 per call.
const price = { inputPerMillion: 2, outputPerMillion: 8, perCall: 0.001 };

const usage = (inputTokens: number | undefined, outputTokens: number | undefined) => ({
  inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
});

const finish = (inputTokens: number | undefined, outputTokens: number | undefined): LanguageModelV3StreamPart => ({
  type: 'finish',
  usage: usage(inputTokens, outputTokens),
  finishReason: { unified: 'stop', raw: 'stop' },
});

/** A scripted model whose streams are `parts`, opened after the `openFailures` errors are thrown. */
function streamingModel(parts: readonly LanguageModelV3StreamPart[], openFailures: readonly unknown[] = []) {
  const scripted = new ScriptedModel({ replies: () => 'unused' });
  let opened = 0;
  scripted.doStream = async () => {
    opened += 1;
    const failure = openFailures[opened - 1];
    if (failure !== undefined) throw failure;
    return {
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  };
  return { scripted, opened: () => opened };
}

function plumbed(model: ScriptedModel, overrides: Partial<WrapWithPlumbingOptions> = {}) {
  const entries: LlmUsageEntry[] = [];
  const records: LlmCallRecord[] = [];
  const wrapped = wrapWithPlumbing({
    model,
    ledger: { recordUsage: (entry) => entries.push(entry) },
    onCall: (record) => records.push(record),
    price,
    limiter: createProviderLimiter(),
    retry: { maxRetries: 0, sleep: async () => {} },
    ...overrides,
  });
  return { model: wrapped, entries, records };
}

async function streamErrors(model: ReturnType<typeof plumbed>['model']): Promise<unknown[]> {
  const errors: unknown[] = [];
  await streamText({
    model,
    prompt: 'hi',
    maxRetries: 0,
    onError: ({ error }) => {
      errors.push(error);
    },
  }).consumeStream();
  return errors;
}

const booking = (entry: LlmUsageEntry) => [
  entry.status,
  entry.usageReported,
  entry.attempts,
  entry.inputTokens,
  entry.outputTokens,
];

describe('ledger: a stream that fails after the provider billed it', () => {
  it('books a stream whose error part comes after usage was reported, marked failed', async () => {
    // Old: not booked at all, although the provider reported (and billed) 1000 in / 200 out.
    const { scripted } = streamingModel([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: '1' },
      { type: 'text-delta', id: '1', delta: 'half' },
      { type: 'error', error: new Error('chunk could not be parsed') },
      finish(1000, 200),
    ]);
    const { model, entries, records } = plumbed(scripted);
    expect(await streamErrors(model)).toHaveLength(1);
    expect(entries.map(booking)).toEqual([['failed', true, 1, 1000, 200]]);
    // 1000 × 2 / 10⁶ + 200 × 8 / 10⁶ + 0.001 = 0.002 + 0.0016 + 0.001 = 0.0046
    expect(entries[0]!.cost).toBeCloseTo(0.0046, 12);
    expect(records.map((record) => record.status)).toEqual(['failed']);
  });

  it('books a stream that failed after generating text, with its usage marked unreported', async () => {
    const { scripted } = streamingModel([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: '1' },
      { type: 'text-delta', id: '1', delta: 'half an ans' },
      { type: 'error', error: new Error('upstream reset') },
    ]);
    const { model, entries } = plumbed(scripted);
    expect(await streamErrors(model)).toHaveLength(1);
    // Tokens unknown: 0 booked, a lower bound; the per-call price is still paid: 0.001.
    expect(entries.map(booking)).toEqual([['failed', false, 1, 0, 0]]);
    expect(entries[0]!.cost).toBeCloseTo(0.001, 12);
  });

  it('books nothing for a stream that failed before any output or usage', async () => {
    const { scripted } = streamingModel([
      { type: 'stream-start', warnings: [] },
      { type: 'error', error: new Error('overloaded') },
    ]);
    const { model, entries } = plumbed(scripted);
    expect(await streamErrors(model)).toHaveLength(1);
    expect(entries).toEqual([]);
  });

  it('books a stream that broke off after it opened (a connection reset), with or without text, as failed with unreported usage', async () => {
    // Old: booked only when text had arrived; a reset while the model was still thinking (hidden
    // reasoning is billed but not streamed) was not booked at all.
    for (const text of [[], ['partial']]) {
      const scripted = new ScriptedModel({ replies: () => 'unused' });
      scripted.doStream = async () => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            for (const delta of text) {
              controller.enqueue({ type: 'text-start', id: '1' });
              controller.enqueue({ type: 'text-delta', id: '1', delta });
            }
            setTimeout(() => controller.error(new Error('read ECONNRESET')), 1);
          },
        }),
      });
      const { model, entries } = plumbed(scripted);
      const errors = await streamErrors(model);
      expect(errors.length).toBeGreaterThan(0);
      expect(String(errors[0])).toMatch(/ECONNRESET/);
      // Tokens unknown: 0 booked, a lower bound; the per-call price is still paid: 0.001.
      expect(entries.map(booking)).toEqual([['failed', false, 1, 0, 0]]);
      expect(entries[0]!.cost).toBeCloseTo(0.001, 12);
    }
  });

  it('books a stream its reader cancelled after text arrived, as failed with unreported usage', async () => {
    const scripted = new ScriptedModel({ replies: () => 'unused' });
    scripted.doStream = async () => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: '1' });
          controller.enqueue({ type: 'text-delta', id: '1', delta: 'partial' });
        },
      }),
    });
    const { model, entries } = plumbed(scripted);
    const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    const reader = stream.getReader();
    for (let index = 0; index < 3; index++) await reader.read();
    await reader.cancel('enough');
    expect(entries.map(booking)).toEqual([['failed', false, 1, 0, 0]]);
  });

  it('books a stream stopped by maxStreamOutputChars, and its error counts every attempt', async () => {
    const { scripted, opened } = streamingModel(
      [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: '1' },
        ...Array.from({ length: 5 }, (): LanguageModelV3StreamPart => ({ type: 'text-delta', id: '1', delta: 'abcd' })),
        finish(10, 5),
      ],
      [new AttemptTimeoutError(50), new AttemptTimeoutError(50)],
    );
    const { model, entries } = plumbed(scripted, {
      maxStreamOutputChars: 10,
      retry: { maxRetries: 2, sleep: async () => {} },
    });
    const errors = await streamErrors(model);
    expect(opened()).toBe(3);
    expect(errors).toHaveLength(1);
    const error = errors[0] as StreamLimitError;
    expect(error).toBeInstanceOf(StreamLimitError);
    // Old: attempts 1, although the stream opened on the third attempt.
    expect([error.limit, error.attempts]).toEqual(['maxStreamOutputChars', 3]);
    expect(error.message).toMatch(/after 3 attempts/);
    // Two opening attempts timed out (maybe billed, usage unknown), the third was cut short.
    expect(entries.map(booking)).toEqual([['failed', false, 3, 0, 0]]);
  });

  it('reports the attempts of a stream that went idle after a retried opening', async () => {
    // The first opening times out; the second opens, sends one delta, then falls silent.
    const scripted = new ScriptedModel({ replies: () => 'unused' });
    let opened = 0;
    scripted.doStream = async () => {
      opened += 1;
      if (opened === 1) throw new AttemptTimeoutError(60);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: '1' });
            controller.enqueue({ type: 'text-delta', id: '1', delta: 'thinking' });
          },
        }),
      };
    };
    const { model, entries } = plumbed(scripted, { timeoutMs: 60, retry: { maxRetries: 1, sleep: async () => {} } });
    const errors = await streamErrors(model);
    expect(errors).toHaveLength(1);
    const error = errors[0] as ProviderError;
    // Old: a bare AttemptTimeoutError, which says nothing of the model or the attempts.
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.reason, error.attempts]).toEqual(['timeout', 2]);
    expect(error.message).toMatch(
      /^scripted model "scripted-model" stream failed after 2 attempts \(last: timed out after 60 ms waiting for the next part\)/,
    );
    expect(error.cause).toBeInstanceOf(AttemptTimeoutError);
    expect(entries.map(booking)).toEqual([['failed', false, 2, 0, 0]]);
  });
});

describe('ledger: failed generate calls that may have been billed', () => {
  it('books a malformed reply (the provider answered 200) as failed with unreported usage', async () => {
    const malformed = Object.assign(new Error('Invalid JSON response'), { name: 'AI_JSONParseError' });
    const { model, entries } = plumbed(new ScriptedModel({ replies: [{ error: malformed }] }));
    const error = await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch((caught: unknown) => caught);
    expect((error as ProviderError).reason).toBe('malformed');
    // Old: nothing booked.
    expect(entries.map(booking)).toEqual([['failed', false, 1, 0, 0]]);
  });

  it('books a call whose every attempt timed out once, with the real number of attempts', async () => {
    const { model, entries } = plumbed(new ScriptedModel({ replies: () => ({ text: 'late', delayMs: 200 }) }), {
      timeoutMs: 20,
      retry: { maxRetries: 2, sleep: async () => {} },
    });
    const error = (await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    )) as ProviderError;
    expect([error.reason, error.attempts]).toEqual(['timeout', 3]);
    expect(entries.map(booking)).toEqual([['failed', false, 3, 0, 0]]);
  });

  it('marks a success after a timed-out attempt as a lower bound, with its attempts', async () => {
    const { model, entries } = plumbed(
      new ScriptedModel({
        replies: [
          { text: 'late', delayMs: 200 },
          { text: 'ok', usage: { inputTokens: 7, outputTokens: 3 } },
        ],
      }),
      { timeoutMs: 50, retry: { maxRetries: 1, sleep: async () => {} } },
    );
    expect((await generateText({ model, prompt: 'hi', maxRetries: 0 })).text).toBe('ok');
    // The first attempt may have been billed without a report: 7 / 3 is what is known.
    expect(entries.map(booking)).toEqual([['ok', false, 2, 7, 3]]);
  });

  it('books nothing for calls refused with an HTTP error (nothing generated, nothing billed)', async () => {
    const { APICallError } = await import('@ai-sdk/provider');
    const refused = () =>
      new APICallError({ message: 'Bad gateway', url: 'http://x', requestBodyValues: {}, statusCode: 502 });
    const { model, entries } = plumbed(new ScriptedModel({ replies: () => ({ error: refused() }) }), {
      retry: { maxRetries: 1, sleep: async () => {} },
    });
    const error = (await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    )) as ProviderError;
    expect(error.attempts).toBe(2);
    expect(entries).toEqual([]);
  });

  it('books a call the caller aborted while its request was in flight', async () => {
    const { model, entries } = plumbed(new ScriptedModel({ replies: () => ({ text: 'slow', delayMs: 500 }) }), {
      timeoutMs: 10_000,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 30);
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0, abortSignal: controller.signal })).rejects.toThrow(
      /caller gave up/,
    );
    expect(entries.map(booking)).toEqual([['failed', false, 1, 0, 0]]);
  });
});

describe('ledger: usage the provider did not report', () => {
  it('tells a call without reported usage from a true zero', async () => {
    const scripted = new ScriptedModel({ replies: ['a', 'b'] });
    const original = scripted.doGenerate.bind(scripted);
    let call = 0;
    scripted.doGenerate = async (options) => {
      call += 1;
      const result = await original(options);
      return call === 1 ? { ...result, usage: usage(undefined, undefined) } : { ...result, usage: usage(0, 0) };
    };
    const { model, entries } = plumbed(scripted);
    await generateText({ model, prompt: 'one', maxRetries: 0 });
    await generateText({ model, prompt: 'two', maxRetries: 0 });
    // Old: both rows read [ok, 0, 0] and could not be told apart.
    expect(entries.map(booking)).toEqual([
      ['ok', false, 1, 0, 0],
      ['ok', true, 1, 0, 0],
    ]);
  });

  it('keeps status, unreported usage and attempts in the store and counts them in its totals', async () => {
    const store = openStore({ path: ':memory:', now: () => 5 });
    try {
      const scripted = new ScriptedModel({
        replies: [{ error: Object.assign(new Error('Invalid JSON response'), { name: 'AI_JSONParseError' }) }, 'fine'],
      });
      const model = wrapWithPlumbing({
        model: scripted,
        ledger: store,
        price,
        context: { runId: 'r' },
        limiter: createProviderLimiter(),
        retry: { maxRetries: 0 },
      });
      await generateText({ model, prompt: 'one', maxRetries: 0 }).catch(() => {});
      await generateText({ model, prompt: 'two', maxRetries: 0 });
      expect(
        store.usageEntries().map((entry) => {
          const extra = entry as typeof entry & {
            status: string;
            usageReported: boolean | null;
            attempts: number | null;
          };
          return [extra.status, extra.usageReported, extra.attempts, entry.inputTokens, entry.outputTokens];
        }),
      ).toEqual([
        ['failed', false, 1, 0, 0],
        ['ok', true, 1, 10, 5],
      ]);
      // Two calls: one failed with unreported usage; cost 0.001 + (10 × 2 + 5 × 8) / 10⁶ + 0.001 = 0.00206.
      const [row] = store.usageSummary({ by: 'run' });
      expect(row).toMatchObject({ key: 'r', calls: 2, failedCalls: 1, unreportedUsageCalls: 1, inputTokens: 10 });
      expect(row!.cost).toBeCloseTo(0.00206, 12);
    } finally {
      store.close();
    }
  });
});

describe('ledger: a ledger that throws while booking a failed call', () => {
  const brokenLedger = {
    recordUsage: () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    },
  };

  it('fails a generate call with a StoreError that holds both the call error and the ledger error', async () => {
    // Old: the ledger's error replaced the call's, so why the call failed was lost.
    const malformed = Object.assign(new Error('Invalid JSON response'), { name: 'AI_JSONParseError' });
    const { model } = plumbed(new ScriptedModel({ replies: [{ error: malformed }] }), { ledger: brokenLedger });
    const error = (await generateText({ model, prompt: 'hi', maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    )) as StoreError;
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toMatch(/SQLITE_FULL/);
    expect(error.message).toMatch(/Invalid JSON response/);
    const both = (error.cause as AggregateError).errors;
    expect(both.map((item: unknown) => (item as Error).constructor.name)).toEqual(['ProviderError', 'Error']);
    expect((both[0] as ProviderError).reason).toBe('malformed');
  });

  it('fails a stream that broke off with a StoreError that holds both, after the error part', async () => {
    // The reader sees the stream's own error first (an error part), then the read fails with the
    // ledger's StoreError; `text` rejects with it. Before 9c1b78b the ledger's error alone ended the stream.
    const { scripted } = streamingModel([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: '1' },
      { type: 'text-delta', id: '1', delta: 'half' },
      { type: 'error', error: new Error('upstream reset') },
    ]);
    const { model } = plumbed(scripted, { ledger: brokenLedger });
    const result = streamText({ model, prompt: 'hi', maxRetries: 0, onError: () => {} });
    const seen: string[] = [];
    const thrown = await (async () => {
      for await (const part of result.fullStream) seen.push(part.type);
    })().catch((caught: unknown) => caught);
    expect(seen).toContain('error');
    expect(seen).not.toContain('finish');
    expect(thrown).toBeInstanceOf(StoreError);
    const error = thrown as StoreError;
    expect(error.message).toMatch(/SQLITE_FULL/);
    expect(error.message).toMatch(/upstream reset/);
    const both = (error.cause as AggregateError).errors;
    expect(both.map((item: unknown) => (item as Error).constructor.name)).toEqual(['ProviderError', 'Error']);
    await expect(result.text).rejects.toBeInstanceOf(StoreError);
  });
});
