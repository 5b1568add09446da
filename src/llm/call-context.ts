import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';

/** Who is calling and why, for the cost ledger and the call log. */
export interface LlmCallContext {
  readonly runId?: string;
  readonly agentId?: string;
  readonly taskId?: string;
  /** The agent act, e.g. `propose`, `revise`, `rate`, `audit`. */
  readonly act?: string;
}

/** Key under `providerOptions` that carries the {@link LlmCallContext}; never sent to a provider. */
export const CALL_CONTEXT_KEY = 'repute';

/**
 * Call options that tag one AI SDK call with its context; spread them into `generateText`.
 * The tag is left out of the cache key and stripped before the request reaches the provider.
 *
 * @example
 * await generateText({ model, prompt, maxRetries: 0, ...llmCallOptions({ taskId: 't1', act: 'propose' }) });
 */
export function llmCallOptions(context: LlmCallContext & { readonly answerKind?: string }): {
  providerOptions: { [CALL_CONTEXT_KEY]: Record<string, string> };
} {
  const tag: Record<string, string> = {};
  for (const key of ['runId', 'agentId', 'taskId', 'act', 'answerKind'] as const) {
    const value = context[key];
    if (typeof value === 'string') tag[key] = value;
  }
  return { providerOptions: { [CALL_CONTEXT_KEY]: tag } };
}

/** The context tag of a call, or `{}`. */
export function readCallContext(params: LanguageModelV3CallOptions): LlmCallContext {
  const tag = params.providerOptions?.[CALL_CONTEXT_KEY];
  if (tag === undefined || tag === null || typeof tag !== 'object') return {};
  const context: Record<string, string> = {};
  for (const key of ['runId', 'agentId', 'taskId', 'act'] as const) {
    const value = (tag as Record<string, unknown>)[key];
    if (typeof value === 'string') context[key] = value;
  }
  return context;
}

/**
 * The answer kind a call's reply must hold (`answerKind` of {@link llmCallOptions}), or `undefined`:
 * the cache neither records nor serves a reply without such an answer.
 */
export function readAnswerKind(params: LanguageModelV3CallOptions): string | undefined {
  const tag = params.providerOptions?.[CALL_CONTEXT_KEY];
  if (tag === undefined || tag === null || typeof tag !== 'object') return undefined;
  const value = (tag as Record<string, unknown>).answerKind;
  return typeof value === 'string' ? value : undefined;
}

/** The call options without the context tag. */
export function withoutCallContext(params: LanguageModelV3CallOptions): LanguageModelV3CallOptions {
  if (params.providerOptions === undefined || !(CALL_CONTEXT_KEY in params.providerOptions)) return params;
  const { [CALL_CONTEXT_KEY]: _dropped, ...providerOptions } = params.providerOptions;
  return { ...params, providerOptions };
}
