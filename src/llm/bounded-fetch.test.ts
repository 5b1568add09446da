import { generateText, streamText } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, ProviderError } from '../core/errors.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../testing/openai-compatible-server.js';
import { createBoundedFetch, ResponseTooLargeError } from './bounded-fetch.js';
import { createLanguageModel } from './create-language-model.js';
import { createProviderLimiter } from './semaphore.js';

const servers: OpenAICompatibleServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function server(script: Parameters<typeof startOpenAICompatibleServer>[0]['script']) {
  const started = await startOpenAICompatibleServer({ script });
  servers.push(started);
  return started;
}

const model = (baseURL: string, maxResponseBytes?: number) =>
  createLanguageModel({
    provider: 'openai-compatible',
    model: 'm',
    baseURL,
    limiter: createProviderLimiter(),
    retry: { maxRetries: 2, sleep: async () => undefined },
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
  });

describe('createBoundedFetch', () => {
  it('passes bodies up to the limit through unchanged', async () => {
    const body = 'x'.repeat(1000);
    const fetch = createBoundedFetch({ maxResponseBytes: 1000, fetch: async () => new Response(body) });
    expect(await (await fetch('http://unused')).text()).toBe(body);
  });

  it('ends a body that streams past the limit with ResponseTooLargeError, having read at most one chunk more', async () => {
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(100));
      },
    });
    const fetch = createBoundedFetch({ maxResponseBytes: 250, fetch: async () => new Response(source) });
    const error = await (await fetch('http://unused')).text().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    // 100 + 100 + 100 = 300 > 250: the third chunk trips the limit; the source is cancelled, not drained.
    expect((error as ResponseTooLargeError).received).toBe(300);
    expect(pulled).toBeLessThanOrEqual(4);
  });

  it('keeps a status the Response constructor refuses (999) and the url', async () => {
    const original = new Response('{}', { status: 200 });
    Object.defineProperty(original, 'status', { value: 999 });
    Object.defineProperty(original, 'ok', { value: false });
    Object.defineProperty(original, 'url', { value: 'http://x.example/v1' });
    const response = await createBoundedFetch({ fetch: async () => original })('http://x.example/v1');
    expect([response.status, response.ok, response.url, await response.text()]).toEqual([
      999,
      false,
      'http://x.example/v1',
      '{}',
    ]);
  });

  it('refuses an announced Content-Length over the limit before reading, and a bad limit at construction', async () => {
    const fetch = createBoundedFetch({
      maxResponseBytes: 10,
      fetch: async () => new Response('x'.repeat(11), { headers: { 'content-length': '11' } }),
    });
    await expect(fetch('http://unused')).rejects.toThrow(/announced 11 bytes, over the limit of 10 bytes/);
    expect(() => createBoundedFetch({ maxResponseBytes: 0 })).toThrow(InvalidArgumentError);
  });
});

describe('createLanguageModel with maxResponseBytes', () => {
  it('fails a 4 MiB reply at the default 1 MiB as malformed, without retrying, for generate and stream', async () => {
    const endpoint = await server(() => ({ type: 'huge', bytes: 4 * 1_048_576 }));
    const error = await generateText({ model: model(endpoint.baseURL), prompt: 'hi', maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('malformed');
    expect((error as ProviderError).message).toMatch(/reply too large: over 1048576 bytes \(maxResponseBytes\)/);
    expect(endpoint.requestCount).toBe(1);
    let streamError: unknown;
    const result = streamText({
      model: model(endpoint.baseURL),
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error: caught }) => {
        streamError = caught;
      },
    });
    await result.consumeStream();
    expect(String((streamError as Error | undefined)?.message)).toMatch(/reply too large/);
    expect(endpoint.requestCount).toBe(2);
  }, 30_000);

  it('reads a reply under a raised per-agent limit, and refuses an announced size at once', async () => {
    const endpoint = await server(() => ({ type: 'huge', bytes: 2 * 1_048_576, announce: true }));
    const { text } = await generateText({ model: model(endpoint.baseURL, 3 * 1_048_576), prompt: 'hi', maxRetries: 0 });
    expect(text.length).toBeGreaterThan(2 * 1_048_576 - 300);
    const error = await generateText({ model: model(endpoint.baseURL), prompt: 'hi', maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    );
    expect((error as ProviderError).message).toMatch(/reply too large: over 1048576 bytes/);
  }, 30_000);
});
