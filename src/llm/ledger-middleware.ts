import type { LanguageModelV3Middleware, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { assertNonNegative } from '../core/validate.js';
import type { SpanData } from '../core/trace.js';
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
  /** Cost of the call, ≥ 0; 0 when served from the cache. */
  readonly cost: number;
  readonly cached: boolean;
}

/** Where ledger entries go; the SQLite `Store` has this method. */
export interface UsageLedger {
  recordUsage(entry: LlmUsageEntry): unknown;
}

/** One finished call as reported to {@link LedgerMiddlewareOptions.onCall}. */
export interface LlmCallRecord extends LlmUsageEntry {
  readonly provider: string;
  /** Wall time of the call by the injected clock, in ms. */
  readonly durationMs: number;
}

/** Options of {@link createLedgerMiddleware}. */
export interface LedgerMiddlewareOptions {
  /** Receives one entry per finished call. @default none */
  readonly ledger?: UsageLedger;
  /** Prices of the wrapped model. @default all 0 */
  readonly price?: LlmPrice;
  /** Context of every call (run, agent); a call's own tag (`llmCallOptions`) overrides it. @default {} */
  readonly context?: LlmCallContext;
  /** Clock for `durationMs`. @default Date.now */
  readonly now?: () => number;
  /** Called after every finished call (logs, trace spans). @default none */
  readonly onCall?: (record: LlmCallRecord) => void;
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
  };
}

/**
 * Books every finished call in a token and cost ledger, per run, agent, task and act. Calls served
 * by the cache middleware (placed inside this one) are booked with `cached: true` and cost 0.
 * Failed calls are not booked; a stream that carried an error part is a failed call. A call that
 * succeeded at the provider and failed afterwards (its reply could not be cached) is booked, then
 * its error passed on. A reported token count that is not an integer in [0, 100 000 000] is booked
 * as 0, the rest of the call as reported, and the call then fails with a `ProviderError` (reason
 * `malformed`) naming the field and value: a generate call throws it, a stream carries it as an
 * error part just before its finish part.
 *
 * @example
 * wrapLanguageModel({ model, middleware: [createLedgerMiddleware({ ledger: store, price: { inputPerMillion: 0.15, outputPerMillion: 0.6 }, context: { runId, agentId } }), createCacheMiddleware({ cache: store })] });
 */
export function createLedgerMiddleware({
  ledger,
  price = {},
  context = {},
  now = Date.now,
  onCall,
}: LedgerMiddlewareOptions = {}): LanguageModelV3Middleware {
  assertNonNegative('price.inputPerMillion', price.inputPerMillion ?? 0);
  assertNonNegative('price.outputPerMillion', price.outputPerMillion ?? 0);
  assertNonNegative('price.perCall', price.perCall ?? 0);

  const book = (
    provider: string,
    modelId: string,
    callContext: LlmCallContext,
    usage: LanguageModelV3Usage | undefined,
    cached: boolean,
    startedAt: number,
  ): LlmUsageEntry => {
    const { inputTokens, outputTokens } = readTokenUsage(usage);
    const merged = { ...context, ...callContext };
    const entry: LlmUsageEntry = {
      runId: merged.runId ?? null,
      agentId: merged.agentId ?? null,
      taskId: merged.taskId ?? null,
      act: merged.act ?? null,
      model: modelId,
      inputTokens,
      outputTokens,
      cost: cached ? 0 : priceCall(price, inputTokens, outputTokens),
      cached,
    };
    ledger?.recordUsage(entry);
    onCall?.({ ...entry, provider, durationMs: now() - startedAt });
    return entry;
  };

  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params, model }) {
      const startedAt = now();
      let result: Awaited<ReturnType<typeof doGenerate>>;
      try {
        result = await doGenerate();
      } catch (error) {
        // The provider answered (and was paid) before something inside failed: book the call anyway.
        const paid = paidFailure(error);
        if (paid !== undefined)
          book(model.provider, model.modelId, readCallContext(params), paid.usage, false, startedAt);
        throw error;
      }
      const entry = book(
        model.provider,
        model.modelId,
        readCallContext(params),
        result.usage,
        isCached(result),
        startedAt,
      );
      const { problems } = readTokenUsage(result.usage);
      if (problems.length > 0)
        throw usageError({
          provider: model.provider,
          modelId: model.modelId,
          problems,
          seenBy: 'ledger',
        });
      // createCompletion reads this back, so what an agent reports is what the ledger holds.
      return markBooked(result, {
        inputTokens: entry.inputTokens,
        outputTokens: entry.outputTokens,
        cost: entry.cost,
        cached: entry.cached,
      });
    },
    async wrapStream({ doStream, params, model }) {
      const startedAt = now();
      const result = await doStream();
      const cached = isCached(result);
      let usage: LanguageModelV3Usage | undefined;
      let failed = false;
      let refused: unknown;
      const checked = result.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'error') failed = true;
            if (part.type === 'finish') {
              usage = part.usage;
              const { problems } = readTokenUsage(usage);
              // A stream that already failed is not booked; its usage is not worth a second error.
              if (problems.length > 0 && !failed) {
                refused = usageError({
                  provider: model.provider,
                  modelId: model.modelId,
                  problems,
                  seenBy: 'ledger',
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
          // Booked: streams read to the end, and paid ones that failed only afterwards (refused
          // usage, a reply the cache could not store). Not booked: failed or cancelled streams.
          const paid =
            end.type === 'done' ||
            (end.type === 'error' && (end.error === refused || paidFailure(end.error) !== undefined));
          if (paid) book(model.provider, model.modelId, readCallContext(params), usage, cached, startedAt);
        },
      });
      return { ...result, stream };
    },
  };
}
