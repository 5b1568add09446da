import type { Complete } from '../agents/live-agent.js';
import { InvalidArgumentError, ProviderError } from '../core/errors.js';
import { assertKnownOptions, assertNonEmptyString, assertNonNegative, defineOptionKeys } from '../core/validate.js';
import { bookedUsage, isCached } from './_cached-marks.js';
import { llmCallOptions } from './call-context.js';
import { knownPriceKeys, priceCall, type LlmPrice } from './ledger-middleware.js';
import { readTokenUsage, usageError } from './_token-usage.js';
import type { JSONSchema7, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { LanguageModelV3 } from './language-model-types.js';

/** Options of {@link createCompletion}. */
export interface CreateCompletionOptions {
  /**
   * The model, normally plumbed by `createLanguageModel` or `wrapWithPlumbing` (ledger, cache,
   * retries, concurrency, timeout). Any AI SDK v3 language model works.
   */
  readonly model: LanguageModelV3;
  /** Run id tagged on every call for the ledger; overrides the model's `context.runId`. @default the model's context */
  readonly runId?: string;
  /**
   * Prices for models WITHOUT Repute's ledger middleware. A plumbed model reports what its ledger
   * booked (its own `price`), so the agent's usage and the ledger always agree; this is ignored there.
   * @default all 0
   */
  readonly price?: LlmPrice;
}

const knownCompletionOptions = defineOptionKeys<CreateCompletionOptions>()(['model', 'runId', 'price']);

/**
 * Adapts an AI SDK language model to the `complete` function live agents take: a system and a
 * user message at temperature 0, each call tagged with run, agent, task and act for the ledger. A
 * reply cut short (finish reason `length` or `content-filter`) throws a `ProviderError` with reason
 * `incomplete`, and an empty reply (no text, or only blanks) one with reason `malformed`, instead of
 * being read as an answer.
 * The reply's usage carries the input and output tokens, `cached` (true when the record/replay
 * cache served it, no provider request) and `cost` (input × inputPerMillion / 10⁶ + output ×
 * outputPerMillion / 10⁶ + perCall, 0 when cached). With a plumbed model these are the very
 * numbers its ledger middleware booked; with a bare model they are computed from `price` by the
 * same rule (`priceCall`).
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * const model = createLanguageModel({ provider: 'openai-compatible', model: 'qwen2.5:7b', baseURL: 'http://127.0.0.1:11434/v1',
 *   cache: store, ledger: store, price: { inputPerMillion: 0.15, outputPerMillion: 0.6 }, context: { agentId: 'qwen-1' } });
 * const agent = createLiveAgent({ identity: { id: 'qwen-1', model: 'qwen2.5:7b' }, complete: createCompletion({ model, runId: 'run-1' }) });
 * const { usage } = await agent.propose({ task }); // { inputTokens, outputTokens, cost, cached }
 */
export function createCompletion(options: CreateCompletionOptions): Complete {
  assertKnownOptions('', options, knownCompletionOptions, 'createCompletion');
  assertKnownOptions('price', options.price, knownPriceKeys, 'createCompletion');
  const { model, runId, price = {} } = options;
  if (
    model === null ||
    typeof model !== 'object' ||
    typeof (model as { doGenerate?: unknown }).doGenerate !== 'function'
  ) {
    throw new InvalidArgumentError({
      parameter: 'model',
      value: model,
      message:
        'model must be an AI SDK v3 language model (with doGenerate); build it with createLanguageModel({ provider, model, ... })',
    });
  }
  if (runId !== undefined) assertNonEmptyString('runId', runId, "pass the run id, e.g. 'run-1', or leave it out");
  assertNonNegative('price.inputPerMillion', price.inputPerMillion ?? 0);
  assertNonNegative('price.outputPerMillion', price.outputPerMillion ?? 0);
  assertNonNegative('price.perCall', price.perCall ?? 0);

  return async ({ system, prompt, messages, sampling, replyFormat, signal, context }) => {
    const turns: LanguageModelV3Prompt = messages
      ? messages.map((turn) =>
          turn.role === 'system'
            ? { role: 'system', content: turn.content }
            : turn.role === 'user'
              ? { role: 'user', content: [{ type: 'text', text: turn.content }] }
              : { role: 'assistant', content: [{ type: 'text', text: turn.content }] },
        )
      : [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
    const result = await model.doGenerate({
      prompt: [{ role: 'system', content: system }, ...turns],
      // Deterministic unless the requester asked for other sampling settings.
      temperature: sampling?.temperature ?? 0,
      ...(sampling?.topP === undefined ? {} : { topP: sampling.topP }),
      ...(sampling?.maxOutputTokens === undefined ? {} : { maxOutputTokens: sampling.maxOutputTokens }),
      ...(sampling?.stopSequences === undefined ? {} : { stopSequences: [...sampling.stopSequences] }),
      ...(sampling?.seed === undefined ? {} : { seed: sampling.seed }),
      ...(sampling?.presencePenalty === undefined ? {} : { presencePenalty: sampling.presencePenalty }),
      ...(sampling?.frequencyPenalty === undefined ? {} : { frequencyPenalty: sampling.frequencyPenalty }),
      ...(replyFormat?.type === 'json'
        ? {
            responseFormat: {
              type: 'json' as const,
              ...(replyFormat.schema === undefined ? {} : { schema: replyFormat.schema as JSONSchema7 }),
              ...(replyFormat.name === undefined ? {} : { name: replyFormat.name }),
            },
          }
        : {}),
      ...(signal ? { abortSignal: signal } : {}),
      ...llmCallOptions({
        ...(runId === undefined ? {} : { runId }),
        agentId: context.agentId,
        act: context.act,
        ...(context.taskId === undefined ? {} : { taskId: context.taskId }),
        ...(context.answerKind === undefined ? {} : { answerKind: context.answerKind }),
      }),
    });
    // The ledger's booking, when a ledger middleware saw the call: it knows the attempts made.
    const booked = bookedUsage(result);
    const attempts = booked?.attempts ?? 1;
    // A reply the model did not finish is no answer: a number in cut-off working would be taken for one.
    const finish = result.finishReason?.unified;
    if (finish === 'length' || finish === 'content-filter') {
      throw new ProviderError({
        provider: model.provider,
        attempts,
        reason: 'incomplete',
        message:
          finish === 'length'
            ? `${model.provider} model ${JSON.stringify(model.modelId)} stopped at its output token limit before finishing the reply (${context.act} by ${context.agentId}); raise the model's output token limit or ask for shorter working`
            : `${model.provider} model ${JSON.stringify(model.modelId)} had its reply stopped by the provider's content filter (${context.act} by ${context.agentId})`,
      });
    }
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    // Nothing to read an answer from: fail loudly rather than hand the agent an empty proposal.
    if (text.trim().length === 0) {
      throw new ProviderError({
        provider: model.provider,
        attempts,
        reason: 'malformed',
        message: `${model.provider} model ${JSON.stringify(model.modelId)} returned an empty reply (${context.act} by ${context.agentId}, finish reason ${finish ?? 'unknown'}); check that the endpoint serves this model and that its logs show no error`,
      });
    }
    if (booked !== undefined) {
      const { inputTokens, outputTokens, cost, cached } = booked;
      return { text, usage: { inputTokens, outputTokens, cost, cached } };
    }
    // No ledger middleware saw this result: book it the way the ledger would, refusing the same counts.
    const cached = isCached(result);
    const { inputTokens, outputTokens, problems } = readTokenUsage(result.usage);
    if (problems.length > 0)
      throw usageError({
        provider: model.provider,
        modelId: model.modelId,
        problems,
        seenBy: 'completion',
      });
    return {
      text,
      usage: { inputTokens, outputTokens, cost: cached ? 0 : priceCall(price, inputTokens, outputTokens), cached },
    };
  };
}
