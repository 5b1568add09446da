import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
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
