import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateText, streamText } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotFoundError, ProviderError } from '../core/errors.js';
import { createRng } from '../core/rng.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../testing/openai-compatible-server.js';
import { createTestResources } from '../testing/_test-resources.js';
import type { ResponseCache } from './cache-middleware.js';
import { llmCallOptions } from './call-context.js';
import { createLanguageModel, type CreateLanguageModelOptions } from './create-language-model.js';
import { llmCallSpanData, type LlmCallRecord } from './ledger-middleware.js';
import type { RetryEvent } from './retry-middleware.js';
import { createProviderLimiter } from './semaphore.js';

const { serve, memoryStore, closeAll } = createTestResources();
afterEach(closeAll);

/** A bare HTTP server on 127.0.0.1 for replies the scripted test server has no step for. */
async function serveRaw(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ baseURL: string; requestCount: number }> {
  const state = { baseURL: '', requestCount: 0 };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.requestCount += 1;
      handler(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  rawServers.push(server);
  return state;
}
const rawServers: Server[] = [];
afterEach(async () => {
  for (const server of rawServers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
const chunk = (delta: Record<string, unknown>) => ({
  id: 'chatcmpl-raw',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'test-model',
  choices: [{ index: 0, delta, finish_reason: null }],
});

/** A model on the local server whose sleeps are recorded instead of waited. */
function localModel(
  server: Pick<OpenAICompatibleServer, 'baseURL'>,
  overrides: Partial<CreateLanguageModelOptions> = {},
) {
  const sleeps: number[] = [];
  const retries: RetryEvent[] = [];
  const model = createLanguageModel({
    provider: 'openai-compatible',
    model: 'test-model',
    baseURL: server.baseURL,
    limiter: createProviderLimiter(),
    ...overrides,
    retry: {
      initialDelayMs: 100,
      rng: createRng(1),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      onRetry: (event) => retries.push(event),
      ...overrides.retry,
    },
  });
  return { model, sleeps, retries };
}

const ask = (
  model: ReturnType<typeof localModel>['model'],
  prompt = 'What is 2 + 2?',
  extra: Record<string, unknown> = {},
) => generateText({ model, prompt, maxRetries: 0, ...extra });

describe('createLanguageModel against a local OpenAI-compatible server', () => {
  it('answers through the real AI SDK client and keeps Repute tags away from the provider', async () => {
    const server = await serve(['The answer is 4.']);
    const { model } = localModel(server);
    const result = await ask(model, 'What is 2 + 2?', llmCallOptions({ taskId: 't1', act: 'propose' }));
    expect(result.text).toBe('The answer is 4.');
    expect(server.requestCount).toBe(1);
    const body = server.requests[0]!.body as { model: string; messages: Array<{ role: string; content: string }> };
    expect(body.model).toBe('test-model');
    expect(body.messages).toEqual([{ role: 'user', content: 'What is 2 + 2?' }]);
    expect(JSON.stringify(body)).not.toContain('repute');
  });

  it('honours Retry-After in seconds on 429, then succeeds', async () => {
    const server = await serve([{ type: 'rate-limit', retryAfter: '3' }, 'ok']);
    const { model, sleeps, retries } = localModel(server);
    expect((await ask(model)).text).toBe('ok');
    expect(server.requestCount).toBe(2);
    // Retry-After: 3 → exactly 3000 ms, no jitter.
    expect(sleeps).toEqual([3000]);
    expect(retries).toMatchObject([{ attempt: 1, status: 429, fromRetryAfter: true, delayMs: 3000 }]);
  });

  it('honours Retry-After as an HTTP date against the injected clock', async () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    const server = await serve([{ type: 'rate-limit', retryAfter: new Date(now + 7000).toUTCString() }, 'ok']);
    const { model, sleeps } = localModel(server, { retry: { now: () => now } });
    expect((await ask(model)).text).toBe('ok');
    expect(sleeps).toEqual([7000]);
  });

  it('gives up at once when Retry-After exceeds maxRetryAfterMs', async () => {
    const server = await serve([{ type: 'rate-limit', retryAfter: '600' }, 'never']);
    const { model, sleeps } = localModel(server, { retry: { maxRetryAfterMs: 10_000 } });
    const error = await ask(model).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(/asked to wait 600000 ms, more than maxRetryAfterMs = 10000/);
    expect([(error as ProviderError).status, (error as ProviderError).attempts, server.requestCount, sleeps]).toEqual([
      429,
      1,
      1,
      [],
    ]);
  });

  it('retries a 500 with jittered exponential backoff, then succeeds', async () => {
    const server = await serve([{ type: 'error', status: 500 }, { type: 'error', status: 503 }, 'recovered']);
    const { model, sleeps } = localModel(server);
    expect((await ask(model)).text).toBe('recovered');
    expect(server.requestCount).toBe(3);
    // Backoff n = 100 ms × 2^(n−1), shrunk by jitter 0.5: delay = base × (1 − 0.5 u), u from createRng(1).
    const draws = createRng(1);
    const u1 = draws();
    const u2 = draws();
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeCloseTo(100 * (1 - 0.5 * u1), 9);
    expect(sleeps[1]).toBeCloseTo(200 * (1 - 0.5 * u2), 9);
    expect(sleeps[0]).toBeGreaterThanOrEqual(50);
    expect(sleeps[1]).toBeLessThanOrEqual(200);
  });

  it('honours Retry-After on a 503 too', async () => {
    const server = await serve([{ type: 'error', status: 503, headers: { 'retry-after': '1' } }, 'ok']);
    const { model, sleeps } = localModel(server);
    expect((await ask(model)).text).toBe('ok');
    expect(sleeps).toEqual([1000]);
  });

  it('throws a ProviderError naming provider, model, status and attempts after the last retry', async () => {
    const server = await serve(() => ({ type: 'error', status: 502, message: 'bad gateway' }));
    const { model } = localModel(server, { retry: { maxRetries: 3 } });
    const error = (await ask(model).catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe('provider');
    expect([error.provider, error.status, error.attempts]).toEqual(['openai-compatible', 502, 4]);
    expect(error.message).toMatch(
      /^openai-compatible model "test-model" failed after 4 attempts \(last: HTTP 502: bad gateway\); the provider is failing/,
    );
    expect(server.requestCount).toBe(4);
  });

  it('keeps retries in the plumbing even when the AI SDK call leaves its own maxRetries at the default', async () => {
    const server = await serve(() => ({ type: 'error', status: 500 }));
    const { model } = localModel(server, { retry: { maxRetries: 2 } });
    // No maxRetries: 0 here. The SDK would retry a retryable APICallError twice more (9 requests);
    // the plumbing's ProviderError is not one, so the count stays at 1 + 2.
    await expect(generateText({ model, prompt: 'x' })).rejects.toBeInstanceOf(ProviderError);
    expect(server.requestCount).toBe(3);
  });

  it('times out a hung request on every attempt, then throws ProviderError', async () => {
    const server = await serve(() => ({ type: 'hang' }));
    const { model, sleeps } = localModel(server, { timeoutMs: 150, retry: { maxRetries: 2 } });
    const started = Date.now();
    const error = (await ask(model).catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.attempts).toBe(3);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/failed after 3 attempts \(last: timed out after 150 ms\); raise timeoutMs/);
    expect(server.requestCount).toBe(3);
    expect(sleeps).toHaveLength(2);
    // Three 150 ms timeouts run back to back (sleeps are instant).
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 150 - 10);
  });

  it.each([
    ['truncated JSON', '{"choices": ['],
    ['JSON of the wrong shape', '{"unexpected": true}'],
  ])('fails at once with a clear error on a malformed body (%s)', async (_label, body) => {
    const server = await serve([{ type: 'malformed', body }, 'never']);
    const { model } = localModel(server);
    const error = (await ask(model).catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.status, error.attempts, server.requestCount]).toEqual([200, 1, 1]);
    expect(error.message).toMatch(
      /failed after 1 attempt \(last: HTTP 200 with a malformed body: Invalid JSON response\); the endpoint did not answer in the provider protocol; check that baseURL/,
    );
  });

  it('fails at once with a ProviderError on a well-formed body without a choice', async () => {
    // The AI SDK throws its own AI_InvalidResponseDataError here, not an API call error.
    const server = await serve([{ type: 'malformed', body: '{"choices": []}' }, 'never']);
    const { model } = localModel(server);
    const error = (await ask(model).catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.reason, error.attempts, server.requestCount]).toEqual(['malformed', 1, 1]);
    expect(error.message).toMatch(/failed after 1 attempt \(last: malformed response \(AI_\w+\): /);
  });

  it('does not retry other 4xx errors', async () => {
    const server = await serve([{ type: 'error', status: 404, message: 'model not found' }, 'never']);
    const { model, sleeps } = localModel(server);
    const error = (await ask(model).catch((caught: unknown) => caught)) as ProviderError;
    expect([error.status, error.attempts, server.requestCount, sleeps]).toEqual([404, 1, 1, []]);
    expect(error.message).toMatch(/check the model id and the base URL/);
  });

  it.each([408, 409])('retries a transient HTTP %i (honouring Retry-After), then succeeds', async (status) => {
    // 408 Request Timeout and 409 Conflict are transient: the AI SDK and OpenAI's own client retry them.
    const server = await serve([
      { type: 'error', status, headers: { 'retry-after': '2' } },
      { type: 'error', status },
      'ok',
    ]);
    const { model, sleeps } = localModel(server);
    expect((await ask(model)).text).toBe('ok');
    expect(server.requestCount).toBe(3);
    expect(sleeps[0]).toBe(2000);
    expect(sleeps).toHaveLength(2);
  });

  it('shares the failure of an identical request in flight instead of retrying it once per caller', async () => {
    const server = await serve(() => ({ type: 'error', status: 500, message: 'down' }));
    const store = memoryStore();
    const { model } = localModel(server, { cache: store, retry: { maxRetries: 2 } });
    const results = await Promise.allSettled([ask(model, 'same'), ask(model, 'same'), ask(model, 'same')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const result of results) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(ProviderError);
    // One call with its 3 attempts, not 3 callers × 3 attempts.
    expect(server.requestCount).toBe(3);
  });

  it('lets a caller waiting on an identical request in flight abort at once', async () => {
    const server = await serve([{ type: 'reply', text: 'slow', delayMs: 1500 }, 'unexpected']);
    const store = memoryStore();
    const { model } = localModel(server, { cache: store, timeoutMs: 10_000 });
    const first = ask(model, 'same');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const controller = new AbortController();
    const started = Date.now();
    const waiting = ask(model, 'same', { abortSignal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(waiting).rejects.toThrow(/caller gave up/);
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await first).text).toBe('slow');
    expect(server.requestCount).toBe(1);
  });

  it('times out a stream that opens and then sends nothing, releasing its slot', async () => {
    // Headers and a first event, then silence: the stream opened, so only an idle timeout ends it.
    const server = await serveRaw((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Thinking' }))}\n\n`);
    });
    const limiter = createProviderLimiter();
    const { model } = localModel(server, { timeoutMs: 200, limiter, maxConcurrency: 1 });
    const started = Date.now();
    const result = streamText({ model, prompt: 'x', maxRetries: 0, onError: () => {} });
    const parts: string[] = [];
    for await (const part of result.fullStream)
      parts.push(part.type === 'error' ? `error: ${String((part.error as Error).message)}` : part.type);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(parts).toContain('text-delta');
    // Old: 'attempt timed out after 200 ms', naming neither the model nor the attempts.
    expect(parts.filter((part) => part.startsWith('error'))).toEqual([
      'error: openai-compatible model "test-model" stream failed after 1 attempt (last: timed out after 200 ms waiting for the next part); the provider fell silent midway; raise timeoutMs if it thinks that long, or check that the endpoint is up',
    ]);
    expect(limiter.semaphore(`openai-compatible|${server.baseURL}`).active).toBe(0);
  });

  it('retries network errors (connection refused), then throws ProviderError', async () => {
    const server = await startOpenAICompatibleServer({ script: [] });
    await server.close();
    const { model, sleeps } = localModel(server);
    const error = (await ask(model).catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.status, error.attempts, sleeps.length]).toEqual([undefined, 3, 2]);
    expect(error.message).toMatch(
      /\(last: network error: Cannot connect to API: .*ECONNREFUSED.*\); check the base URL and that the server is running/,
    );
  });

  it('stops retrying when the caller aborts', async () => {
    const server = await serve(() => ({ type: 'hang' }));
    const { model } = localModel(server, { timeoutMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    await expect(ask(model, 'x', { abortSignal: controller.signal })).rejects.not.toBeInstanceOf(ProviderError);
    expect(server.requestCount).toBe(1);
  });

  it('replays identical requests from the cache with zero provider requests, across model instances', async () => {
    const server = await serve(['first answer', 'second answer', 'third answer']);
    const store = memoryStore();
    const first = localModel(server, { cache: store });
    const recorded = await ask(first.model, 'Q1', { temperature: 0 });
    expect(server.requestCount).toBe(1);
    const again = await ask(first.model, 'Q1', { temperature: 0 });
    expect(server.requestCount).toBe(1);
    // A "rerun": a new model on the same store, replay-only, decides identically.
    const rerun = localModel(server, { cache: store, cacheMode: 'replay-only' });
    const replayed = await ask(rerun.model, 'Q1', { temperature: 0 });
    expect(server.requestCount).toBe(1);
    for (const result of [again, replayed]) {
      expect(result.text).toBe('first answer');
      expect(result.usage).toEqual(recorded.usage);
      expect(result.finishReason).toBe(recorded.finishReason);
      expect(result.response.id).toBe(recorded.response.id);
      expect(result.response.timestamp).toEqual(recorded.response.timestamp);
      expect(result.content).toEqual(recorded.content);
    }
    // Any change in the request is a different key: a new setting goes to the provider...
    expect((await ask(first.model, 'Q1', { temperature: 0.5 })).text).toBe('second answer');
    expect(server.requestCount).toBe(2);
    // ...and a replay-only miss fails without a request.
    await expect(ask(rerun.model, 'Q2')).rejects.toBeInstanceOf(NotFoundError);
    await expect(ask(rerun.model, 'Q2')).rejects.toThrow(/replay-only and no reply is recorded/);
    expect(server.requestCount).toBe(2);
    expect(store.countCachedResponses()).toBe(2);
  });

  it('shares one provider call among identical requests in flight', async () => {
    const server = await serve([{ type: 'reply', text: 'shared', delayMs: 100 }, 'unexpected']);
    const store = memoryStore();
    const { model } = localModel(server, { cache: store, ledger: store });
    const results = await Promise.all([ask(model, 'same'), ask(model, 'same'), ask(model, 'same')]);
    expect(results.map((result) => result.text)).toEqual(['shared', 'shared', 'shared']);
    expect(server.requestCount).toBe(1);
    expect(store.usageSummary({ by: 'run' })).toMatchObject([{ calls: 3, cachedCalls: 2 }]);
  });

  it('books tokens and cost per agent, task and run, with cache hits at zero cost', async () => {
    const server = await serve(() => ({
      type: 'reply',
      text: 'x',
      usage: { prompt_tokens: 1000, completion_tokens: 500 },
    }));
    const store = memoryStore();
    const records: LlmCallRecord[] = [];
    const price = { inputPerMillion: 2, outputPerMillion: 8, perCall: 0.001 };
    const alice = localModel(server, {
      cache: store,
      ledger: store,
      price,
      context: { runId: 'r1', agentId: 'alice' },
      onCall: (record) => records.push(record),
    }).model;
    const bob = localModel(server, {
      cache: store,
      ledger: store,
      price,
      context: { runId: 'r1', agentId: 'bob' },
    }).model;
    await ask(alice, 'task one, alice', llmCallOptions({ taskId: 't1', act: 'propose' }));
    await ask(bob, 'task one, bob', llmCallOptions({ taskId: 't1', act: 'propose' }));
    await ask(alice, 'task two, alice', llmCallOptions({ taskId: 't2', act: 'propose' }));
    await ask(alice, 'task two, alice', llmCallOptions({ taskId: 't2', act: 'propose' })); // cache hit
    expect(server.requestCount).toBe(3);
    // One paid call: 1000 × 2 / 1e6 + 500 × 8 / 1e6 + 0.001 = 0.002 + 0.004 + 0.001 = 0.007.
    const byAgent = store.usageSummary({ by: 'agent', runId: 'r1' });
    expect(byAgent.map((row) => [row.key, row.calls, row.cachedCalls, row.inputTokens, row.outputTokens])).toEqual([
      ['alice', 3, 1, 3000, 1500],
      ['bob', 1, 0, 1000, 500],
    ]);
    expect(byAgent[0]!.cost).toBeCloseTo(2 * 0.007, 12);
    expect(byAgent[1]!.cost).toBeCloseTo(0.007, 12);
    const byTask = store.usageSummary({ by: 'task', runId: 'r1' });
    expect(byTask.map((row) => [row.key, row.calls])).toEqual([
      ['t1', 2],
      ['t2', 2],
    ]);
    expect(byTask[1]!.cost).toBeCloseTo(0.007, 12);
    expect(store.usageSummary({ by: 'run' })[0]!.cost).toBeCloseTo(3 * 0.007, 12);
    expect(records.map((record) => [record.agentId, record.taskId, record.act, record.cached])).toEqual([
      ['alice', 't1', 'propose', false],
      ['alice', 't2', 'propose', false],
      ['alice', 't2', 'propose', true],
    ]);
  });

  it('keeps at most maxConcurrency requests in flight per endpoint, shared by all its models', async () => {
    const server = await serve(() => ({ type: 'reply', text: 'slow', delayMs: 80 }));
    const limiter = createProviderLimiter();
    const one = localModel(server, { limiter, maxConcurrency: 2 }).model;
    const two = localModel(server, { limiter, maxConcurrency: 2 }).model;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) => ask(index % 2 === 0 ? one : two, `q${index}`)),
    );
    expect(results.every((result) => result.text === 'slow')).toBe(true);
    expect(server.requestCount).toBe(8);
    expect(server.maxInFlight).toBe(2);
  });

  it('streams through the plumbing and replays the stream from the cache', async () => {
    const server = await serve([
      { type: 'reply', text: 'streamed text', usage: { prompt_tokens: 7, completion_tokens: 3 } },
    ]);
    const store = memoryStore();
    const { model } = localModel(server, { cache: store, ledger: store, context: { runId: 'r' } });
    const first = streamText({ model, prompt: 'stream please', maxRetries: 0 });
    expect(await first.text).toBe('streamed text');
    const second = streamText({ model, prompt: 'stream please', maxRetries: 0 });
    expect(await second.text).toBe('streamed text');
    expect(server.requestCount).toBe(1);
    expect((await second.usage).inputTokens).toBe(7);
    expect(store.usageSummary({ by: 'run' })).toEqual([
      {
        key: 'r',
        calls: 2,
        cachedCalls: 1,
        inputTokens: 14,
        outputTokens: 6,
        cost: 0,
        failedCalls: 0,
        unreportedUsageCalls: 0,
      },
    ]);
  });
});

