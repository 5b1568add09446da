import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../testing/scripted-model.js';
import { wrapWithPlumbing } from './create-language-model.js';
import { createStreamRedactor } from './_redact-stream.js';
import { createRedactor } from './_secrets.js';
import { createProviderLimiter } from './semaphore.js';

const key = 'sk-SENTINEL-0123456789abcdef';
const redact = createRedactor([key]);

/** An OpenAI-style raw chunk carrying `content` as its delta. */
const rawChunk = (content: string, index = 0): LanguageModelV3StreamPart => ({
  type: 'raw',
  rawValue: {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    choices: [{ index, delta: { content }, finish_reason: null }],
  },
});

async function redacted(parts: readonly LanguageModelV3StreamPart[]): Promise<LanguageModelV3StreamPart[]> {
  const source = new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const out: LanguageModelV3StreamPart[] = [];
  const reader = source.pipeThrough(createStreamRedactor([key], redact)).getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return out;
    out.push(next.value);
  }
}

/** The content deltas of the raw chunks, in order, joined. */
const rawContent = (parts: readonly LanguageModelV3StreamPart[]) =>
  parts
    .filter((part) => part.type === 'raw')
    .map((part) => (part.rawValue as { choices: Array<{ delta: { content: string } }> }).choices[0]!.delta.content)
    .join('');

describe('stream redactor: raw chunks', () => {
  it('redacts a key split across two raw chunks', async () => {
    const parts = await redacted([
      rawChunk('Your key is sk-SENTINEL-01'),
      rawChunk('23456789abcdef. Done.'),
      {
        type: 'finish',
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        finishReason: { unified: 'stop', raw: 'stop' },
      },
    ]);
    // Old: each chunk was scrubbed alone, so the two halves went out as they came.
    expect(rawContent(parts)).toBe('Your key is [redacted]. Done.');
    expect(JSON.stringify(parts)).not.toContain('sk-SENTINEL-01');
    // Both chunks still go out, in order, before the finish part; their other fields untouched.
    expect(parts.map((part) => part.type)).toEqual(['raw', 'raw', 'finish']);
    expect((parts[0] as { rawValue: { id: string } }).rawValue.id).toBe('chatcmpl-1');
  });

  it('redacts a key spread over many one-character raw chunks', async () => {
    const parts = await redacted([
      rawChunk('key: '),
      ...[...key].map((character) => rawChunk(character)),
      rawChunk('!'),
    ]);
    expect(rawContent(parts)).toBe('key: [redacted]!');
    expect(parts.filter((part) => part.type === 'raw')).toHaveLength(2 + key.length);
  });

  it('releases a held raw chunk unchanged when the next one shows it was no key', async () => {
    const parts = await redacted([rawChunk('ends with sk-SENT'), rawChunk('ence, not a key')]);
    expect(rawContent(parts)).toBe('ends with sk-SENTence, not a key');
  });

  it('releases what it holds at the end of the stream', async () => {
    const parts = await redacted([rawChunk('trailing sk-SENTINEL')]);
    expect(rawContent(parts)).toBe('trailing sk-SENTINEL');
  });
});

describe('plumbed model: raw chunks the caller asked for', () => {
  it('hands the caller raw chunks with a split key redacted', async () => {
    const scripted = new ScriptedModel({ replies: () => 'unused' });
    scripted.doStream = async () => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue(rawChunk('echo sk-SENTINEL-0123'));
          controller.enqueue(rawChunk('456789abcdef'));
          controller.close();
        },
      }),
    });
    const model = wrapWithPlumbing({ model: scripted, secrets: [key], limiter: createProviderLimiter() });
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      includeRawChunks: true,
    });
    const parts: LanguageModelV3StreamPart[] = [];
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
    expect(rawContent(parts)).toBe('echo [redacted]');
    expect(JSON.stringify(parts)).not.toContain('sk-SENTINEL-0123');
  });
});
