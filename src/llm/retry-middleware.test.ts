import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../core/errors.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import type { ResponseCache } from './cache-middleware.js';
import { wrapWithPlumbing } from './create-language-model.js';
import { createProviderLimiter } from './semaphore.js';

const key = 'sk-SENTINEL-0123456789abcdef'; // 28 characters, so scrubbed from replies (16 or more)

/** A scripted model whose stream is one text part made of `deltas`. */
function deltaModel(deltas: readonly string[]): ScriptedModel {
  const scripted = new ScriptedModel({ replies: () => 'unused' });
  const parts: LanguageModelV3StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...deltas.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    {
      type: 'finish',
      usage: {
        inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 4, text: 4, reasoning: undefined },
      },
      finishReason: { unified: 'stop', raw: 'stop' },
    },
  ];
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

async function readParts(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV3StreamPart>) parts.push(part);
  return parts;
}

describe('retry middleware: keys in streamed replies', () => {
  it('redacts a key split across two deltas before the answer and the cache see it', async () => {
    const stored: string[] = [];
    const cache: ResponseCache = {
      getCachedResponse: () => undefined,
      putCachedResponse: ({ value }) => {
        stored.push(JSON.stringify(value));
      },
    };
    const model = wrapWithPlumbing({
      model: deltaModel(['Your key is sk-SENTINEL-012', '3456789abcdef. Done.']),
      secrets: [key],
      cache,
      limiter: createProviderLimiter(),
    });
    expect(await streamText({ model, prompt: 'echo', maxRetries: 0 }).text).toBe('Your key is [redacted]. Done.');
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain('sk-SENTINEL');
    expect(stored[0]).not.toContain('3456789abcdef');
    expect(stored[0]).toContain('[redacted]');
  });

  it('holds back only the tail that could start a key, and releases it at the end of the text', async () => {
    const model = wrapWithPlumbing({
      model: deltaModel([
        'Hello ',
        'world, the key: sk-SENT',
        'INEL-0123456789abcdef',
        ' and sk-',
        'nothing.',
        ' sk-SEN',
      ]),
      secrets: [key],
      limiter: createProviderLimiter(),
    });
    const parts = await readParts((await model.doStream({ prompt: [] })).stream);
    // 'Hello ': no tail starts the key. 'world, the key: sk-SENT': 'sk-SENT' starts it and waits.
    // 'sk-SENT' + 'INEL-0123456789abcdef' is the key. ' and sk-' holds 'sk-', which 'nothing.' shows is no key.
    // ' sk-SEN' holds 'sk-SEN' until the text ends, then releases it just before text-end.
    expect(parts.filter((part) => part.type === 'text-delta' || part.type === 'text-end')).toEqual([
      { type: 'text-delta', id: 't', delta: 'Hello ' },
      { type: 'text-delta', id: 't', delta: 'world, the key: ' },
      { type: 'text-delta', id: 't', delta: '[redacted]' },
      { type: 'text-delta', id: 't', delta: ' and ' },
      { type: 'text-delta', id: 't', delta: 'sk-nothing.' },
      { type: 'text-delta', id: 't', delta: ' ' },
      { type: 'text-delta', id: 't', delta: 'sk-SEN' },
      { type: 'text-end', id: 't' },
    ]);
  });
});

