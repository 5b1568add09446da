import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { DataFormatError, InvalidArgumentError, NotFoundError, StoreError } from '../core/errors.js';
import { markCached, markPaidFailure } from './_cached-marks.js';
import { stableStringify } from './_stable-json.js';
import { readTokenUsage } from './_token-usage.js';
import { answerFromReply } from '../agents/live-agent.js';
import type { AnswerKind } from '../core/answers/answer-kind.js';
import { answerKinds } from '../core/answers/answer-kind.js';
import { readAnswerKind, withoutCallContext } from './call-context.js';
import { raceAbort } from '../core/_race-abort.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';

/** `record`: serve hits, call the provider on misses and store the reply; `replay-only`: a miss throws; `off`: bypass. */
export type CacheMode = 'record' | 'replay-only' | 'off';

/** The cache modes, for validation and CLI help. */
export const CACHE_MODES: readonly CacheMode[] = ['record', 'replay-only', 'off'];

/** Where cached replies live; the SQLite `Store` has these two methods. */
export interface ResponseCache {
  /** The stored value, or `undefined`. */
  getCachedResponse(key: string): unknown;
  /** Stores a value; the first write of a key wins. */
  putCachedResponse(input: { key: string; value: unknown; model?: string | null }): unknown;
  /**
   * Optional, for a cache several processes share (the store has it): claims the provider call of a
   * key nobody has recorded, so identical requests from several processes call the provider once.
   */
  claimCachedResponse?(input: { key: string; holder: string; leaseMs: number }): 'claimed' | 'claimed-by-other' | 'hit';
  /** Ends a claim taken with {@link ResponseCache.claimCachedResponse}. */
  releaseCachedResponseClaim?(input: { key: string; holder: string }): void;
}

/** Options of {@link createCacheMiddleware}. */
export interface CacheMiddlewareOptions {
  /** Where responses are recorded and replayed from (e.g. the SQLite store). */
  readonly cache: ResponseCache;
  /** @default 'record' */
  readonly mode?: CacheMode;
  /** Provider part of the key. @default the wrapped model's provider (e.g. `openai-compatible.chat`) */
  readonly namespace?: string;
  /**
   * How long a recorded reply is reused, in ms (integer ≥ 1). Ours, not a per-entry expiry: time is
   * cut into windows of `ttlMs` from the epoch and the window is part of the key, so a reply is
   * reused within its window only (for at most `ttlMs`, at least 0 ms) and a new window records
   * afresh. @default none (replies never expire)
   */
  readonly ttlMs?: number;
  /** Clock of the TTL windows, in ms. @default Date.now */
  readonly now?: () => number;
  /**
   * With a cache that has claims (a shared store): how long this process's claim of a request lasts,
   * in milliseconds; set it above the call's timeout with its retries, so a live caller keeps it and a
   * dead one's claim ends. @default 120000
   */
  readonly claimLeaseMs?: number;
  /** This process's id as a claim holder, unique among the processes sharing the cache. @default `${hostname}:${pid}:${random}` */
  readonly claimHolder?: string;
}

/** Persisted shape of one cached reply. */
export interface CachedReply {
  readonly schemaVersion: 1;
  readonly type: 'generate' | 'stream';
  /** Encoded result (generate) or list of stream parts (stream). */
  readonly payload: unknown;
}

/**
 * The cache key of a request: SHA-256 (hex) of the stable JSON of provider, model id, call type
 * and every call option (prompt, settings, tools, response format, provider options) except the
 * abort signal, HTTP headers and the Repute call-context tag.
 */
export function requestCacheKey({
  provider,
  modelId,
  type,
  params,
}: {
  provider: string;
  modelId: string;
  type: 'generate' | 'stream';
  params: LanguageModelV3CallOptions;
}): string {
  const { abortSignal: _signal, headers: _headers, ...rest } = withoutCallContext(params);
  // No provider options and none left once the tag is dropped are the same request: both key as {}
  // (so an untagged call finds what a tagged one recorded; tagged calls always keyed this way).
  const request = { ...rest, providerOptions: rest.providerOptions ?? {} };
  const text = stableStringify({ schemaVersion: 1, provider, modelId, type, params: request });
  return createHash('sha256').update(text).digest('hex');
}

