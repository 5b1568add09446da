import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3, LanguageModelV3Middleware } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { InvalidArgumentError } from '../core/errors.js';
import { assertInteger, assertKnownOptions, assertNonEmptyString, defineOptionKeys } from '../core/validate.js';
import { createCacheMiddleware, CACHE_MODES, type CacheMode, type ResponseCache } from './cache-middleware.js';
import { withoutCallContext, type LlmCallContext } from './call-context.js';
import { createConcurrencyMiddleware } from './concurrency-middleware.js';
import {
  createLedgerMiddleware,
  knownPriceKeys,
  type LlmCallRecord,
  type LlmPrice,
  type UsageLedger,
} from './ledger-middleware.js';
import { createRetryMiddleware, knownRetryPolicyOptions, type RetryPolicyOptions } from './retry-middleware.js';
import { createBoundedFetch } from './bounded-fetch.js';
import { defaultApiKeyEnv } from './key-policy.js';
import { readApiKey } from './_secrets.js';
import { createProviderLimiter, endpointKey, type ProviderLimiter } from './semaphore.js';
import { createTimeoutMiddleware } from './timeout-middleware.js';

/** Providers {@link createLanguageModel} can build. */
export type LlmProvider = 'openai-compatible' | 'openai' | 'anthropic';

/** The providers, for validation and CLI help. */
export const LLM_PROVIDERS: readonly LlmProvider[] = ['openai-compatible', 'openai', 'anthropic'];

const DEFAULT_API_KEY_ENV: Readonly<Record<LlmProvider, string | undefined>> = defaultApiKeyEnv;

/**
 * Reads the API key {@link createLanguageModel} would read for this provider and `apiKeyEnv`, and
 * throws the same error when it is missing (naming the variable, never a key), without building a
 * model: callers check every agent's key before they write anything.
 */
export function checkApiKey(provider: LlmProvider, apiKeyEnv?: string, parameter = 'apiKeyEnv'): void {
  const variable = apiKeyEnv ?? DEFAULT_API_KEY_ENV[provider];
  if (variable !== undefined) readApiKey(variable, provider, parameter);
}

/**
 * Limiter shared by every model built without an explicit `limiter`, so that agents on the same
 * endpoint share one concurrency bound within the process.
 */
export const sharedProviderLimiter: ProviderLimiter = createProviderLimiter();

/** The plumbing around a model: cache, ledger, concurrency, timeout and retries. */
export interface LlmPlumbingOptions {
  /** Record/replay cache (e.g. the SQLite store). @default none (no caching) */
  readonly cache?: ResponseCache;
  /** Cache mode; needs `cache` unless `off`. @default 'record' when `cache` is given, else 'off' */
  readonly cacheMode?: CacheMode;
  /** How long a recorded reply is reused, in ms (windows from the epoch; see the cache middleware's `ttlMs`). @default none (never expires) */
  readonly cacheTtlMs?: number;
  /** Cost ledger (e.g. the SQLite store). @default none */
  readonly ledger?: UsageLedger;
  /** Prices of this model. @default all 0 */
  readonly price?: LlmPrice;
  /** Run and agent of every call; a call's own `llmCallOptions` tag overrides it. @default {} */
  readonly context?: LlmCallContext;
  /** Registry of per-endpoint semaphores. @default sharedProviderLimiter */
  readonly limiter?: ProviderLimiter;
  /** Concurrent requests to this endpoint, integer ≥ 1. @default the limiter's default (8) */
  readonly maxConcurrency?: number;
  /** Per-attempt timeout in ms (a generate call, opening a stream, each wait for a stream's next part). @default 60000 */
  readonly timeoutMs?: number;
  /** Longest a stream may run once open, in ms; past it the stream ends with a `StreamLimitError`. @default 600000 */
  readonly maxStreamDurationMs?: number;
  /** Most characters of text, reasoning and tool-input deltas one stream may deliver; past it, a `StreamLimitError`. @default 1000000 */
  readonly maxStreamOutputChars?: number;
  /** Retry settings (count, backoff, jitter rng, sleep, clock). @default { maxRetries: 2 } */
  readonly retry?: RetryPolicyOptions;
  /** Clock for call durations, in ms. @default Date.now */
  readonly now?: () => number;
  /** Called after every finished call (logs, trace spans); never receives prompts or keys. @default none */
  readonly onCall?: (record: LlmCallRecord) => void;
  /** Book each call's prompt and completion text in the ledger (the store's traces). @default true */
  readonly captureContent?: boolean;
}

/** Options of {@link wrapWithPlumbing}. */
export interface WrapWithPlumbingOptions extends LlmPlumbingOptions {
  /** The model to wrap (any AI SDK v3 language model, including `ScriptedModel`). */
  readonly model: LanguageModelV3;
  /** Provider name in errors and the concurrency key. @default model.provider */
  readonly provider?: string;
  /** Base URL part of the concurrency key. @default 'default' */
  readonly baseURL?: string;
  /** Environment variable of the key, named in 401/403 hints. @default none (hints name no variable) */
  readonly apiKeyEnv?: string;
  /** Secrets to scrub from error messages. @default [] */
  readonly secrets?: readonly string[];
}