describe('retry middleware: what errors keep and what they quote', () => {
  const ask = (model: ReturnType<typeof wrapWithPlumbing>) =>
    generateText({ model, prompt: 'hi', maxRetries: 0 }).then(
      () => {
        throw new Error('expected the call to fail');
      },
      (caught: unknown) => caught as ProviderError,
    );

  /** Every message and JSON along an error's cause chain. */
  const chainText = (error: unknown): string => {
    const texts: string[] = [];
    for (let current = error; current !== undefined && current !== null; current = (current as Error).cause)
      texts.push(String((current as Error).message), String((current as Error).stack), JSON.stringify(current));
    return texts.join(' ');
  };

  it('keeps a key quoted deep in the cause chain out of the error it throws', async () => {
    // A fetch failure whose own cause quotes the Authorization header (as some proxies and agents do).
    const failure = new TypeError('fetch failed', { cause: new Error(`proxy refused "Authorization: Bearer ${key}"`) });
    const model = wrapWithPlumbing({
      model: new ScriptedModel({ replies: [{ error: failure }] }),
      secrets: [key],
      limiter: createProviderLimiter(),
      retry: { maxRetries: 0 },
    });
    const error = await ask(model);
    expect(error).toBeInstanceOf(ProviderError);
    // Old: the cause was kept as it was (its message holds no key), and the key sat in error.cause.cause.
    expect(chainText(error)).not.toContain(key);
    // A redacted copy stands in for the cause, so the user still sees what failed.
    expect(error.cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });

  it('quotes a long provider message whole, up to 1000 characters', async () => {
    const message = `This model's maximum context length is 128000 tokens. ${'However, your messages were long. '.repeat(6)}Please reduce the length of the messages to 120000 tokens.`;
    const refused = new APICallError({ message, url: 'http://x', requestBodyValues: {}, statusCode: 400 });
    const model = wrapWithPlumbing({
      model: new ScriptedModel({ replies: [{ error: refused }] }),
      limiter: createProviderLimiter(),
      retry: { maxRetries: 0 },
    });
    const error = await ask(model);
    expect(message.length).toBeGreaterThan(200);
    // Old: cut at 200 characters, losing the limit to reduce to.
    expect(error.message).toContain('Please reduce the length of the messages to 120000 tokens.');
  });

  it('says how much of a very long or multi-line message was left out, and where it is', async () => {
    const long = new APICallError({
      message: 'x'.repeat(1500),
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 400,
    });
    const lines = new APICallError({
      message: 'first line\nsecond line',
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 400,
    });
    const make = (error: unknown) =>
      wrapWithPlumbing({
        model: new ScriptedModel({ replies: [{ error }] }),
        limiter: createProviderLimiter(),
        retry: { maxRetries: 0 },
      });
    // 1500 − 1000 = 500 characters left out; 'second line' is 11 characters plus the line break: 12.
    expect((await ask(make(long))).message).toContain(`${'x'.repeat(1000)}… (500 more characters in error.cause)`);
    expect((await ask(make(lines))).message).toContain(
      'HTTP 400: first line (… 12 more characters on further lines in error.cause)',
    );
  });
});

describe('retry middleware: a stream that errors instead of sending an error part', () => {
  it('turns it into an error part naming the attempts, with the key removed, and the ledger books it', async () => {
    const scripted = new ScriptedModel({ replies: () => 'unused' });
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'partial' },
    ];
    scripted.doStream = async () => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        // One part per read, then the read that fails: the parts before it reach the reader.
        pull(controller) {
          const part = parts.shift();
          if (part === undefined)
            controller.error(new Error(`socket closed while sending "Authorization: Bearer ${key}"`));
          else controller.enqueue(part);
        },
      }),
    });
    const entries: Array<{ status: string; usageReported: boolean }> = [];
    const model = wrapWithPlumbing({
      model: scripted,
      secrets: [key],
      ledger: { recordUsage: (entry) => entries.push(entry) },
      limiter: createProviderLimiter(),
    });
    const errors: unknown[] = [];
    await streamText({
      model,
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    }).consumeStream();
    expect(errors).toHaveLength(1);
    const error = errors[0] as ProviderError;
    // Old: the bare socket error, key and all, and nothing booked.
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(
      /^scripted model "scripted-model" stream failed after 1 attempt \(last: the stream broke off \(Error\): socket closed while sending "Authorization: Bearer \[redacted\]"\)/,
    );
    expect(
      `${error.message} ${String((error.cause as Error).message)} ${String((error.cause as Error).stack)}`,
    ).not.toContain(key);
    expect(entries.map((entry) => [entry.status, entry.usageReported])).toEqual([['failed', false]]);
  });
});
