import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../core/errors.js';
import { createOpenAICompatibleEmbedder } from './embedder.js';

// A local server speaking the OpenAI embeddings protocol: text i gets the vector [len, i, 1].
let server: Server;
let baseURL: string;
const requests: Array<{ url: string; authorization: string | undefined; body: { input: string[]; model: string } }> =
  [];
let mode: 'ok' | 'wrong-dimension' | 'error' | 'echo-auth' = 'ok';

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => resolve(text));
  });
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as { input: string[]; model: string };
    requests.push({ url: request.url ?? '', authorization: request.headers.authorization, body });
    if (mode === 'error') {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'boom' } }));
      return;
    }
    if (mode === 'echo-auth') {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `invalid key: ${String(request.headers.authorization)}` } }));
      return;
    }
    const data = body.input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: mode === 'wrong-dimension' ? [1, 2] : [text.length, index, 1],
    }));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 3, total_tokens: 3 } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('createOpenAICompatibleEmbedder (real AI SDK client against a local endpoint)', () => {
  it('posts the texts to /embeddings and returns Float32Array vectors in order', async () => {
    mode = 'ok';
    process.env.REPUTE_TEST_EMBED_KEY = 'sk-test-123';
    const embedder = createOpenAICompatibleEmbedder({
      baseURL,
      model: 'nomic-embed-text',
      dimensions: 3,
      apiKeyEnv: 'REPUTE_TEST_EMBED_KEY',
      maxRetries: 0,
    });
    const vectors = await embedder.embed(['abc', 'hello']);
    expect(vectors.map((vector) => Array.from(vector))).toEqual([
      [3, 0, 1],
      [5, 1, 1],
    ]);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    const last = requests.at(-1)!;
    expect(last.url).toBe('/v1/embeddings');
    expect(last.body).toMatchObject({ model: 'nomic-embed-text', input: ['abc', 'hello'] });
    expect(last.authorization).toBe('Bearer sk-test-123');
    expect(embedder.name).toBe('openai-compatible:nomic-embed-text');
  });

  it('refuses vectors of the wrong length with a ProviderError that says what to set', async () => {
    mode = 'wrong-dimension';
    const embedder = createOpenAICompatibleEmbedder({ baseURL, model: 'm', dimensions: 3, maxRetries: 0 });
    await expect(embedder.embed(['x'])).rejects.toThrow(/returned a 2-dimensional vector for texts\[0\], expected 3/);
  });

  it('wraps an HTTP 500 in a ProviderError with the status and the attempt count', async () => {
    mode = 'error';
    const embedder = createOpenAICompatibleEmbedder({ baseURL, model: 'm', dimensions: 3, maxRetries: 1 });
    const before = requests.length;
    const error = await embedder.embed(['x']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(500);
    expect((error as ProviderError).attempts).toBe(2);
    expect(requests.length - before).toBe(2);
    expect((error as Error).message).not.toContain('sk-test');
  });

  it('keeps the API key out of the error when the server echoes it, and counts one attempt for a 401', async () => {
    mode = 'echo-auth';
    process.env.REPUTE_TEST_EMBED_KEY = 'sk-EMBED-SENTINEL-77';
    const embedder = createOpenAICompatibleEmbedder({
      baseURL,
      model: 'm',
      dimensions: 3,
      apiKeyEnv: 'REPUTE_TEST_EMBED_KEY',
      maxRetries: 2,
    });
    const before = requests.length;
    const error = (await embedder.embed(['x']).catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.status, error.attempts, requests.length - before]).toEqual([401, 1, 1]);
    expect(error.message).toContain('invalid key: Bearer [redacted]');
    expect(`${error.message} ${String(error.stack)}`).not.toContain('sk-EMBED-SENTINEL-77');
    // The cause is kept as a redacted copy (it was dropped): the status and the server's words stay.
    const cause = error.cause as Error & { statusCode?: number; responseBody?: string };
    expect(cause).toBeInstanceOf(Error);
    expect([cause.statusCode, cause.responseBody]).toEqual([
      401,
      JSON.stringify({ error: { message: 'invalid key: Bearer [redacted]' } }),
    ]);
    expect(JSON.stringify(cause, Object.getOwnPropertyNames(cause))).not.toContain('sk-EMBED-SENTINEL-77');
  });

  it('refuses a missing API key variable before any request', () => {
    delete process.env.REPUTE_TEST_MISSING_KEY;
    expect(() =>
      createOpenAICompatibleEmbedder({ baseURL, model: 'm', dimensions: 3, apiKeyEnv: 'REPUTE_TEST_MISSING_KEY' }),
    ).toThrow(/REPUTE_TEST_MISSING_KEY is not set/);
  });
});
