import { afterEach, describe, expect, it, vi } from 'vitest';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from './openai-compatible-server.js';

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (body: unknown) =>
  fetch(`${server!.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('startOpenAICompatibleServer', () => {
  it('serves scripted chat completions on 127.0.0.1 and records requests', async () => {
    server = await startOpenAICompatibleServer({
      script: ['hello', { type: 'rate-limit', retryAfter: '2' }, { type: 'error', status: 503 }],
    });
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const ok = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as {
      choices: Array<{ message: { content: string } }>;
      usage: { total_tokens: number };
    };
    expect(body.choices[0]!.message.content).toBe('hello');
    // Default usage 10 + 5.
    expect(body.usage.total_tokens).toBe(15);
    const limited = await post({});
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '2']);
    expect((await post({})).status).toBe(503);
    const exhausted = await post({});
    expect(exhausted.status).toBe(400);
    expect(await exhausted.text()).toMatch(/script exhausted: request 4 but only 3 step\(s\) scripted/);
    expect(server.requestCount).toBe(4);
    expect(server.requests[0]!.body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const missing = await fetch(`${server.baseURL}/models`);
    expect(missing.status).toBe(404);
    expect(server.requestCount).toBe(4);
  });

  it('streams SSE chunks when asked and counts requests in flight', async () => {
    server = await startOpenAICompatibleServer({ script: () => ({ type: 'reply', text: 'chunked', delayMs: 50 }) });
    const responses = await Promise.all([post({ stream: true }), post({ stream: true }), post({})]);
    expect(server.maxInFlight).toBe(3);
    const text = await responses[0]!.text();
    expect(text).toContain('"content":"chunked"');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(server.inFlight).toBe(0);
  });

  it('closes even with a hung request open', async () => {
    server = await startOpenAICompatibleServer({ script: [{ type: 'hang' }] });
    const pending = post({}).catch((error: unknown) => error);
    // Wait for the request to arrive rather than sleeping a fixed time (slow under load).
    await vi.waitFor(() => expect(server?.inFlight).toBe(1), { timeout: 10_000, interval: 5 });
    await server.close();
    server = undefined;
    expect(await pending).toBeInstanceOf(Error);
  });
});
