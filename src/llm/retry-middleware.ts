import { APICallError, type LanguageModelV3Middleware, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { ProviderError, type ProviderFailureReason } from '../core/errors.js';
import { findResponseTooLarge } from './bounded-fetch.js';
import { createRng, type Rng } from '../core/rng.js';
import { assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { abortableSleep } from '../core/_abortable-sleep.js';
import { markPaidFailure } from './_cached-marks.js';
import { startAttemptLog, type AttemptLog } from './_attempt-log.js';
import { parseRetryAfter } from './_retry-after.js';
import { createStreamRedactor } from './_redact-stream.js';
import { createRedactor, redactedError, redactValue } from './_secrets.js';
import { AttemptTimeoutError, StreamLimitError } from './timeout-middleware.js';

/**
 * Shortest key removed from successful replies (provider keys are 40+ characters; a shorter one is a
 * local endpoint's stand-in, which can be an ordinary word or digit of an answer).
 */
export const minimumReplySecretLength = 16;

/** Waits `ms` milliseconds; rejects when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Information passed to {@link RetryOptions.onRetry} before each wait. */
export interface RetryEvent {
  /** The attempt that failed, 1-based. */
  readonly attempt: number;
  /** Milliseconds the middleware will wait before the next attempt. */
  readonly delayMs: number;
  /** HTTP status of the failed attempt, when there was one. */
  readonly status: number | undefined;
  /** Why the attempt failed, e.g. `HTTP 429`, `timed out after 5000 ms`. */
  readonly reason: string;
  /** True when the delay came from a `Retry-After` header. */
  readonly fromRetryAfter: boolean;
}

/** Options of {@link createRetryMiddleware}. */
export interface RetryOptions {
  /** Retries after the first attempt, integer ≥ 0. @default 2 */
  readonly maxRetries?: number;
  /** Backoff before the first retry, in ms. @default 500 */
  readonly initialDelayMs?: number;
  /** Growth of the backoff per retry. @default 2 */
  readonly backoffFactor?: number;
  /** Cap of one backoff, in ms. @default 30000 */
  readonly maxDelayMs?: number;
  /** Share of the backoff drawn at random, in [0, 1]: delay × (1 − jitter × u), u ~ U[0, 1). @default 0.5 */
  readonly jitter?: number;
  /** Longest `Retry-After` honoured, in ms; a longer one ends the retries at once. @default 120000 */
  readonly maxRetryAfterMs?: number;
  /** Random source for the jitter. @default createRng(0) */
  readonly rng?: Rng;
  /** How to wait. @default a setTimeout-based sleep */
  readonly sleep?: Sleep;
  /** Clock for `Retry-After` dates, in ms. @default Date.now */
  readonly now?: () => number;
  /** Provider name used in errors. @default the wrapped model's provider */
  readonly provider?: string;
  /** Model id used in errors. @default the wrapped model's id */
  readonly modelId?: string;
  /** Environment variable holding the API key, named in the hint for 401/403. @default none */
  readonly apiKeyEnv?: string;
  /** Strings (API keys) removed from every message this middleware produces. @default [] */
  readonly secrets?: readonly string[];
  /** Called before each wait (logging, tests). @default none */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** A setTimeout-based {@link Sleep}. */
export const defaultSleep: Sleep = abortableSleep;

interface Failure {
  readonly kind: ProviderFailureReason;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly reason: string;
  readonly hint: string;
  readonly retryAfterMs: number | undefined;
  /** Whether the provider may have billed the attempt without reporting usage (it timed out, or answered outside the protocol). */
  readonly mayBeBilled: boolean;
}

/** The options a caller sets; the plumbing fills in the rest (`provider`, `modelId`, `secrets`, `apiKeyEnv`). */
export type RetryPolicyOptions = Omit<RetryOptions, 'provider' | 'modelId' | 'secrets' | 'apiKeyEnv'>;

/** Keys of {@link RetryPolicyOptions}, for the plumbing's check of its `retry` option. */
export const knownRetryPolicyOptions = defineOptionKeys<RetryPolicyOptions>()([
  'maxRetries',
  'initialDelayMs',
  'backoffFactor',
  'maxDelayMs',
  'jitter',
  'maxRetryAfterMs',
  'rng',
  'sleep',
  'now',
  'onRetry',
]);

const knownRetryOptions = defineOptionKeys<RetryOptions>()([
  ...knownRetryPolicyOptions,
  'provider',
  'modelId',
  'apiKeyEnv',
  'secrets',
]);

/**
 * Retries failed calls with exponential backoff and jitter, honouring `Retry-After` on 429 (and on
 * 408, 409 and 5xx when sent). It retries 408, 409, 429, 5xx, timeouts and network errors; other
 * 4xx and malformed replies fail at once. Secrets are removed from errors and from the replies
 * themselves (a server that quotes the key back in a 200 body or a stream error part).
 * After the last attempt it throws a {@link ProviderError} naming provider, model, status and
 * attempts, with secrets removed. Set the AI SDK's own `maxRetries: 0` so retries happen here.
 *
 * @example
 * const model = wrapLanguageModel({ model: base, middleware: createRetryMiddleware({ maxRetries: 3 }) });
 */
export function createRetryMiddleware(options: RetryOptions = {}): LanguageModelV3Middleware {
  assertKnownOptions('', options, knownRetryOptions, 'createRetryMiddleware');
  const {
    maxRetries = 2,
    initialDelayMs = 500,
    backoffFactor = 2,
    maxDelayMs = 30_000,
    jitter = 0.5,
    maxRetryAfterMs = 120_000,
    rng = createRng(0),
    sleep = defaultSleep,
    now = Date.now,
    apiKeyEnv,
    secrets = [],
    onRetry,
  } = options;
  assertInteger('retry.maxRetries', maxRetries, 0, 100, 'pass e.g. { maxRetries: 2 }');
  // Waits longer than a Node timer can hold (2^31 − 1 ms, about 24.8 days) would fire at once.
  const longestWait = 2_147_483_647;
  assertInRange('retry.initialDelayMs', initialDelayMs, 0, longestWait, { hint: 'pass milliseconds, e.g. 500' });
  assertInRange('retry.backoffFactor', backoffFactor, 1, 100);
  assertInRange('retry.maxDelayMs', maxDelayMs, 0, longestWait, { hint: 'pass milliseconds, e.g. 30000' });
  assertInRange('retry.jitter', jitter, 0, 1);
  assertInRange('retry.maxRetryAfterMs', maxRetryAfterMs, 0, longestWait, { hint: 'pass milliseconds, e.g. 120000' });
  const redact = createRedactor(secrets);
  // Replies are scrubbed of real keys only: a local endpoint's stand-in key (`1`, `none`) would
  // otherwise be cut out of the model's own answers, and the damaged answer cached. Errors are
  // scrubbed of every key, whatever its length.
  const replySecrets = secrets.filter(
    (secret) => typeof secret === 'string' && secret.length >= minimumReplySecretLength,
  );
  const redactReply = createRedactor(replySecrets);
  const hasSecrets = replySecrets.length > 0;

  /**
   * Runs the wrapped call (generate, or opening a stream) with retries; errors name the model. Each
   * attempt, and each failed one the provider may have billed, is counted in `log` (the ledger reads it).
   */
  async function withRetries<T>(
    call: () => PromiseLike<T>,
    params: { readonly abortSignal?: AbortSignal | undefined },
    model: { readonly provider: string; readonly modelId: string },
    log: AttemptLog,
  ): Promise<T> {
    const signal = params.abortSignal;
    const provider = options.provider ?? model.provider;
    const modelId = options.modelId ?? model.modelId;
    let attempt = 0;
    for (;;) {
      attempt += 1;
      log.attempts = attempt;
      log.queued = false;
      try {
        return await call();
      } catch (error) {
        if (signal?.aborted) {
          // Aborted while the request was in flight (not still waiting for a concurrency slot): the
          // provider may have billed what it generated.
          if (!log.queued) log.unreportedFailures += 1;
          throw error;
        }
        const failure = classify(error, now(), apiKeyEnv, redact);
        if (failure.mayBeBilled) log.unreportedFailures += 1;
        const label = `${provider} model ${JSON.stringify(modelId)}`;
        const fail = (extra = '') =>
          new ProviderError({
            provider,
            ...(failure.status === undefined ? {} : { status: failure.status }),
            attempts: attempt,
            reason: failure.kind,
            message: redact(
              `${label} failed after ${attempt} attempt${attempt === 1 ? '' : 's'} (last: ${failure.reason})${extra}; ${failure.hint}`,
            ),
            cause: redactedError(error, secrets, redact),
          });
        if (!failure.retryable || attempt > maxRetries) throw fail();
        let delayMs: number;
        const fromRetryAfter = failure.retryAfterMs !== undefined;
        if (failure.retryAfterMs !== undefined) {
          if (failure.retryAfterMs > maxRetryAfterMs)
            throw fail(
              `: the server asked to wait ${failure.retryAfterMs} ms, more than maxRetryAfterMs = ${maxRetryAfterMs}`,
            );
          delayMs = failure.retryAfterMs;
        } else {
          const base = Math.min(maxDelayMs, initialDelayMs * backoffFactor ** (attempt - 1));
          delayMs = base * (1 - jitter * rng());
        }
        onRetry?.({ attempt, delayMs, status: failure.status, reason: redact(failure.reason), fromRetryAfter });
        await sleep(delayMs, signal);
      }
    }
  }

  /**
   * The error a stream's error part carries once its attempts are known: a {@link StreamLimitError}
   * again with the real attempt count, any other error a {@link ProviderError} naming the model, the
   * attempts and what went wrong, with the original (secrets removed) as its cause.
   */
  function streamError(
    error: unknown,
    model: { readonly provider: string; readonly modelId: string },
    attempts: number,
  ): unknown {
    if (error instanceof StreamLimitError) {
      if (error.attempts === attempts) return error;
      return new StreamLimitError({
        provider: error.provider,
        modelId: options.modelId ?? model.modelId,
        limit: error.limit,
        value: error.value,
        attempts,
      });
    }
    if (error instanceof ProviderError) return error;
    const provider = options.provider ?? model.provider;
    const modelId = options.modelId ?? model.modelId;
    const failure = classifyStreamError(error, now(), apiKeyEnv, redact);
    return new ProviderError({
      provider,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      attempts,
      reason: failure.kind,
      message: redact(
        `${provider} model ${JSON.stringify(modelId)} stream failed after ${attempts} attempt${attempts === 1 ? '' : 's'} (last: ${failure.reason}); ${failure.hint}`,
      ),
      cause: redactedError(error, secrets, redact),
    });
  }

  // A server may quote the key back in a successful reply or a stream's error part: remove it
  // there too, before the cache records the reply or the caller sees it.
  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params, model }) {
      const result = await withRetries(doGenerate, params, model, startAttemptLog(params));
      return hasSecrets ? redactValue(result, replySecrets, redactReply) : result;
    },
    // Only opening the stream is retried; a stream that fails midway reports its error part, which
    // names the attempts it took to open.
    async wrapStream({ doStream, params, model }) {
      const log = startAttemptLog(params);
      const result = await withRetries(doStream, params, model, log);
      const attempts = log.attempts;
      // A stream that errors (the connection broke while reading the body) ends the way a stream
      // failing midway reports: an error part, then the end; so the redactor and the ledger see it too.
      const reader = result.stream.getReader();
      const named = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (error) {
            // The stream broke after it opened: the provider had accepted the request and may have
            // been generating (hidden reasoning is billed but not streamed), so the ledger books it.
            const broke = streamError(error, model, attempts);
            const marked = typeof broke === 'object' && broke !== null ? markPaidFailure(broke) : broke;
            controller.enqueue({ type: 'error', error: marked });
            controller.close();
            return;
          }
          if (next.done) return controller.close();
          const part = next.value;
          controller.enqueue(
            part.type === 'error' ? { ...part, error: streamError(part.error, model, attempts) } : part,
          );
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      });
      if (!hasSecrets) return { ...result, stream: named };
      // Deltas and raw chunks are redacted across their boundaries: a key split over two is caught too.
      const stream = named.pipeThrough(createStreamRedactor(replySecrets, redactReply));
      return { ...redactValue({ ...result, stream: undefined }, replySecrets, redactReply), stream };
    },
  };
}