describe('API keys', () => {
  const variable = 'REPUTE_TEST_SENTINEL_KEY';
  const sentinel = 'sk-SENTINEL-4f1c9e2b7d';
  afterEach(() => {
    delete process.env[variable];
  });

  it('reads the key from the environment and never lets it reach errors, ledgers or call records', async () => {
    process.env[variable] = sentinel;
    const server = await serve([
      'fine',
      { type: 'echo-auth', status: 500 },
      { type: 'echo-auth', status: 500 },
      { type: 'echo-auth', status: 401 },
    ]);
    const store = memoryStore();
    store.createRun({ id: 'r', kind: 'test', config: null });
    const records: LlmCallRecord[] = [];
    const { model, retries } = localModel(server, {
      apiKeyEnv: variable,
      cache: store,
      ledger: store,
      context: { runId: 'r', agentId: 'a' },
      onCall: (record) => {
        records.push(record);
        store.appendEvents('r', [llmCallSpanData(record)]);
      },
    });
    expect((await ask(model, 'first')).text).toBe('fine');
    const error = (await ask(model, 'second').catch((caught: unknown) => caught)) as ProviderError;
    // The key was sent...
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${sentinel}`);
    expect(store.events('r')).toHaveLength(1);
    expect(records).toHaveLength(1);
    // ...the server echoed it back in every error body...
    expect(error).toBeInstanceOf(ProviderError);
    expect([error.status, error.attempts]).toEqual([401, 3]);
    // ...and it appears nowhere we produce.
    expect(error.message).toContain('[redacted]');
    expect(error.message).toMatch(/check the API key in the environment variable REPUTE_TEST_SENTINEL_KEY/);
    expect(error.message).not.toContain(sentinel);
    expect(String(error.stack)).not.toContain(sentinel);
    // The cause is kept, with the key removed (old: dropped, taking the status and body with it).
    expect(error.cause).toMatchObject({ name: 'AI_APICallError', statusCode: 401 });
    expect(`${String((error.cause as Error).message)} ${JSON.stringify(error.cause)}`).not.toContain(sentinel);
    expect(String((error.cause as Error).stack)).not.toContain(sentinel);
    expect(JSON.stringify(retries)).not.toContain(sentinel);
    expect(JSON.stringify(store.usageEntries())).not.toContain(sentinel);
    expect(JSON.stringify(store.events('r'))).not.toContain(sentinel);
    expect(JSON.stringify(records)).not.toContain(sentinel);
  });

  it('keeps a key that a 200 reply or a stream error echoes out of the answer, the cache and the error', async () => {
    process.env[variable] = sentinel;
    const server = await serve((request) => ({
      type: 'reply',
      text: `Your key is ${String(request.headers.authorization)}.`,
    }));
    const store = memoryStore();
    const stored: unknown[] = [];
    const cache: ResponseCache = {
      getCachedResponse: (key) => store.getCachedResponse(key),
      putCachedResponse: (input) => {
        stored.push(input.value);
        return store.putCachedResponse(input);
      },
    };
    const { model } = localModel(server, { apiKeyEnv: variable, cache, ledger: store });
    const first = await ask(model, 'echo');
    expect(first.text).toBe('Your key is Bearer [redacted].');
    const replayed = await ask(model, 'echo');
    expect(replayed.text).toBe(first.text);
    const streamed = streamText({ model, prompt: 'echo stream', maxRetries: 0 });
    expect(await streamed.text).toBe('Your key is Bearer [redacted].');
    expect(server.requestCount).toBe(2);
    expect(stored).toHaveLength(2);
    expect(JSON.stringify(stored)).not.toContain(sentinel);
    expect(JSON.stringify(store.usageEntries())).not.toContain(sentinel);

    // A stream that opens with 200 and then reports an error event quoting the header.
    const failing = await serveRaw((request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ error: { message: `boom ${String(request.headers.authorization)}` } })}\n\n`,
      );
      response.end('data: [DONE]\n\n');
    });
    const errors: unknown[] = [];
    const broken = streamText({
      model: localModel(failing, { apiKeyEnv: variable }).model,
      prompt: 'x',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    await Promise.resolve(broken.text).catch(() => undefined);
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as Error).message)).toContain('[redacted]');
    expect(`${String((errors[0] as Error).message)} ${JSON.stringify(errors[0])}`).not.toContain(sentinel);
  });

  it("leaves a local endpoint's stand-in key in the model's answers (replies are scrubbed of real keys only)", async () => {
    // A stand-in key `1` used to be cut out of "The answer is 12" ("The answer is [redacted]2"), and cached so.
    process.env[variable] = '1';
    const server = await serve(() => ({ type: 'reply', text: 'The answer is 12' }));
    const store = memoryStore();
    const { model } = localModel(server, { apiKeyEnv: variable, cache: store, ledger: store });
    expect((await ask(model, 'q')).text).toBe('The answer is 12');
    expect((await ask(model, 'q')).text).toBe('The answer is 12');
    expect(server.requestCount).toBe(1);
  });

  it('redacts a key that the error message would cut in two (redaction before shortening)', async () => {
    process.env[variable] = sentinel;
    // 180 characters before the echoed header: shortened to 200 before redaction, the message kept "Bearer sk-SEN…".
    const server = await serve((request) => ({
      type: 'error',
      status: 401,
      message: `${'x'.repeat(180)} ${String(request.headers.authorization)}`,
    }));
    const { model } = localModel(server, { apiKeyEnv: variable });
    const error = (await ask(model).catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    for (const text of [error.message, String(error.stack)])
      for (let length = 6; length <= sentinel.length; length++) expect(text).not.toContain(sentinel.slice(0, length));
  });

  it('refuses a key with a line break at construction, without echoing it', () => {
    process.env[variable] = `${sentinel}\n# pasted twice`;
    let error: InvalidArgumentError | undefined;
    try {
      createLanguageModel({
        provider: 'openai-compatible',
        model: 'm',
        baseURL: 'http://127.0.0.1:1/v1',
        apiKeyEnv: variable,
      });
    } catch (caught) {
      error = caught as InvalidArgumentError;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error!.message).toMatch(/REPUTE_TEST_SENTINEL_KEY holds a line break or another control character/);
    expect(`${error!.message} ${JSON.stringify(error!.value)}`).not.toContain(sentinel);
  });

  it('names the missing variable and never echoes a key passed as apiKeyEnv', () => {
    expect(() =>
      createLanguageModel({
        provider: 'openai-compatible',
        model: 'm',
        baseURL: 'http://127.0.0.1:1/v1',
        apiKeyEnv: variable,
      }),
    ).toThrow(/the environment variable REPUTE_TEST_SENTINEL_KEY is not set; export REPUTE_TEST_SENTINEL_KEY=/);
    const pasted = (() => {
      try {
        createLanguageModel({ provider: 'openai', model: 'gpt-4o-mini', apiKeyEnv: sentinel });
      } catch (error) {
        return error as InvalidArgumentError;
      }
      return undefined;
    })();
    expect(pasted).toBeInstanceOf(InvalidArgumentError);
    expect(pasted!.message).toMatch(/NAME of an environment variable/);
    expect(pasted!.message).not.toContain(sentinel);
    expect(JSON.stringify(pasted!.value)).not.toContain(sentinel);
  });

  it('defaults to the provider variables and validates the rest at construction', () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      expect(() => createLanguageModel({ provider: 'anthropic', model: 'claude-3-5-haiku-latest' })).toThrow(
        /ANTHROPIC_API_KEY is not set/,
      );
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
    process.env[variable] = sentinel;
    const model = createLanguageModel({ provider: 'openai', model: 'gpt-4o-mini', apiKeyEnv: variable });
    expect(model.modelId).toBe('gpt-4o-mini');
    expect(JSON.stringify(model)).not.toContain(sentinel);
    expect(() => createLanguageModel({ provider: 'openai-compatible', model: 'm' })).toThrow(/baseURL is required/);
    expect(() => createLanguageModel({ provider: 'ollama' as never, model: 'm' })).toThrow(/provider must be one of/);
    expect(() => createLanguageModel({ provider: 'openai-compatible', model: 'm', baseURL: 'ftp://x' })).toThrow(
      /http\(s\) URL/,
    );
    expect(() =>
      createLanguageModel({ provider: 'openai-compatible', model: 'm', baseURL: `http://user:${sentinel}@x/v1` }),
    ).toThrow(/must not carry credentials/);
    expect(() =>
      createLanguageModel({
        provider: 'openai-compatible',
        model: 'm',
        baseURL: 'http://x/v1',
        cacheMode: 'replay-only',
      }),
    ).toThrow(/needs a cache/);
    expect(() =>
      createLanguageModel({ provider: 'openai-compatible', model: 'm', baseURL: 'http://x/v1', timeoutMs: 0 }),
    ).toThrow(/timeoutMs/);
    // A wait past 2^31 − 1 ms (24.8 days) would fire at once as a Node timer: refused, naming the option.
    for (const option of ['initialDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const)
      expect(() =>
        createLanguageModel({
          provider: 'openai-compatible',
          model: 'm',
          baseURL: 'http://x/v1',
          retry: { [option]: 2_147_483_648 },
        }),
      ).toThrow(new RegExp(`retry\\.${option} must be in \\[0, 2147483647\\]`));
  });
});
