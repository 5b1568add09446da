// A fetch that refuses to read more than a set number of bytes of any response body, so an endpoint
// that sends gigabytes (by accident or on purpose) costs at most that much memory: the limit is
// enforced while the body streams in, and the connection is dropped at the limit.
import { ReputeError } from '../core/errors.js';
import { assertInteger } from '../core/validate.js';

/** Default most bytes of one response body: 1 MiB (a chat reply is a few KiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;

/** A response body passed its size limit; the read stopped there and the connection was dropped. */
export class ResponseTooLargeError extends ReputeError {
  /** The limit in bytes. */
  readonly limit: number;
  /** Bytes received (or announced by `Content-Length`) when the read stopped. */
  readonly received: number;

  constructor({ limit, received, announced }: { limit: number; received: number; announced: boolean }) {
    super(
      'provider',
      `the endpoint's reply ${announced ? `announced ${received} bytes` : `passed ${received} bytes`}, over the limit of ${limit} bytes (maxResponseBytes); the read stopped there. Raise maxResponseBytes of this agent in the team file if the reply is legitimate, or check the endpoint`,
    );
    this.limit = limit;
    this.received = received;
  }
}

/** Options of {@link createBoundedFetch}. */
export interface BoundedFetchOptions {
  /** Most bytes of one response body, integer ≥ 1. @default 1048576 (1 MiB) */
  readonly maxResponseBytes?: number;
  /** The fetch to wrap. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
}

/**
 * Wraps fetch so that no response body yields more than `maxResponseBytes`: a larger
 * `Content-Length` is refused before the body is read, and a body that streams past the limit ends
 * with a {@link ResponseTooLargeError} and its connection is cancelled. Only what the reader asks
 * for is pulled, so memory stays at the limit plus one network chunk.
 *
 * @example
 * const model = createOpenAICompatible({ name: 'x', baseURL, fetch: createBoundedFetch({ maxResponseBytes: 1 << 20 }) });
 */
export function createBoundedFetch(options: BoundedFetchOptions = {}): typeof globalThis.fetch {
  const { maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES, fetch: inner = globalThis.fetch } = options;
  assertInteger(
    'maxResponseBytes',
    maxResponseBytes,
    1,
    Number.MAX_SAFE_INTEGER,
    'pass the most bytes of one reply, e.g. 1048576 (1 MiB)',
  );
  const bounded = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = await inner(input, init);
    const announced = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(announced) && announced > maxResponseBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new ResponseTooLargeError({ limit: maxResponseBytes, received: announced, announced: true });
    }
    if (response.body === null) return response;
    const reader = response.body.getReader();
    let received = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        received += value.byteLength;
        if (received > maxResponseBytes) {
          await reader.cancel().catch(() => undefined);
          controller.error(new ResponseTooLargeError({ limit: maxResponseBytes, received, announced: false }));
          return;
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    // The Response constructor takes statuses 200-599 only; an endpoint may answer anything (999).
    const constructible = response.status >= 200 && response.status <= 599;
    const bounded = new Response(body, {
      status: constructible ? response.status : 599,
      statusText: response.statusText,
      headers: response.headers,
    });
    // Keep what callers read from the original besides the body.
    Object.defineProperty(bounded, 'url', { value: response.url });
    if (!constructible) {
      Object.defineProperty(bounded, 'status', { value: response.status });
      Object.defineProperty(bounded, 'ok', { value: response.ok });
    }
    return bounded;
  };
  return bounded as typeof globalThis.fetch;
}

/** Whether `error`, or an error in its `cause` chain, is a {@link ResponseTooLargeError}. */
export function findResponseTooLarge(error: unknown): ResponseTooLargeError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    if (current instanceof ResponseTooLargeError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