/** Options of {@link createLanguageModel}. */
export interface CreateLanguageModelOptions extends LlmPlumbingOptions {
  /** Which AI SDK provider serves the model. */
  readonly provider: LlmProvider;
  /** Model id at the provider, e.g. `gpt-4o-mini`, `claude-3-5-haiku-latest`, `qwen2.5:7b`. */
  readonly model: string;
  /** API root; required for `openai-compatible` (e.g. `http://127.0.0.1:11434/v1`). @default the provider's public API */
  readonly baseURL?: string;
  /**
   * Name of the environment variable holding the API key (never the key itself). Keys are read
   * from `process.env` only. @default OPENAI_API_KEY for openai, ANTHROPIC_API_KEY for anthropic, none for openai-compatible
   */
  readonly apiKeyEnv?: string;
  /** Extra HTTP headers (not secrets: they are not scrubbed). @default {} */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Most bytes of one response body, enforced while it streams in (`createBoundedFetch`); a larger
   * reply fails the call as malformed, not retried. @default 1048576 (1 MiB)
   */
  readonly maxResponseBytes?: number;
}

const knownPlumbingOptions = defineOptionKeys<LlmPlumbingOptions>()([
  'cache',
  'cacheMode',
  'ledger',
  'price',
  'context',
  'limiter',
  'maxConcurrency',
  'timeoutMs',
  'maxStreamDurationMs',
  'maxStreamOutputChars',
  'retry',
  'now',
  'onCall',
  'captureContent',
  'cacheTtlMs',
]);
const knownCreateOptions = defineOptionKeys<CreateLanguageModelOptions>()([
  ...knownPlumbingOptions,
  'provider',
  'model',
  'baseURL',
  'apiKeyEnv',
  'headers',
  'maxResponseBytes',
]);
const knownWrapOptions = defineOptionKeys<WrapWithPlumbingOptions>()([
  ...knownPlumbingOptions,
  'model',
  'provider',
  'baseURL',
  'apiKeyEnv',
  'secrets',
]);

/** Checks the keys of the options and of their nested `retry` and `price`. */
function assertKnownLlmOptions(options: LlmPlumbingOptions, known: readonly string[], owner: string): void {
  assertKnownOptions('', options, known, owner);
  assertKnownOptions('retry', options.retry, knownRetryPolicyOptions, owner);
  assertKnownOptions('price', options.price, knownPriceKeys, owner);
}

/**
 * Builds an AI SDK language model for a provider and wraps it in Repute's plumbing (outermost
 * first): ledger → cache → retries → concurrency bound → per-attempt timeout → provider. The API key
 * comes from `process.env[apiKeyEnv]` only, and is scrubbed from every error. Call it with
 * `generateText({ model, prompt, maxRetries: 0 })` so retries happen here, once.
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * const model = createLanguageModel({
 *   provider: 'openai-compatible', model: 'qwen2.5:7b', baseURL: 'http://127.0.0.1:11434/v1',
 *   cache: store, ledger: store, context: { runId: 'run-1', agentId: 'qwen-1' },
 * });
 * const { text } = await generateText({ model, prompt: '2 + 2 = ?', maxRetries: 0, ...llmCallOptions({ taskId: 't1', act: 'propose' }) });
 */
export function createLanguageModel(options: CreateLanguageModelOptions): LanguageModelV3 {
  assertKnownLlmOptions(options, knownCreateOptions, 'createLanguageModel');
  // `headers` goes to the provider; the rest is wrapWithPlumbing's.
  const { provider, model, baseURL, headers, maxResponseBytes, ...plumbing } = options;
  // Validated here, before any key is read; every request of this model reads at most this much.
  const fetch = createBoundedFetch(maxResponseBytes === undefined ? {} : { maxResponseBytes });
  if (!LLM_PROVIDERS.includes(provider)) {
    throw new InvalidArgumentError({
      parameter: 'provider',
      value: provider,
      message: `provider must be one of ${LLM_PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}`,
    });
  }
  assertNonEmptyString('model', model, "pass the provider's model id, e.g. 'gpt-4o-mini'");
  if (baseURL !== undefined) assertBaseURL(baseURL);
  if (provider === 'openai-compatible' && baseURL === undefined) {
    throw new InvalidArgumentError({
      parameter: 'baseURL',
      value: baseURL,
      message:
        "baseURL is required for provider 'openai-compatible'; pass e.g. 'http://127.0.0.1:11434/v1' (Ollama) or 'http://127.0.0.1:8000/v1' (vLLM)",
    });
  }
  const apiKeyEnv = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV[provider];
  const apiKey = apiKeyEnv === undefined ? undefined : readApiKey(apiKeyEnv, provider);

  let base: LanguageModelV3;
  switch (provider) {
    case 'openai-compatible':
      base = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: baseURL!,
        includeUsage: true,
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(headers === undefined ? {} : { headers: { ...headers } }),
        fetch,
      }).chatModel(model);
      break;
    case 'openai':
      base = createOpenAI({ ...hostedSettings(apiKey, baseURL, headers), fetch })(model);
      break;
    case 'anthropic':
      base = createAnthropic({ ...hostedSettings(apiKey, baseURL, headers), fetch })(model);
      break;
  }
  return wrapWithPlumbing({
    ...plumbing,
    model: base,
    provider,
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    secrets: apiKey === undefined ? [] : [apiKey],
  });
}

