export {
  createLanguageModel,
  wrapWithPlumbing,
  sharedProviderLimiter,
  LLM_PROVIDERS,
} from './create-language-model.js';
export type {
  CreateLanguageModelOptions,
  LlmPlumbingOptions,
  LlmProvider,
  WrapWithPlumbingOptions,
} from './create-language-model.js';
export { createCacheMiddleware, requestCacheKey, CACHE_MODES } from './cache-middleware.js';
export type { CacheMiddlewareOptions, CacheMode, CachedReply, ResponseCache } from './cache-middleware.js';
export { createCompletion } from './complete.js';
export type { CreateCompletionOptions } from './complete.js';
export { createLedgerMiddleware, priceCall, llmCallSpanData } from './ledger-middleware.js';
export type {
  LedgerMiddlewareOptions,
  LlmCallRecord,
  LlmPrice,
  LlmUsageEntry,
  UsageLedger,
} from './ledger-middleware.js';
export { createRetryMiddleware, defaultSleep } from './retry-middleware.js';
export type { RetryEvent, RetryOptions, Sleep } from './retry-middleware.js';
export {
  createTimeoutMiddleware,
  AttemptTimeoutError,
  StreamLimitError,
  defaultMaxStreamDurationMs,
  defaultMaxStreamOutputChars,
} from './timeout-middleware.js';
export type { StreamLimit, TimeoutMiddlewareOptions } from './timeout-middleware.js';
export { createConcurrencyMiddleware } from './concurrency-middleware.js';
export { createSemaphore, createProviderLimiter, endpointKey } from './semaphore.js';
export type { ProviderLimiter, ProviderLimiterOptions, Semaphore } from './semaphore.js';
export { llmCallOptions, readCallContext, withoutCallContext, CALL_CONTEXT_KEY } from './call-context.js';
export type { LlmCallContext } from './call-context.js';
export type * from './language-model-types.js';
// Owned by the RAPS work (src/llm/embedder.ts); re-exported here so the llm barrel is complete.
export { createAiSdkEmbedder, createOpenAICompatibleEmbedder } from './embedder.js';
export type { AiSdkEmbedderOptions, OpenAICompatibleEmbedderOptions } from './embedder.js';
export { createLlmJudgeVerifier, llmJudgeVerdictSchema, defaultJudgeSystemPrompt } from './llm-judge-verifier.js';
export type { LlmJudgeVerifierOptions } from './llm-judge-verifier.js';
