import type { LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { ProviderError } from '../core/errors.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';

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

/** Default of {@link TimeoutMiddlewareOptions.maxStreamDurationMs}: 10 minutes. */
export const defaultMaxStreamDurationMs = 600_000;

/**
 * Default of {@link TimeoutMiddlewareOptions.maxStreamOutputChars}: 1 000 000 characters, about
 * 250 000 tokens, above the longest output any model is allowed today (about 128 000 tokens).
 */
export const defaultMaxStreamOutputChars = 1_000_000;

/** Which stream cap a {@link StreamLimitError} hit. */
export type StreamLimit = 'maxStreamDurationMs' | 'maxStreamOutputChars';

/**
 * A stream ran past one of its caps (total duration, or characters of output) and was stopped:
 * its request aborted, its concurrency slot freed. `reason` is `timeout` for the duration cap and
 * `incomplete` for the output cap (the reply is cut short either way).
 */
export class StreamLimitError extends ProviderError {
  /** The option whose cap was hit. */
  readonly limit: StreamLimit;
  /** The cap, in ms for `maxStreamDurationMs` and characters for `maxStreamOutputChars`. */
  readonly value: number;

  constructor({
    provider,
    modelId,
    limit,
    value,
    attempts = 1,
  }: {
    provider: string;
    modelId: string;
    limit: StreamLimit;
    value: number;
    /** Attempts the stream took to open (the retry middleware fills it in). @default 1 */
    attempts?: number;
  }) {
    const label = `${provider} model ${JSON.stringify(modelId)}${attempts > 1 ? ` (its stream opened after ${attempts} attempts)` : ''}`;
    super({
      provider,
      attempts,
      reason: limit === 'maxStreamDurationMs' ? 'timeout' : 'incomplete',
      message:
        limit === 'maxStreamDurationMs'
          ? `${label} stream ran longer than maxStreamDurationMs = ${value} ms and was stopped (request aborted); raise maxStreamDurationMs (e.g. { maxStreamDurationMs: ${value * 2} }) if replies this long are expected, or ask for a shorter reply`
          : `${label} streamed more than maxStreamOutputChars = ${value} characters and was stopped (request aborted); raise maxStreamOutputChars (e.g. { maxStreamOutputChars: ${value * 2} }) if replies this long are expected, or set maxOutputTokens on the call`,
    });
    this.limit = limit;
    this.value = value;
  }
}

/** Options of {@link createTimeoutMiddleware}. */
export interface TimeoutMiddlewareOptions {
  /** Per-attempt timeout in ms: a generate call, opening a stream, and each wait for a stream's next part. */
  readonly timeoutMs: number;
  /** Longest a stream may run once open, in ms, integer in [1, 2 147 483 647]. @default 600000 (10 minutes) */
  readonly maxStreamDurationMs?: number;
  /**
   * Most characters of text, reasoning and tool-input deltas one stream may deliver, integer ≥ 1.
   * @default 1000000
   */
  readonly maxStreamOutputChars?: number;
}

const knownTimeoutOptions = defineOptionKeys<TimeoutMiddlewareOptions>()([
  'timeoutMs',
  'maxStreamDurationMs',
  'maxStreamOutputChars',
]);

/**
 * Aborts each attempt that runs longer than `timeoutMs` (an `AbortSignal` joined with the
 * caller's) and throws {@link AttemptTimeoutError}. For streams the timeout covers opening the
 * stream (until the response headers arrive), and then every wait for the next part: a stream
 * silent for `timeoutMs` ends with an {@link AttemptTimeoutError} error part (not retried: parts were already
 * delivered). A stream that keeps sending is capped too: once open it may run `maxStreamDurationMs`
 * and deliver `maxStreamOutputChars` characters of deltas; past either it ends with a
 * {@link StreamLimitError} error part naming the cap, and its request is aborted. Place it inside
 * the retry middleware so every attempt gets its own timeout.
 *
 * @example
 * wrapLanguageModel({ model, middleware: [createRetryMiddleware(), createTimeoutMiddleware({ timeoutMs: 30_000, maxStreamDurationMs: 120_000 })] });
 */
export function createTimeoutMiddleware(options: TimeoutMiddlewareOptions): LanguageModelV3Middleware {
  assertKnownOptions('', options, knownTimeoutOptions, 'createTimeoutMiddleware');
  const {
    timeoutMs,
    maxStreamDurationMs = defaultMaxStreamDurationMs,
    maxStreamOutputChars = defaultMaxStreamOutputChars,
  } = options;
  assertInteger('timeoutMs', timeoutMs, 1, 2_147_483_647, 'pass the per-attempt timeout in milliseconds, e.g. 60000');
  assertInteger(
    'maxStreamDurationMs',
    maxStreamDurationMs,
    1,
    2_147_483_647,
    `pass the longest a stream may run in milliseconds, e.g. ${defaultMaxStreamDurationMs}`,
  );
  assertInteger(
    'maxStreamOutputChars',
    maxStreamOutputChars,
    1,
    Number.MAX_SAFE_INTEGER,
    `pass the most characters a stream may deliver, e.g. ${defaultMaxStreamOutputChars}`,
  );
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
      return {
        ...result,
        stream: withStreamLimits(result.stream, controller, {
          idleMs: timeoutMs,
          maxDurationMs: maxStreamDurationMs,
          maxOutputChars: maxStreamOutputChars,
          limitError: (limit, value) =>
            new StreamLimitError({ provider: model.provider, modelId: model.modelId, limit, value }),
        }),
      };
    },
  };
}