/**
 * Wraps any AI SDK language model in Repute's plumbing (see {@link createLanguageModel}); use it
 * for models you build yourself or for `ScriptedModel` in tests.
 *
 * @example
 * const model = wrapWithPlumbing({ model: new ScriptedModel({ replies: ['4'] }), cache: store, ledger: store });
 */
export function wrapWithPlumbing(options: WrapWithPlumbingOptions): LanguageModelV3 {
  assertKnownLlmOptions(options, knownWrapOptions, 'wrapWithPlumbing');
  const {
    model,
    cache,
    cacheTtlMs,
    ledger,
    price,
    context,
    limiter = sharedProviderLimiter,
    maxConcurrency,
    timeoutMs = 60_000,
    maxStreamDurationMs,
    maxStreamOutputChars,
    retry = {},
    now,
    onCall,
    captureContent,
    apiKeyEnv,
    secrets = [],
  } = options;
  const provider = options.provider ?? model.provider;
  const cacheMode = options.cacheMode ?? (cache === undefined ? 'off' : 'record');
  if (!CACHE_MODES.includes(cacheMode)) {
    throw new InvalidArgumentError({
      parameter: 'cacheMode',
      value: cacheMode,
      message: `cacheMode must be one of ${CACHE_MODES.join(', ')}, got ${JSON.stringify(cacheMode)}`,
    });
  }
  if (cacheMode !== 'off' && cache === undefined) {
    throw new InvalidArgumentError({
      parameter: 'cache',
      value: cache,
      message: `cacheMode ${JSON.stringify(cacheMode)} needs a cache; pass { cache: store } (an openStore() store) or cacheMode: 'off'`,
    });
  }
  if (maxConcurrency !== undefined)
    assertInteger('maxConcurrency', maxConcurrency, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. { maxConcurrency: 4 }');
  assertInteger('timeoutMs', timeoutMs, 1, 2_147_483_647, 'pass the per-attempt timeout in milliseconds, e.g. 60000');

  const middleware: LanguageModelV3Middleware[] = [
    createLedgerMiddleware({
      ...(ledger === undefined ? {} : { ledger }),
      ...(price === undefined ? {} : { price }),
      ...(context === undefined ? {} : { context }),
      ...(now === undefined ? {} : { now }),
      ...(onCall === undefined ? {} : { onCall }),
      ...(captureContent === undefined ? {} : { captureContent }),
    }),
  ];
  if (cacheMode !== 'off')
    middleware.push(
      createCacheMiddleware({
        cache: cache!,
        mode: cacheMode,
        namespace: provider,
        ...(cacheTtlMs === undefined ? {} : { ttlMs: cacheTtlMs }),
        ...(now === undefined ? {} : { now }),
      }),
    );
  middleware.push(
    createRetryMiddleware({
      ...retry,
      provider,
      modelId: model.modelId,
      secrets,
      ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    }),
    createConcurrencyMiddleware({
      semaphore: limiter.semaphore(endpointKey(provider, options.baseURL), maxConcurrency),
    }),
    createTimeoutMiddleware({
      timeoutMs,
      ...(maxStreamDurationMs === undefined ? {} : { maxStreamDurationMs }),
      ...(maxStreamOutputChars === undefined ? {} : { maxStreamOutputChars }),
    }),
    stripCallContextMiddleware,
  );
  return wrapLanguageModel({ model, middleware });
}

// The call-context tag is Repute's own; providers never see it.
const stripCallContextMiddleware: LanguageModelV3Middleware = {
  specificationVersion: 'v3',
  transformParams: async ({ params }) => withoutCallContext(params),
};

/** Settings of the OpenAI and Anthropic providers: only what was given (their own defaults otherwise). */
function hostedSettings(
  apiKey: string | undefined,
  baseURL: string | undefined,
  headers: Readonly<Record<string, string>> | undefined,
): { apiKey?: string; baseURL?: string; headers?: Record<string, string> } {
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(headers === undefined ? {} : { headers: { ...headers } }),
  };
}

function assertBaseURL(baseURL: string): void {
  let url: URL | undefined;
  try {
    url = new URL(baseURL);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidArgumentError({
      parameter: 'baseURL',
      value: baseURL,
      message: `baseURL must be an http(s) URL, got ${JSON.stringify(baseURL)}; pass e.g. 'http://127.0.0.1:11434/v1'`,
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidArgumentError({
      parameter: 'baseURL',
      value: '[redacted]',
      message: 'baseURL must not carry credentials; put the key in an environment variable and name it in apiKeyEnv',
    });
  }
}
