import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany, type EmbeddingModel } from 'ai';
import { InvalidArgumentError, ProviderError } from '../core/errors.js';
import { assertInteger, assertKnownOptions, assertNonEmptyString, defineOptionKeys } from '../core/validate.js';
import type { Embedder } from '../embeddings/embedder.js';
import { createRedactor, readApiKey, redactedError } from './_secrets.js';

/** Options of {@link createAiSdkEmbedder}. */
export interface AiSdkEmbedderOptions {
  /** Any AI SDK embedding model (`provider.embeddingModel('...')`). */
  model: EmbeddingModel;
  /** Expected vector length; every returned vector is checked against it (e.g. 768 for nomic-embed-text). */
  dimensions: number;
  /** Name used in reports. @default 'ai-sdk' */
  name?: string;
  /** Retries per request inside the AI SDK (exponential backoff). @default 2 */
  maxRetries?: number;
  /** Concurrent requests when the texts are split into several batches. @default 4 */
  maxParallelCalls?: number;
  /** Strings removed from error messages (e.g. the API key; a cause holding one is replaced by a copy with its message, URL and response body redacted). @default [] */
  secrets?: readonly string[];
}

const knownAiSdkEmbedderOptions = defineOptionKeys<AiSdkEmbedderOptions>()([
  'model',
  'dimensions',
  'name',
  'maxRetries',
  'maxParallelCalls',
  'secrets',
]);

/**
 * Wraps an AI SDK embedding model (`embedMany`) as an {@link Embedder}. A vector of the wrong
 * length or a failed request raises a {@link ProviderError} naming the provider.
 *
 * @example
 * const embedder = createAiSdkEmbedder({ model: openai.embeddingModel('text-embedding-3-small'), dimensions: 1536 });
 */
export function createAiSdkEmbedder(options: AiSdkEmbedderOptions): Embedder {
  assertKnownOptions('options', options, knownAiSdkEmbedderOptions, 'createAiSdkEmbedder');
  assertInteger('options.dimensions', options.dimensions, 1, 1 << 20, 'pass the vector length of your embedding model');
  const { model, dimensions, name = 'ai-sdk', maxRetries = 2, maxParallelCalls = 4, secrets = [] } = options;
  const redact = createRedactor(secrets);
  assertInteger('options.maxRetries', maxRetries, 0, 100);
  assertInteger('options.maxParallelCalls', maxParallelCalls, 1, 1000);
  return {
    name,
    dimensions,
    async embed(texts) {
      if (texts.length === 0) return [];
      texts.forEach((text, index) => {
        if (typeof text !== 'string')
          throw new InvalidArgumentError({
            parameter: `texts[${index}]`,
            value: text,
            message: `texts[${index}] must be a string, got ${typeof text}`,
          });
      });
      let embeddings: number[][];
      try {
        ({ embeddings } = await embedMany({ model, values: texts.slice(), maxRetries, maxParallelCalls }));
      } catch (error) {
        const status = statusOf(error) ?? statusOf((error as { lastError?: unknown }).lastError);
        // The AI SDK retries retryable errors and then throws a RetryError listing every attempt's
        // error; anything else was thrown by the first attempt.
        const tried = (error as { errors?: unknown }).errors;
        const attempts = Array.isArray(tried) && tried.length > 0 ? tried.length : 1;
        throw new ProviderError({
          provider: name,
          ...(status === undefined ? {} : { status }),
          attempts,
          message: redact(
            `embedding request to ${name} failed after ${attempts} attempt(s)${status === undefined ? '' : ` (HTTP ${status})`}: ${(error as Error).message}; check the base URL, model name and API key variable`,
          ),
          cause: redactedError(error, secrets, redact),
        });
      }
      if (embeddings.length !== texts.length) {
        throw new ProviderError({
          provider: name,
          attempts: 1,
          message: `${name} returned ${embeddings.length} embeddings for ${texts.length} texts`,
        });
      }
      return embeddings.map((embedding, index) => {
        if (embedding.length !== dimensions) {
          throw new ProviderError({
            provider: name,
            attempts: 1,
            message: `${name} returned a ${embedding.length}-dimensional vector for texts[${index}], expected ${dimensions}; set dimensions to the model's vector length`,
          });
        }
        return Float32Array.from(embedding);
      });
    },
  };
}

/** Options of {@link createOpenAICompatibleEmbedder}. */
export interface OpenAICompatibleEmbedderOptions {
  /** Endpoint base URL, e.g. `http://127.0.0.1:11434/v1` (Ollama) or `https://api.openai.com/v1`. */
  baseURL: string;
  /** Embedding model id, e.g. `nomic-embed-text`. */
  model: string;
  /** Vector length of that model. */
  dimensions: number;
  /** Name of the environment variable holding the API key. @default none (no key, as for Ollama) */
  apiKeyEnv?: string;
  /** @default 2 */
  maxRetries?: number;
}

const knownOpenAICompatibleEmbedderOptions = defineOptionKeys<OpenAICompatibleEmbedderOptions>()([
  'baseURL',
  'model',
  'dimensions',
  'apiKeyEnv',
  'maxRetries',
]);

/**
 * An {@link Embedder} for any OpenAI-compatible `/embeddings` endpoint (Ollama, vLLM, llama.cpp
 * server, LM Studio, OpenAI). The key is read from `process.env[apiKeyEnv]` and never logged.
 *
 * @example
 * const embedder = createOpenAICompatibleEmbedder({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', dimensions: 768 });
 */
export function createOpenAICompatibleEmbedder(options: OpenAICompatibleEmbedderOptions): Embedder {
  assertKnownOptions('options', options, knownOpenAICompatibleEmbedderOptions, 'createOpenAICompatibleEmbedder');
  assertNonEmptyString('options.baseURL', options.baseURL, "pass e.g. 'http://127.0.0.1:11434/v1'");
  assertNonEmptyString('options.model', options.model, "pass e.g. 'nomic-embed-text'");
  const apiKey =
    options.apiKeyEnv === undefined
      ? undefined
      : readApiKey(options.apiKeyEnv, 'embedding endpoint', 'options.apiKeyEnv');
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: options.baseURL,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  return createAiSdkEmbedder({
    model: provider.embeddingModel(options.model),
    dimensions: options.dimensions,
    name: `openai-compatible:${options.model}`,
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    secrets: apiKey === undefined ? [] : [apiKey],
  });
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}
