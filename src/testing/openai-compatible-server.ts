import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token usage a scripted reply reports, in OpenAI's field names. */
export interface ScriptedUsage {
  /** @default 10 */
  readonly prompt_tokens?: number;
  /** @default 5 */
  readonly completion_tokens?: number;
}

/** What the test server does with one request. */
export type ServerStep =
  /** A normal chat completion (or an SSE stream when the request asks for `stream: true`). */
  | {
      readonly type: 'reply';
      readonly text: string;
      readonly usage?: ScriptedUsage;
      readonly delayMs?: number;
      readonly finishReason?: string;
    }
  /** Any HTTP error status with an OpenAI-style error body (or `body` verbatim) and extra headers. */
  | {
      readonly type: 'error';
      readonly status: number;
      readonly message?: string;
      readonly body?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** 429 with a `Retry-After` header (seconds, e.g. `'2'`, or an HTTP date). */
  | { readonly type: 'rate-limit'; readonly retryAfter?: string }
  /** Accept the request and never answer (a timeout). */
  | { readonly type: 'hang' }
  /** 200 with a body that is not valid chat-completions JSON. @default body '{"choices": [' */
  | { readonly type: 'malformed'; readonly body?: string }
  /** An error response whose body echoes the request's Authorization header (secret-leak tests). */
  | { readonly type: 'echo-auth'; readonly status?: number }
  /**
   * 200 with a reply of `bytes` bytes (one endless message, or SSE chunks when the request streams),
   * written 64 KiB at a time as the client reads; stops when the client drops the connection.
   * `announce` sends a `Content-Length` header. (Size-limit tests: a 2 GiB reply costs the server nothing.)
   */
  | { readonly type: 'huge'; readonly bytes: number; readonly announce?: boolean };

/** The script: a list consumed one step per request (a bare string is a reply), or a function. */
export type ServerScript =
  | ReadonlyArray<ServerStep | string>
  | ((request: RecordedRequest, index: number) => ServerStep | string);

/** One request the server received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body (`undefined` when the body was not JSON). */
  readonly body: unknown;
}

/** A running test server. */
export interface OpenAICompatibleServer {
  /** Base URL to give the client, e.g. `http://127.0.0.1:54321/v1`. */
  readonly baseURL: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Number of chat-completions requests received. */
  readonly requestCount: number;
  /** Requests currently being answered. */
  readonly inFlight: number;
  /** Largest number of requests answered at the same time so far. */
  readonly maxInFlight: number;
  /** Stops the server, dropping hung connections. */
  close(): Promise<void>;
}

/** Options of {@link startOpenAICompatibleServer}. */
export interface OpenAICompatibleServerOptions {
  /** Replies in request order, or a function choosing one per request. */
  readonly script: ServerScript;
  /** Model name reported in replies. @default 'test-model' */
  readonly model?: string;
  /** Port to listen on (e.g. the port of a server that was stopped, to bring an endpoint back up). @default 0, a random free port */
  readonly port?: number;
}

/**
 * Starts a local HTTP server on 127.0.0.1 (random port) that speaks the OpenAI chat-completions
 * protocol from a script, so tests can drive the real AI SDK client through success, rate
 * limits, server errors, timeouts and malformed bodies.
 *
 * @example
 * const server = await startOpenAICompatibleServer({ script: [{ type: 'rate-limit', retryAfter: '2' }, 'The answer is 4.'] });
 * const provider = createOpenAICompatible({ name: 'local', baseURL: server.baseURL });
 * // ... generateText({ model: provider('test-model'), prompt: '2+2?' }) ...
 * await server.close();
 */
