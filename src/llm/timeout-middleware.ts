import type { LanguageModelV3Middleware } from '@ai-sdk/provider';
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
 * stream (until the response headers arrive). Place it inside the retry middleware so every
 * attempt gets its own timeout.
 *
 * @example
 * wrapLanguageModel({ model, middleware: [createRetryMiddleware(), createTimeoutMiddleware({ timeoutMs: 30_000 })] });
 */
export function createTimeoutMiddleware({ timeoutMs }: { timeoutMs: number }): LanguageModelV3Middleware {
  assertInteger('timeoutMs', timeoutMs, 1, 2_147_483_647, 'pass the per-attempt timeout in milliseconds, e.g. 60000');
  async function withTimeout<T>(
    signal: AbortSignal | undefined,
    call: (signal: AbortSignal) => PromiseLike<T>,
  ): Promise<T> {
    const controller = new AbortController();
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
    wrapStream({ params, model }) {
      return withTimeout(params.abortSignal, (abortSignal) => model.doStream({ ...params, abortSignal }));
    },
  };
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