/**
 * What went wrong with one attempt. Every failure of the provider call becomes a {@link Failure}, so
 * that callers always get a `ProviderError` with secrets removed: messages are redacted before they
 * are shortened (a key cut in two by the shortening would otherwise leave its first part behind).
 */
function classify(
  error: unknown,
  nowMs: number,
  apiKeyEnv: string | undefined,
  redact: (text: string) => string,
): Failure {
  const shortened = (message: string) => shortMessage(redact(message));
  const tooLarge = findResponseTooLarge(error);
  if (tooLarge !== undefined) {
    // Asking again would read another reply of the same size: fail at once.
    return {
      kind: 'malformed',
      retryable: false,
      status: APICallError.isInstance(error) ? error.statusCode : undefined,
      reason: `reply too large: over ${tooLarge.limit} bytes (maxResponseBytes), read stopped at ${tooLarge.received}`,
      hint: "raise the agent's maxResponseBytes in the team file if such replies are legitimate, or check the endpoint",
      retryAfterMs: undefined,
      mayBeBilled: true,
    };
  }
  if (error instanceof AttemptTimeoutError) {
    return {
      kind: 'timeout',
      retryable: true,
      status: undefined,
      reason: `timed out after ${error.timeoutMs} ms`,
      hint: 'raise timeoutMs, lower maxConcurrency, or check that the endpoint is up',
      retryAfterMs: undefined,
      mayBeBilled: true,
    };
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const short = shortened(error.message);
    if (status === undefined) {
      return {
        kind: 'network',
        retryable: true,
        status,
        reason: `network error: ${short}`,
        hint: 'check the base URL and that the server is running and reachable',
        retryAfterMs: undefined,
        mayBeBilled: false,
      };
    }
    if (status >= 200 && status < 300) {
      return {
        kind: 'malformed',
        retryable: false,
        status,
        reason: `HTTP ${status} with a malformed body: ${short}`,
        hint: 'the endpoint did not answer in the provider protocol; check that baseURL points at its API root (e.g. http://127.0.0.1:11434/v1)',
        retryAfterMs: undefined,
        mayBeBilled: true,
      };
    }
    if (status === 429) {
      return {
        kind: 'http',
        retryable: true,
        status,
        reason: `HTTP 429: ${short}`,
        hint: 'the provider is rate limiting; lower maxConcurrency or raise maxRetries',
        retryAfterMs: parseRetryAfter(error.responseHeaders, nowMs),
        mayBeBilled: false,
      };
    }
    if (status === 408 || status === 409) {
      // Request Timeout and Conflict are transient (the AI SDK and OpenAI's own client retry them too).
      return {
        kind: 'http',
        retryable: true,
        status,
        reason: `HTTP ${status}: ${short}`,
        hint:
          status === 408
            ? 'the provider timed out reading the request; try again later or lower maxConcurrency'
            : 'the provider reported a conflicting request; try again later',
        retryAfterMs: parseRetryAfter(error.responseHeaders, nowMs),
        mayBeBilled: false,
      };
    }
    if (status >= 500) {
      // 503s often carry Retry-After too (RFC 9110 §10.2.3); honour it when present.
      return {
        kind: 'http',
        retryable: true,
        status,
        reason: `HTTP ${status}: ${short}`,
        hint: 'the provider is failing; try again later or use another endpoint',
        retryAfterMs: parseRetryAfter(error.responseHeaders, nowMs),
        mayBeBilled: false,
      };
    }
    const hint =
      status === 401 || status === 403
        ? `check the API key${apiKeyEnv ? ` in the environment variable ${apiKeyEnv}` : ''} and its permissions`
        : status === 404
          ? 'check the model id and the base URL'
          : 'the request was refused; check the model id and call settings';
    return {
      kind: 'http',
      retryable: false,
      status,
      reason: `HTTP ${status}: ${short}`,
      hint,
      retryAfterMs: undefined,
      mayBeBilled: false,
    };
  }
  if (error instanceof Error && (error.name === 'AI_JSONParseError' || error.name === 'AI_TypeValidationError')) {
    return {
      kind: 'malformed',
      retryable: false,
      status: undefined,
      reason: `malformed response: ${shortened(error.message)}`,
      hint: 'the endpoint did not answer in the provider protocol; check the base URL',
      retryAfterMs: undefined,
      mayBeBilled: true,
    };
  }
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  if (name.startsWith('AI_')) {
    // The AI SDK's other response errors (e.g. AI_InvalidResponseDataError for `{"choices": []}`).
    return {
      kind: 'malformed',
      retryable: false,
      status: undefined,
      reason: `malformed response (${name}): ${shortened(message)}`,
      hint: 'the endpoint did not answer in the provider protocol; check the base URL and the model id',
      retryAfterMs: undefined,
      mayBeBilled: true,
    };
  }
  // Anything else failed before an answer came back (e.g. a header value fetch refuses to send).
  return {
    kind: 'network',
    retryable: false,
    status: undefined,
    reason: `the request could not be made (${name}): ${shortened(message)}`,
    hint: 'check the provider settings: base URL, headers and the API key variable',
    retryAfterMs: undefined,
    mayBeBilled: false,
  };
}

