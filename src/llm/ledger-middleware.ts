import type { LanguageModelV3Middleware, LanguageModelV3Usage } from '@ai-sdk/provider';
import { assertNonNegative } from '../core/validate.js';
import type { SpanData } from '../core/trace.js';
import { isCached, markBooked } from './_cached-marks.js';
import { observeStream } from './_observe-stream.js';
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
 * Failed calls are not booked.
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
  ) => {
    const inputTokens = tokenCount(usage?.inputTokens.total);
    const outputTokens = tokenCount(usage?.outputTokens.total);
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
      const result = await doGenerate();
      const entry = book(
        model.provider,
        model.modelId,
        readCallContext(params),
        result.usage,
        isCached(result),
        startedAt,
      );
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
      const stream = observeStream(result.stream, {
        onPart(part) {
          if (part.type === 'finish') usage = part.usage;
        },
        onEnd(end) {
          if (end.type === 'done')
            book(model.provider, model.modelId, readCallContext(params), usage, cached, startedAt);
        },
      });
      return { ...result, stream };
    },
  };
}

/** A provider's token count as the ledger books it: a finite positive number rounded, else 0. */
export function tokenCount(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}
