import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '../llm/language-model-types.js';
import { InvalidArgumentError } from '../core/errors.js';
import { abortableSleep } from '../core/_abortable-sleep.js';

/** One scripted reply: plain text, or text with usage, a delay, or an error to throw. */
export type ScriptedReply =
  | string
  | {
      readonly text?: string;
      /** Reported token usage. @default { inputTokens: 10, outputTokens: 5 } */
      readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
      /** Wait this long (ms, real timer) before answering; honours the abort signal. @default 0 */
      readonly delayMs?: number;
      /** Throw this instead of answering. */
      readonly error?: unknown;
    };

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** Replies in call order, or a function of the call and its 0-based index. */
  readonly replies: readonly ScriptedReply[] | ((call: LanguageModelV3CallOptions, index: number) => ScriptedReply);
  /** @default 'scripted' */
  readonly provider?: string;
  /** @default 'scripted-model' */
  readonly modelId?: string;
}

/**
 * A language model that answers from a script and records every call (the `ScriptedModel` of
 * openai-agents-js), for testing agents and protocols without a network. Running out of replies
 * throws, naming how many were scripted.
 *
 * @example
 * const model = new ScriptedModel({ replies: ['The answer is 4.', { error: new Error('boom') }] });
 * const { text } = await generateText({ model, prompt: '2 + 2?' });
 * model.calls.length; // 1
 */
export class ScriptedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** Every call's options, in call order. */
  readonly calls: LanguageModelV3CallOptions[] = [];
  private readonly replies: ScriptedModelOptions['replies'];

  constructor({ replies, provider = 'scripted', modelId = 'scripted-model' }: ScriptedModelOptions) {
    if (typeof replies !== 'function' && !Array.isArray(replies)) {
      throw new InvalidArgumentError({
        parameter: 'replies',
        value: replies,
        message: `replies must be a list of replies or a function (call, index) => reply, got ${replies === null ? 'null' : typeof replies}; pass e.g. { replies: ['4'] }`,
      });
    }
    this.replies = replies;
    this.provider = provider;
    this.modelId = modelId;
  }

  /** The text of every prompt message of call `index`, joined by newlines (for assertions). */
  promptText(index: number): string {
    const call = this.calls[index];
    if (call === undefined)
      throw new InvalidArgumentError({
        parameter: 'index',
        value: index,
        message: `no call ${index}; the model was called ${this.calls.length} time(s)`,
      });
    return call.prompt
      .map((message) =>
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => ('text' in part ? part.text : '')).join(''),
      )
      .join('\n');
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const reply = await this.next(options);
    return {
      content: [{ type: 'text', text: reply.text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: reply.usage,
      warnings: [],
      response: { id: `scripted-${this.calls.length}`, modelId: this.modelId, timestamp: new Date(0) },
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const reply = await this.next(options);
    const id = `text-${this.calls.length}`;
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id },
      { type: 'text-delta', id, delta: reply.text },
      { type: 'text-end', id },
      { type: 'finish', usage: reply.usage, finishReason: { unified: 'stop', raw: 'stop' } },
    ];
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }

  private async next(options: LanguageModelV3CallOptions): Promise<{ text: string; usage: LanguageModelV3Usage }> {
    const index = this.calls.length;
    this.calls.push(options);
    const scripted = typeof this.replies === 'function' ? this.replies(options, index) : this.replies[index];
    if (scripted === undefined) {
      const scriptedCount =
        typeof this.replies === 'function'
          ? 'the replies function returned undefined'
          : `only ${this.replies.length} scripted`;
      throw new InvalidArgumentError({
        parameter: 'replies',
        value: index + 1,
        message: `ScriptedModel ran out of replies: call ${index + 1} but ${scriptedCount}; script one reply per expected call`,
      });
    }
    const reply = typeof scripted === 'string' ? { text: scripted } : scripted;
    if (reply.delayMs !== undefined && reply.delayMs > 0) await abortableSleep(reply.delayMs, options.abortSignal);
    if (reply.error !== undefined) throw reply.error;
    const inputTokens = reply.usage?.inputTokens ?? 10;
    const outputTokens = reply.usage?.outputTokens ?? 5;
    return {
      text: reply.text ?? '',
      usage: {
        inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
      },
    };
  }
}