/**
 * Classifies the error part of a stream that opened: a wait for the next part that timed out, the
 * AI SDK's own errors as {@link classify} does, anything else a stream that broke off midway.
 */
function classifyStreamError(
  error: unknown,
  nowMs: number,
  apiKeyEnv: string | undefined,
  redact: (text: string) => string,
): Failure {
  if (error instanceof AttemptTimeoutError) {
    return {
      ...classify(error, nowMs, apiKeyEnv, redact),
      reason: `timed out after ${error.timeoutMs} ms waiting for the next part`,
      hint: 'the provider fell silent midway; raise timeoutMs if it thinks that long, or check that the endpoint is up',
    };
  }
  if (error instanceof Error) {
    if (APICallError.isInstance(error) || error.name.startsWith('AI_') || findResponseTooLarge(error) !== undefined)
      return classify(error, nowMs, apiKeyEnv, redact);
    return {
      kind: 'network',
      retryable: false,
      status: undefined,
      reason: `the stream broke off (${error.name}): ${shortMessage(redact(error.message))}`,
      hint: 'the connection or the provider failed midway through the reply; try again, and check the endpoint if it keeps happening',
      retryAfterMs: undefined,
      mayBeBilled: true,
    };
  }
  // Not an Error: an error event the provider sent in the stream (e.g. `{ message: 'overloaded' }`).
  const inner = (error as { message?: unknown } | null)?.message;
  return {
    kind: 'incomplete',
    retryable: false,
    status: undefined,
    reason: `the provider sent an error event: ${shortMessage(redact(typeof inner === 'string' ? inner : showJson(error)))}`,
    hint: 'the provider stopped the reply midway; try again, and check the model id and the provider status if it keeps happening',
    retryAfterMs: undefined,
    mayBeBilled: true,
  };
}

function showJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Longest provider message quoted in an error, in characters. */
const maxQuotedMessage = 1000;

/**
 * The provider's message as quoted in an error: its first non-blank line, cut at
 * {@link maxQuotedMessage} characters, saying how much was left out and where the rest is.
 */
function shortMessage(message: string): string {
  const first = message.split('\n').find((line) => line.trim().length > 0) ?? '';
  if (first.length > maxQuotedMessage)
    return `${first.slice(0, maxQuotedMessage)}… (${message.length - maxQuotedMessage} more characters in error.cause)`;
  const rest = message.trim().length - first.trim().length;
  return rest > 0 ? `${first} (… ${rest} more characters on further lines in error.cause)` : first;
}