/**
 * Passes a stream through, but ends it with an error part (and aborts the request) when the source
 * gives no part for `idleMs` while its reader is waiting for one ({@link AttemptTimeoutError}), when
 * it runs longer than `maxDurationMs` from now, or when its deltas would pass `maxOutputChars`
 * characters ({@link StreamLimitError}). So a stream that goes silent, or never stops talking, ends
 * instead of holding its concurrency slot for ever.
 */
function withStreamLimits(
  source: ReadableStream<LanguageModelV3StreamPart>,
  request: AbortController,
  {
    idleMs,
    maxDurationMs,
    maxOutputChars,
    limitError,
  }: {
    idleMs: number;
    maxDurationMs: number;
    maxOutputChars: number;
    limitError: (limit: StreamLimit, value: number) => StreamLimitError;
  },
): ReadableStream<LanguageModelV3StreamPart> {
  const reader = source.getReader();
  let outputChars = 0;
  let expired: StreamLimitError | undefined;
  let onExpiry: (() => void) | undefined;
  // The request is aborted at the deadline even when nobody is reading; the error part waits for the
  // next read. Unref'd: an abandoned stream must not keep the process alive until its deadline.
  const deadline = setTimeout(() => {
    expired = limitError('maxStreamDurationMs', maxDurationMs);
    request.abort(expired);
    onExpiry?.();
  }, maxDurationMs);
  deadline.unref?.();
  const stop = (controller: ReadableStreamDefaultController<LanguageModelV3StreamPart>, error: Error) => {
    clearTimeout(deadline);
    request.abort(error);
    reader.cancel(error).catch(() => {});
    // Reported the way a stream failing midway reports: an error part, then the end.
    controller.enqueue({ type: 'error', error });
    controller.close();
  };
  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      if (expired !== undefined) return stop(controller, expired);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waits = new Promise<'idle' | 'expired'>((resolve) => {
        timer = setTimeout(() => resolve('idle'), idleMs);
        onExpiry = () => resolve('expired');
      });
      let next: Awaited<ReturnType<typeof reader.read>> | 'idle' | 'expired';
      try {
        next = await Promise.race([reader.read(), waits]);
      } catch (error) {
        clearTimeout(deadline);
        controller.error(error);
        return;
      } finally {
        clearTimeout(timer);
        onExpiry = undefined;
      }
      if (next === 'idle') return stop(controller, new AttemptTimeoutError(idleMs));
      if (next === 'expired' || expired !== undefined)
        return stop(controller, expired ?? limitError('maxStreamDurationMs', maxDurationMs));
      if (next.done) {
        clearTimeout(deadline);
        controller.close();
        return;
      }
      const part = next.value;
      if (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-input-delta') {
        // The part that would pass the cap is not delivered: the caller never gets more than the cap.
        if (outputChars + part.delta.length > maxOutputChars)
          return stop(controller, limitError('maxStreamOutputChars', maxOutputChars));
        outputChars += part.delta.length;
      }
      controller.enqueue(part);
    },
    cancel(reason) {
      clearTimeout(deadline);
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
