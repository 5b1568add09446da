// The AI SDK types the rest of Repute may depend on, re-exported so that only src/llm imports
// `ai` and `@ai-sdk/*` (everything else imports these names from here).
export type { LanguageModel } from 'ai';
export type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
