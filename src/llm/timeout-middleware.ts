import type { LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { assertInteger } from '../core/validate.js';

/** One attempt took longer than its timeout (the retry middleware retries it). */
export class AttemptTimeoutError extends Error {
  /** The timeout that expired, in ms. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(`attempt timed out after ${timeoutMs} ms`, options);
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Aborts each attempt that runs longer than `timeoutMs` (an `AbortSignal` joined with the
 * caller's) and throws {@link AttemptTimeoutError}. For streams the timeout covers opening the
 * stream (until the response headers arrive), and then every wait for the next part: a stream
 * silent for `timeoutMs` ends with an {@link AttemptTimeoutError} error part (not retried: parts were already
 * delivered). Place it inside the retry middleware so every attempt gets its own timeout.
 *
 * @example
 * wrapLanguageModel({ model, middleware: [createRetryMiddleware(), createTimeoutMiddleware({ timeoutMs: 30_000 })] });
 */
export function createTimeoutMiddleware({ timeoutMs }: { timeoutMs: number }): LanguageModelV3Middleware {
  assertInteger('timeoutMs', timeoutMs, 1, 2_147_483_647, 'pass the per-attempt timeout in milliseconds, e.g. 60000');
  async function withTimeout<T>(
    signal: AbortSignal | undefined,
    call: (signal: AbortSignal) => PromiseLike<T>,
    controller = new AbortController(),
  ): Promise<T> {
    const timer = setTimeout(() => controller.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
    const joined = signal === undefined ? controller.signal : anySignal([signal, controller.signal]);
    try {
      return await call(joined);
    } catch (error) {
      if (controller.signal.aborted && !signal?.aborted) throw new AttemptTimeoutError(timeoutMs, { cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    specificationVersion: 'v3',
    wrapGenerate({ params, model }) {
      return withTimeout(params.abortSignal, (abortSignal) => model.doGenerate({ ...params, abortSignal }));
    },
    async wrapStream({ params, model }) {
      // The attempt's own controller outlives the opening, so an idle stream can still abort its request.
      const controller = new AbortController();
      const result = await withTimeout(
        params.abortSignal,
        (abortSignal) => model.doStream({ ...params, abortSignal }),
        controller,
      );
      return { ...result, stream: withIdleTimeout(result.stream, timeoutMs, controller) };
    },
  };
}

/**
 * Passes a stream through, but ends it with an {@link AttemptTimeoutError} error part (and aborts the request)
 * when the source gives no part for `timeoutMs` while its reader is waiting for one, so a stream
 * that opens and then goes silent ends instead of hanging with its concurrency slot held.
 */
function withIdleTimeout(
  source: ReadableStream<LanguageModelV3StreamPart>,
  timeoutMs: number,
  request: AbortController,
): ReadableStream<LanguageModelV3StreamPart> {
  const reader = source.getReader();
  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<'idle'>((resolve) => {
        timer = setTimeout(() => resolve('idle'), timeoutMs);
      });
      let next: Awaited<ReturnType<typeof reader.read>> | 'idle';
      try {
        next = await Promise.race([reader.read(), idle]);
      } catch (error) {
        controller.error(error);
        return;
      } finally {
        clearTimeout(timer);
      }
      if (next === 'idle') {
        const error = new AttemptTimeoutError(timeoutMs);
        request.abort(error);
        reader.cancel(error).catch(() => {});
        // Reported the way a stream failing midway reports: an error part, then the end.
        controller.enqueue({ type: 'error', error });
        controller.close();
        return;
      }
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

// AbortSignal.any arrived in Node 20.3; package.json allows any Node 20.
function anySignal(signals: readonly AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals as AbortSignal[]);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