export async function startOpenAICompatibleServer({
  script,
  model = 'test-model',
  port: requestedPort = 0,
}: OpenAICompatibleServerOptions): Promise<OpenAICompatibleServer> {
  const requests: RecordedRequest[] = [];
  let requestCount = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  const nextStep = (request: RecordedRequest, index: number): ServerStep => {
    const step = typeof script === 'function' ? script(request, index) : script[index];
    if (step === undefined) {
      return {
        type: 'error',
        status: 400,
        message: `test server script exhausted: request ${index + 1} but only ${(script as readonly unknown[]).length} step(s) scripted`,
      };
    }
    return typeof step === 'string' ? { type: 'reply', text: step } : step;
  };

  const server = createServer((incoming, response) => {
    void handle(incoming, response);
  });

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    const request: RecordedRequest = { method: incoming.method ?? 'GET', path, headers: incoming.headers, body };
    requests.push(request);
    if (incoming.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(response, 404, {
        error: {
          message: `test server serves POST /v1/chat/completions only, got ${incoming.method} ${path}`,
          type: 'not_found',
        },
      });
      return;
    }
    const index = requestCount;
    requestCount += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const finish = () => {
      if (counted) {
        counted = false;
        inFlight -= 1;
      }
    };
    response.on('close', finish);

    const step = nextStep(request, index);
    switch (step.type) {
      case 'hang':
        return;
      case 'rate-limit':
        sendJson(
          response,
          429,
          { error: { message: 'Rate limit reached, slow down', type: 'rate_limit_error' } },
          { 'retry-after': step.retryAfter ?? '1' },
        );
        return;
      case 'error':
        if (step.body !== undefined) {
          response.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
          response.end(step.body);
        } else {
          sendJson(
            response,
            step.status,
            { error: { message: step.message ?? `scripted error ${step.status}`, type: 'server_error' } },
            step.headers,
          );
        }
        return;
      case 'malformed':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(step.body ?? '{"choices": [');
        return;
      case 'huge':
        await sendHuge(response, step, (body as { stream?: boolean } | undefined)?.stream === true);
        return;
      case 'echo-auth':
        sendJson(response, step.status ?? 400, {
          error: {
            message: `bad request from client with authorization ${String(incoming.headers.authorization)}`,
            type: 'invalid_request_error',
          },
        });
        return;
      case 'reply': {
        if (step.delayMs !== undefined && step.delayMs > 0)
          await new Promise((resolve) => setTimeout(resolve, step.delayMs));
        if (response.destroyed) return;
        const usage = {
          prompt_tokens: step.usage?.prompt_tokens ?? 10,
          completion_tokens: step.usage?.completion_tokens ?? 5,
        };
        const id = `chatcmpl-${index + 1}`;
        const finishReason = step.finishReason ?? 'stop';
        if ((body as { stream?: boolean } | undefined)?.stream === true) {
          response.writeHead(200, {
            'content-type': 'text/event-stream',
            'cache-control': 'no-cache',
            connection: 'keep-alive',
          });
          const base = { id, object: 'chat.completion.chunk', created: 1_700_000_000, model };
          const events = [
            { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
            { ...base, choices: [{ index: 0, delta: { content: step.text }, finish_reason: null }] },
            {
              ...base,
              choices: [{ index: 0, delta: {}, finish_reason: finishReason }],
              usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
            },
          ];
          for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
          response.end('data: [DONE]\n\n');
          return;
        }
        sendJson(response, 200, {
          id,
          object: 'chat.completion',
          created: 1_700_000_000,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: step.text }, finish_reason: finishReason }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        });
        return;
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(requestedPort, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get requestCount() {
      return requestCount;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Writes a `huge` step's reply chunk by chunk, waiting for the client to drain each one. */
async function sendHuge(
  response: ServerResponse,
  step: Extract<ServerStep, { type: 'huge' }>,
  stream: boolean,
): Promise<void> {
  const chunkBytes = 65_536;
  const filler = 'a'.repeat(chunkBytes);
  const sseChunk = `data: ${JSON.stringify({ id: 'chatcmpl-huge', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'test-model', choices: [{ index: 0, delta: { content: filler }, finish_reason: null }] })}\n\n`;
  const piece = stream ? sseChunk : filler;
  const head = stream
    ? ''
    : '{"id":"chatcmpl-huge","object":"chat.completion","created":1700000000,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"';
  const tail = stream
    ? 'data: [DONE]\n\n'
    : '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
  const pieces = Math.max(0, Math.ceil((step.bytes - head.length - tail.length) / piece.length));
  response.writeHead(200, {
    'content-type': stream ? 'text/event-stream' : 'application/json',
    ...(step.announce === true ? { 'content-length': String(head.length + pieces * piece.length + tail.length) } : {}),
  });
  let closed = false;
  response.on('close', () => {
    closed = true;
  });
  response.write(head);
  for (let index = 0; index < pieces && !closed; index++) {
    if (!response.write(piece))
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
  }
  if (!closed) response.end(tail);
}