const knownCacheOptions = defineOptionKeys<CacheMiddlewareOptions>()([
  'cache',
  'mode',
  'namespace',
  'ttlMs',
  'now',
  'claimLeaseMs',
  'claimHolder',
]);

/** First and longest wait between looks at a request another process has claimed, in milliseconds. */
const CLAIM_POLL_MS = [25, 400] as const;

/**
 * Record/replay cache keyed by {@link requestCacheKey}: a rerun of the same requests makes zero
 * provider calls and gets identical results (the recording call also gets the decoded stored
 * copy, so first and later runs see the same object). Identical requests in flight at the same
 * time share one provider call (and its failure, unless the caller that made it aborted). A generate
 * reply with no content (blank text at most), or whose usage holds a count that is no token count,
 * is passed on but not recorded. When storing a reply fails, the caller whose call it was gets a
 * `StoreError` marked as raised after a paid call (so the ledger still books the call); callers
 * waiting on the same call get the reply.
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * wrapLanguageModel({ model, middleware: createCacheMiddleware({ cache: store, mode: 'record' }) });
 */
export function createCacheMiddleware(options: CacheMiddlewareOptions): LanguageModelV3Middleware {
  assertKnownOptions('', options, knownCacheOptions, 'createCacheMiddleware');
  const {
    cache,
    mode = 'record',
    namespace,
    ttlMs,
    now = Date.now,
    claimLeaseMs = 120_000,
    claimHolder = `${hostname()}:${process.pid}:${randomUUID()}`,
  } = options;
  if (ttlMs !== undefined)
    assertInteger('ttlMs', ttlMs, 1, Number.MAX_SAFE_INTEGER, 'pass how long a reply is reused in ms, e.g. 3600000');
  if (!CACHE_MODES.includes(mode)) {
    throw new InvalidArgumentError({
      parameter: 'cacheMode',
      value: mode,
      message: `cacheMode must be one of ${CACHE_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    });
  }
  /** Generate calls on their way to the provider, by key, with the abort signal of the caller that made them. */
  const inFlight = new Map<
    string,
    { readonly reply: Promise<CachedReply>; readonly signal: AbortSignal | undefined }
  >();
  /** The cache key of a request to `model`, under `namespace` when one is set. */
  const keyOf = (
    type: CachedReply['type'],
    params: LanguageModelV3CallOptions,
    model: { readonly provider: string; readonly modelId: string },
  ) => {
    const key = requestCacheKey({ provider: namespace ?? model.provider, modelId: model.modelId, type, params });
    return ttlMs === undefined ? key : `${key}:ttl${ttlMs}:${Math.floor(now() / ttlMs)}`;
  };

  const lookup = (key: string, type: CachedReply['type'], modelId: string): CachedReply | undefined => {
    const value = cache.getCachedResponse(key);
    if (value === undefined) {
      if (mode === 'replay-only') {
        throw new NotFoundError({
          entity: 'llm cache entry',
          id: key,
          message: `cache mode is replay-only and no reply is recorded for this ${type} request to model ${JSON.stringify(modelId)} (key ${key.slice(0, 16)}…); run once with cache mode 'record', or check that prompt and settings match the recorded run`,
        });
      }
      return undefined;
    }
    const reply = value as CachedReply;
    if (
      reply === null ||
      typeof reply !== 'object' ||
      reply.schemaVersion !== 1 ||
      reply.type !== type ||
      !(type === 'generate' ? isGeneratePayload(reply.payload) : isStreamPayload(reply.payload))
    ) {
      throw new DataFormatError({
        file: 'llm_cache',
        message: `cache entry ${key.slice(0, 16)}… is not a schemaVersion 1 ${type} reply; delete it or use a fresh store`,
      });
    }
    return reply;
  };

  /**
   * Claims the provider call of `key` for this process, or waits for the process that holds the
   * claim to record its reply (looking again after 25 ms, doubling to 400 ms). Returns the recorded
   * reply, or `undefined` when this process holds the claim and must call. A holder that dies
   * without recording loses its claim after its lease; a holder whose call failed releases it.
   */
  const claimOrWait = async (
    key: string,
    modelId: string,
    signal: AbortSignal | undefined,
  ): Promise<CachedReply | undefined> => {
    for (let wait: number = CLAIM_POLL_MS[0]; ; wait = Math.min(wait * 2, CLAIM_POLL_MS[1])) {
      const state = cache.claimCachedResponse?.({ key, holder: claimHolder, leaseMs: claimLeaseMs });
      if (state === 'claimed' || state === undefined) return undefined;
      if (state === 'hit') {
        const hit = lookup(key, 'generate', modelId);
        if (hit !== undefined) return hit;
      }
      await raceAbort(new Promise((resolve) => setTimeout(resolve, wait)), signal);
    }
  };

  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params, model }) {
      if (mode === 'off') return doGenerate();
      const key = keyOf('generate', params, model);
      const signal = params.abortSignal;
      // A reply that must hold an answer and holds none (a bad reply) is never served as a success.
      const answerKind = readAnswerKind(params);
      const usable = (result: LanguageModelV3GenerateResult) => holdsAnswer(result, answerKind);
      for (;;) {
        const hit = lookup(key, 'generate', model.modelId);
        if (hit !== undefined) {
          const decoded = decodeGenerate(hit.payload);
          // Recorded before this check existed: ask the provider again (the old entry stays, unused).
          if (!usable(decoded)) break;
          return markCached(decoded);
        }
        const pending = inFlight.get(key);
        if (pending === undefined) break;
        try {
          return markCached(decodeGenerate((await raceAbort(pending.reply, signal)).payload));
        } catch (error) {
          // Our own caller gave up, or the shared call failed: that failure is ours too (retrying
          // it once per waiting caller would multiply the requests to a failing endpoint)...
          if (signal?.aborted || !pending.signal?.aborted) throw error;
          // ...unless it was aborted by the caller that made it: then ask again ourselves.
          if (inFlight.get(key) === pending) inFlight.delete(key);
        }
      }
      const callAndRecord = async (): Promise<{ reply: CachedReply; writeError?: { error: unknown } }> => {
        const result = await doGenerate();
        const reply: CachedReply = { schemaVersion: 1, type: 'generate', payload: encodeGenerate(result) };
        // An empty reply, or one whose usage is no usage, is a failure of the endpoint, not an answer
        // to replay on every rerun.
        if (isEmptyReply(result) || readTokenUsage(result.usage).problems.length > 0 || !usable(result))
          return { reply };
        try {
          cache.putCachedResponse({ key, value: reply, model: model.modelId });
        } catch (error) {
          // The call is made and paid for: keep its reply for this caller's ledger and the waiters.
          return { reply, writeError: { error } };
        }
        return { reply };
      };
      const call = (async (): Promise<{ reply: CachedReply; writeError?: { error: unknown }; hit?: true }> => {
        // A cache shared by several processes: one of them calls, the others wait for its reply.
        if (mode === 'record' && cache.claimCachedResponse !== undefined) {
          const hit = await claimOrWait(key, model.modelId, signal);
          if (hit !== undefined) return { reply: hit, hit: true };
        }
        try {
          return await callAndRecord();
        } finally {
          if (mode === 'record') cache.releaseCachedResponseClaim?.({ key, holder: claimHolder });
        }
      })();
      const reply = call.then((outcome) => outcome.reply);
      // Waiters await `reply`; when there are none, the maker's own await below handles the failure.
      reply.catch(() => {});
      const entry = { reply, signal };
      inFlight.set(key, entry);
      try {
        const outcome = await call;
        const decoded = decodeGenerate(outcome.reply.payload);
        if (outcome.hit) return markCached(decoded);
        if (outcome.writeError !== undefined)
          throw markPaidFailure(cacheWriteError(outcome.writeError.error, key, model.modelId), decoded.usage);
        return decoded;
      } finally {
        if (inFlight.get(key) === entry) inFlight.delete(key);
      }
    },
    async wrapStream({ doStream, params, model }) {
      if (mode === 'off') return doStream();
      const key = keyOf('stream', params, model);
      const hit = lookup(key, 'stream', model.modelId);
      if (hit !== undefined) {
        const parts = decode(hit.payload) as LanguageModelV3StreamPart[];
        const stream = new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        });
        return markCached({ stream });
      }
      const result = await doStream();
      const parts: LanguageModelV3StreamPart[] = [];
      let failed = false;
      let usageRefused = false;
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'error') failed = true;
            if (part.type === 'finish' && readTokenUsage(part.usage).problems.length > 0) usageRefused = true;
            if (part.type !== 'raw') parts.push(part);
            controller.enqueue(part);
          },
          // Runs only when the source ended normally (not on error or cancel): only complete,
          // error-free streams with a real usage are worth replaying.
          flush(controller) {
            if (failed || usageRefused) return;
            try {
              cache.putCachedResponse({
                key,
                value: { schemaVersion: 1, type: 'stream', payload: encode(parts) } satisfies CachedReply,
                model: model.modelId,
              });
            } catch (error) {
              // Reported the way a stream failing at its end reports, marked so the ledger books the paid call.
              controller.enqueue({
                type: 'error',
                error: markPaidFailure(cacheWriteError(error, key, model.modelId)),
              });
            }
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

/** The error of a reply that could not be stored: names the model and key, keeps the store's error as cause. */
function cacheWriteError(error: unknown, key: string, modelId: string): StoreError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreError(
    `recording the reply of model ${JSON.stringify(modelId)} in the cache failed (key ${key.slice(0, 16)}…): ${reason}; the provider call succeeded and the ledger books it as paid, but a rerun will ask the provider again; check that the store is open, writable and its disk has room`,
    { cause: error },
  );
}

/**
 * A reply with nothing to answer from (`complete` refuses it as empty): no non-blank text part and no
 * tool call. Reasoning alone counts as empty (a reasoning model that put everything in
 * `reasoning_content`), so the next run asks again instead of replaying the failure.
 */
function isEmptyReply(result: LanguageModelV3GenerateResult): boolean {
  return !result.content.some(
    (part) => (part.type === 'text' && part.text.trim().length > 0) || part.type === 'tool-call',
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether a reply holds an answer of `kind` (any reply does when no kind is asked for). */
function holdsAnswer(result: LanguageModelV3GenerateResult, kind: string | undefined): boolean {
  if (kind === undefined || !(answerKinds as readonly string[]).includes(kind)) return true;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return answerFromReply(kind as AnswerKind, text) !== null;
}

/** Whether an encoded generate result has the members the AI SDK reads (content, finish reason, usage). */
function isGeneratePayload(payload: unknown): boolean {
  return (
    isRecord(payload) &&
    Array.isArray(payload.content) &&
    payload.content.every((part) => isRecord(part) && typeof part.type === 'string') &&
    isRecord(payload.finishReason) &&
    isRecord(payload.usage) &&
    isRecord(payload.usage.inputTokens) &&
    isRecord(payload.usage.outputTokens)
  );
}

/** Whether an encoded stream is a list of parts. */
function isStreamPayload(payload: unknown): boolean {
  return Array.isArray(payload) && payload.every((part) => isRecord(part) && typeof part.type === 'string');
}

// Request and response bodies and headers are left out: they are for debugging, may be large,
// and the reply must not depend on them.
function encodeGenerate(result: LanguageModelV3GenerateResult): unknown {
  return encode({
    content: result.content,
    finishReason: result.finishReason,
    usage: result.usage,
    providerMetadata: result.providerMetadata,
    warnings: result.warnings,
    response:
      result.response === undefined
        ? undefined
        : { id: result.response.id, modelId: result.response.modelId, timestamp: result.response.timestamp },
  });
}

function decodeGenerate(payload: unknown): LanguageModelV3GenerateResult {
  return decode(payload) as LanguageModelV3GenerateResult;
}

/** JSON-safe copy: dates become `{ $date }`, bytes `{ $bytes }`, undefined members are dropped. */
function encode(value: unknown): unknown {
  if (value instanceof Date) return { $date: value.toISOString() };
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  if (value instanceof URL) return value.href;
  if (Array.isArray(value)) return value.map((item) => encode(item) ?? null);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const encoded = encode(inner);
      if (encoded !== undefined) out[key] = encoded;
    }
    return out;
  }
  return value;
}

function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && typeof record.$date === 'string') return new Date(record.$date);
    if (keys.length === 1 && typeof record.$bytes === 'string')
      return new Uint8Array(Buffer.from(record.$bytes, 'base64'));
    const out: Record<string, unknown> = {};
    for (const key of keys) out[key] = decode(record[key]);
    return out;
  }
  return value;
}
