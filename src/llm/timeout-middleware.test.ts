import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { wrapWithPlumbing } from './create-language-model.js';
import type { LlmUsageEntry } from './ledger-middleware.js';
import { createProviderLimiter, endpointKey } from './semaphore.js';
import { StreamLimitError } from './timeout-middleware.js';

/** A provider that streams `delta` every `everyMs` and never finishes; `cancelled` tells whether its request was dropped. */
function endlessModel(delta: string, everyMs: number) {
  const state = { cancelled: false, sent: 0 };
  const scripted = new ScriptedModel({ replies: () => 'unused' });
  scripted.doStream = async () => ({
    stream: new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: '1' });
      },
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, everyMs));
        state.sent += 1;
        controller.enqueue({ type: 'text-delta', id: '1', delta });
      },
      cancel() {
        state.cancelled = true;
      },
    }),
  });
  return { scripted, state };
}

describe('timeout middleware: caps on an endless stream', () => {
  it('stops a stream past maxStreamOutputChars with a StreamLimitError, frees its slot and books it as failed', {
    timeout: 5000,
  }, async () => {
    const { scripted, state } = endlessModel('abcdefghij', 1);
    const limiter = createProviderLimiter();
    const entries: LlmUsageEntry[] = [];
    const model = wrapWithPlumbing({
      model: scripted,
      limiter,
      maxConcurrency: 1,
      ledger: { recordUsage: (entry) => entries.push(entry) },
      maxStreamOutputChars: 100,
    });
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: 'go',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    const text = await Promise.resolve(result.text).catch(() => '');
    // Ten deltas of 10 characters reach the cap of 100 exactly; the eleventh would pass it and is not delivered.
    expect(text).toBe('abcdefghij'.repeat(10));
    expect(errors).toHaveLength(1);
    const error = errors[0] as StreamLimitError;
    expect(error).toBeInstanceOf(StreamLimitError);
    expect([error.limit, error.value, error.reason]).toEqual(['maxStreamOutputChars', 100, 'incomplete']);
    expect(error.message).toMatch(/more than maxStreamOutputChars = 100 characters.*raise maxStreamOutputChars/);
    expect(state.cancelled).toBe(true);
    expect(limiter.semaphore(endpointKey('scripted', undefined)).active).toBe(0);
    // Old: nothing booked, although 100 characters were generated (and billed). The stream reported no usage.
    expect(entries.map((entry) => [entry.status, entry.usageReported, entry.inputTokens, entry.outputTokens])).toEqual([
      ['failed', false, 0, 0],
    ]);
  });

  it('stops a stream that runs past maxStreamDurationMs with a StreamLimitError', { timeout: 5000 }, async () => {
    const { scripted, state } = endlessModel('x', 5);
    const limiter = createProviderLimiter();
    const model = wrapWithPlumbing({ model: scripted, limiter, maxStreamDurationMs: 100 });
    const errors: unknown[] = [];
    const started = Date.now();
    const result = streamText({
      model,
      prompt: 'go',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    const text = await Promise.resolve(result.text).catch(() => '');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(text.length).toBeGreaterThan(0);
    const error = errors[0] as StreamLimitError;
    expect(error).toBeInstanceOf(StreamLimitError);
    expect([error.limit, error.value, error.reason]).toEqual(['maxStreamDurationMs', 100, 'timeout']);
    expect(error.message).toMatch(/ran longer than maxStreamDurationMs = 100 ms.*raise maxStreamDurationMs/);
    expect(state.cancelled).toBe(true);
    expect(limiter.semaphore(endpointKey('scripted', undefined)).active).toBe(0);
  });

  it.each([
    ['maxStreamDurationMs', { maxStreamDurationMs: 0 }],
    ['maxStreamDurationMs', { maxStreamDurationMs: 1.5 }],
    ['maxStreamOutputChars', { maxStreamOutputChars: -1 }],
    ['maxStreamOutputChars', { maxStreamOutputChars: Number.NaN }],
  ])('refuses a bad %s at construction', (parameter, limits) => {
    const build = () => wrapWithPlumbing({ model: new ScriptedModel({ replies: [] }), ...limits });
    expect(build).toThrow(InvalidArgumentError);
    expect(build).toThrow(new RegExp(`^${parameter} must be an integer`));
  });
});
