import type { LanguageModelV3Middleware, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { StoreError } from '../core/errors.js';
import { assertKnownOptions, assertNonNegative, defineOptionKeys } from '../core/validate.js';
import type { SpanData } from '../core/trace.js';
import { takeAttemptLog } from './_attempt-log.js';
import { isCached, markBooked, paidFailure } from './_cached-marks.js';
import { observeStream } from './_observe-stream.js';
import { readTokenUsage, usageError } from './_token-usage.js';
import { readCallContext, type LlmCallContext } from './call-context.js';

/** Prices of one model; every field ≥ 0 and defaults to 0. */
export interface LlmPrice {
  /** US dollars (or the team's unit) per 1 000 000 input tokens. @default 0 */
  readonly inputPerMillion?: number | undefined;
  /** US dollars per 1 000 000 output tokens. @default 0 */
  readonly outputPerMillion?: number | undefined;
  /** US dollars per call, added to the token prices. @default 0 */
  readonly perCall?: number | undefined;
}

/** One entry of the cost ledger; the SQLite `Store`'s `recordUsage` accepts it. */
export interface LlmUsageEntry {
  readonly runId: string | null;
  readonly agentId: string | null;
  readonly taskId: string | null;
  readonly act: string | null;
  readonly model: string | null;
  /** Integer ≥ 0. */
  readonly inputTokens: number;
  /** Integer ≥ 0. */
  readonly outputTokens: number;
  /** Cost of the call, ≥ 0; 0 when served from the cache. A lower bound when `usageReported` is false. */
  readonly cost: number;
  readonly cached: boolean;
  /**
   * `ok`: the caller got the reply. `failed`: the call ended in an error or was cancelled, after the
   * provider may have billed it (it reported usage, generated output, timed out or answered outside
   * the protocol). Calls that failed with nothing billed (an HTTP error, no connection) are not booked.
   */
  readonly status: LlmCallStatus;
  /**
   * False when the provider did not report a valid count for input or output tokens, or a failed
   * attempt of the call may have been billed without a report: the tokens booked (0 for a missing
   * count) and the cost are then lower bounds, not true zeros.
   */
  readonly usageReported: boolean;
  /** Provider attempts the call made, retries included, integer ≥ 0; 0 when served from the cache. */
  readonly attempts: number;
  /** When the call started, ms by the ledger's clock. */
  readonly startedAt: number;
  /** When the call ended (its reply read, or its failure seen), ms by the ledger's clock. */
  readonly endedAt: number;
  /** The messages sent as JSON (`[{ role, content }]`, content as text), or `null` when content capture is off. */
  readonly prompt: string | null;
  /** The reply's text, or `null` when content capture is off or no text arrived. */
  readonly completion: string | null;
}

/** How a booked call ended; see {@link LlmUsageEntry.status}. */
export type LlmCallStatus = 'ok' | 'failed';

/** Where ledger entries go; the SQLite `Store` has this method. */
export interface UsageLedger {
  recordUsage(entry: LlmUsageEntry): unknown;
}

/** One booked call as reported to {@link LedgerMiddlewareOptions.onCall} (`prompt` and `completion` always `null` there). */
export interface LlmCallRecord extends LlmUsageEntry {
  readonly provider: string;
  /** Wall time of the call by the injected clock, in ms. */
  readonly durationMs: number;
}

/** Options of {@link createLedgerMiddleware}. */
export interface LedgerMiddlewareOptions {
  /** Receives one entry per booked call (see {@link createLedgerMiddleware} for which are booked). @default none */
  readonly ledger?: UsageLedger;
  /** Prices of the wrapped model. @default all 0 */
  readonly price?: LlmPrice;
  /** Context of every call (run, agent); a call's own tag (`llmCallOptions`) overrides it. @default {} */
  readonly context?: LlmCallContext;
  /** Clock for `durationMs`. @default Date.now */
  readonly now?: () => number;
  /** Called after every booked call (logs, trace spans). @default none */
  readonly onCall?: (record: LlmCallRecord) => void;
  /**
   * Book each call's prompt and completion text with it (the local store's traces). Turn it off
   * where prompts must not be kept; tokens, cost and timing are booked either way. @default true
   */
  readonly captureContent?: boolean;
}

/** Cost of a call: input × inputPerMillion / 1e6 + output × outputPerMillion / 1e6 + perCall. */
export function priceCall(price: LlmPrice, inputTokens: number, outputTokens: number): number {
  return (
    (inputTokens * (price.inputPerMillion ?? 0)) / 1_000_000 +
    (outputTokens * (price.outputPerMillion ?? 0)) / 1_000_000 +
    (price.perCall ?? 0)
  );
}

/** The `llm-call` trace span data of a call record (no prompt, no key). */
export function llmCallSpanData(record: LlmCallRecord): SpanData {
  return {
    type: 'llm-call',
    agentId: record.agentId ?? 'unknown',
    act: record.act ?? 'unknown',
    cached: record.cached,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    costUsd: record.cost,
    durationMs: record.durationMs,
    status: record.status,
    usageReported: record.usageReported,
    ...(record.attempts === null || record.attempts === undefined ? {} : { attempts: record.attempts }),
  };
}

const knownLedgerOptions = defineOptionKeys<LedgerMiddlewareOptions>()([
  'ledger',
  'price',
  'context',
  'now',
  'onCall',
  'captureContent',
]);
/** The keys of {@link LlmPrice}; internal (the llm barrel names what it exports). */
export const knownPriceKeys = defineOptionKeys<LlmPrice>()(['inputPerMillion', 'outputPerMillion', 'perCall']);

/**
 * Books every call the provider may have billed in a token and cost ledger, per run, agent, task and
 * act. Calls served by the cache middleware (placed inside this one) are booked with `cached: true`,
 * cost 0 and 0 attempts. A call that fails is booked with `status: 'failed'` when the provider may
 * have billed it: a stream that reported usage or produced output before its error part (or before
 * its reader cancelled it), a stream that broke off after it opened (a connection reset: the provider
 * had accepted the request), a call that timed out, was aborted in flight or got a reply outside the
 * protocol, and a call that succeeded at the provider but failed afterwards (its reply could not be
 * cached). A call that failed with nothing billed (an HTTP error status, no connection) is not
 * booked. Usage the provider did not report is booked as 0 with `usageReported: false`, never as a
 * silent zero; so is a call with a failed attempt that may have been billed (its tokens are then a
 * lower bound). `attempts` counts the provider attempts the retry middleware (inside this one) made.
 * A reported token count that is not an integer in [0, 100 000 000] is booked as 0, the rest of the
 * call as reported, and the call then fails with a `ProviderError` (reason `malformed`) naming the
 * field and value: a generate call throws it, a stream carries it as an error part just before its
 * finish part. A ledger that throws while booking fails the call with its error; when a generate
 * call had failed already, with a `StoreError` whose cause is an `AggregateError` of [the call's
 * error, the ledger's], so neither is lost.
 *
 * @example
 * wrapLanguageModel({ model, middleware: [createLedgerMiddleware({ ledger: store, price: { inputPerMillion: 0.15, outputPerMillion: 0.6 }, context: { runId, agentId } }), createCacheMiddleware({ cache: store })] });
 */
export function createLedgerMiddleware(options: LedgerMiddlewareOptions = {}): LanguageModelV3Middleware {
  assertKnownOptions('', options, knownLedgerOptions, 'createLedgerMiddleware');
  assertKnownOptions('price', options.price, knownPriceKeys, 'createLedgerMiddleware');
  const { ledger, price = {}, context = {}, now = Date.now, onCall, captureContent = true } = options;
  assertNonNegative('price.inputPerMillion', price.inputPerMillion ?? 0);
  assertNonNegative('price.outputPerMillion', price.outputPerMillion ?? 0);
  assertNonNegative('price.perCall', price.perCall ?? 0);

  const book = ({
    model,
    params,
    usage,
    cached,
    status,
    attempts,
    unreportedFailures,
    startedAt,
    completion,
  }: {
    model: { readonly provider: string; readonly modelId: string };
    params: Parameters<typeof readCallContext>[0];
    usage: LanguageModelV3Usage | undefined;
    cached: boolean;
    status: LlmCallStatus;
    attempts: number;
    unreportedFailures: number;
    startedAt: number;
    /** The reply's text so far (`''` when none). */
    completion: string;
  }): LlmUsageEntry => {
    const endedAt = now();
    const { inputTokens, outputTokens, reported } = readTokenUsage(usage);
    const merged = { ...context, ...readCallContext(params) };
    const entry: LlmUsageEntry = {
      runId: merged.runId ?? null,
      agentId: merged.agentId ?? null,
      taskId: merged.taskId ?? null,
      act: merged.act ?? null,
      model: model.modelId,
      inputTokens,
      outputTokens,
      cost: cached ? 0 : priceCall(price, inputTokens, outputTokens),
      cached,
      status,
      usageReported: reported && unreportedFailures === 0,
      attempts: cached ? 0 : attempts,
      startedAt,
      endedAt,
      prompt: captureContent ? promptText(params.prompt) : null,
      completion: captureContent && completion !== '' ? completion : null,
    };
    ledger?.recordUsage(entry);
    // onCall feeds logs and exported spans: it never gets the content.
    onCall?.({ ...entry, prompt: null, completion: null, provider: model.provider, durationMs: endedAt - startedAt });
    return entry;
  };

  // Books a call that failed with `callError`. When the ledger throws too, the call fails with a
  // StoreError that carries both, so the booking failure does not hide why the call failed.
  const bookFailed = (callError: unknown, booking: Parameters<typeof book>[0]): void => {
    try {
      book(booking);
    } catch (ledgerError) {
      throw new StoreError(
        `the ledger could not book a failed call to ${booking.model.provider} model ${JSON.stringify(booking.model.modelId)} (${messageOf(ledgerError)}); the call itself failed: ${messageOf(callError)}. Check the ledger's store (disk, permissions); the cause holds both errors`,
        { cause: new AggregateError([callError, ledgerError], 'the call failed, then booking it failed') },
      );
    }
  };

  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params, model }) {
      const startedAt = now();
      // A log left by an earlier call with the same options object is not this call's.
      takeAttemptLog(params);
      let result: Awaited<ReturnType<typeof doGenerate>>;
      try {
        result = await doGenerate();
      } catch (error) {
        const log = takeAttemptLog(params);
        const attempts = log?.attempts ?? 1;
        const unreportedFailures = log?.unreportedFailures ?? 0;
        // The provider answered (and was paid) before something inside failed, or an attempt may
        // have been billed without a report (a timeout, an abort in flight, a malformed reply).
        const paid = paidFailure(error);
        if (paid !== undefined || unreportedFailures > 0)
          bookFailed(error, {
            model,
            params,
            usage: paid?.usage,
            cached: false,
            status: 'failed',
            attempts,
            unreportedFailures: paid === undefined ? Math.max(1, unreportedFailures) : unreportedFailures,
            startedAt,
            completion: '',
          });
        throw error;
      }
      const log = takeAttemptLog(params);
      const { problems } = readTokenUsage(result.usage);
      const entry = book({
        model,
        params,
        usage: result.usage,
        cached: isCached(result),
        status: problems.length > 0 ? 'failed' : 'ok',
        attempts: log?.attempts ?? 1,
        unreportedFailures: log?.unreportedFailures ?? 0,
        startedAt,
        completion: result.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      });
      if (problems.length > 0)
        throw usageError({
          provider: model.provider,
          modelId: model.modelId,
          problems,
          seenBy: 'ledger',
          attempts: entry.attempts,
        });
      // createCompletion reads this back, so what an agent reports is what the ledger holds.
      return markBooked(result, {
        inputTokens: entry.inputTokens,
        outputTokens: entry.outputTokens,
        cost: entry.cost,
        cached: entry.cached,
        attempts: entry.attempts,
      });
    },
    async wrapStream({ doStream, params, model }) {
      const startedAt = now();
      takeAttemptLog(params);
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        // Opening failed: booked when an attempt may have been billed (e.g. timed out waiting for headers).
        const log = takeAttemptLog(params);
        if (log !== undefined && log.unreportedFailures > 0)
          bookFailed(error, {
            model,
            params,
            usage: undefined,
            cached: false,
            status: 'failed',
            attempts: log.attempts,
            unreportedFailures: log.unreportedFailures,
            startedAt,
            completion: '',
          });
        throw error;
      }
      const log = takeAttemptLog(params);
      const attempts = log?.attempts ?? 1;
      const unreportedFailures = log?.unreportedFailures ?? 0;
      const cached = isCached(result);
      let usage: LanguageModelV3Usage | undefined;
      let finished = false;
      let produced = false;
      let failed = false;
      let refused: unknown;
      let text = '';
      const checked = result.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'error') failed = true;
            if (producesOutput(part)) produced = true;
            if (part.type === 'text-delta' && captureContent) text += part.delta;
            if (part.type === 'finish') {
              finished = true;
              usage = part.usage;
              const { problems } = readTokenUsage(usage);
              // A stream that already failed is booked as failed anyway; its usage is not worth a second error.
              if (problems.length > 0 && !failed) {
                refused = usageError({
                  provider: model.provider,
                  modelId: model.modelId,
                  problems,
                  seenBy: 'ledger',
                  attempts,
                });
                controller.enqueue({ type: 'error', error: refused });
              }
            }
            controller.enqueue(part);
          },
        }),
      );
      const stream = observeStream(checked, {
        onEnd(end) {
          // Read to the end (or cancelled once its finish part was read) without an error: a success.
          const succeeded = end.type === 'done' || (end.type === 'cancel' && finished && !failed);
          // Otherwise booked when the provider may have billed it: it reported usage, produced
          // output, an opening attempt may have been billed, it failed only after a paid call, or the
          // stream broke after the provider accepted the request (a connection reset or an abort
          // while it may have been generating, e.g. hidden reasoning; an error part the provider
          // sends before any output is a refusal, not booked).
          const billed =
            finished ||
            produced ||
            unreportedFailures > 0 ||
            (end.type === 'error' &&
              (end.from === 'stream' || end.error === refused || paidFailure(end.error) !== undefined));
          if (!succeeded && !billed) return;
          const booking = {
            model,
            params,
            usage,
            cached,
            status: succeeded ? ('ok' as const) : ('failed' as const),
            attempts,
            unreportedFailures,
            startedAt,
            completion: text,
          };
          if (end.type === 'error') bookFailed(end.error, booking);
          else book(booking);
        },
      });
      return { ...result, stream };
    },
  };
}

/** The messages of a call as JSON, each message's content as its text (other parts as `[type]`). */
function promptText(prompt: Parameters<typeof readCallContext>[0]['prompt']): string {
  return JSON.stringify(
    prompt.map((message) => ({
      role: message.role,
      content:
        typeof message.content === 'string'
          ? message.content
          : message.content
              .map((part) => (part.type === 'text' || part.type === 'reasoning' ? part.text : `[${part.type}]`))
              .join(''),
    })),
  );
}

/** Whether a stream part shows that the model generated something (so the call was billed). */
function producesOutput(part: LanguageModelV3StreamPart): boolean {
  return (
    part.type === 'text-delta' ||
    part.type === 'reasoning-delta' ||
    part.type === 'tool-input-start' ||
    part.type === 'tool-input-delta' ||
    part.type === 'tool-call' ||
    part.type === 'file'
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
