// What a served chat request carries beyond its question: the conversation so far, the sampling
// settings the client asked for and the reply format. Plain data; the live agent forwards it to its
// model, the team endpoint fills it from the OpenAI-shaped request.

/** One turn of a served conversation, as its text. */
export interface ChatTurn {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** Sampling settings of a served request, forwarded to every agent's model as given. */
export interface SamplingSettings {
  /** In [0, 2]. */
  readonly temperature?: number;
  /** Nucleus sampling mass, in (0, 1]. */
  readonly topP?: number;
  /** Most output tokens per reply, integer ≥ 1. */
  readonly maxOutputTokens?: number;
  /** At most 4 stop sequences. */
  readonly stopSequences?: readonly string[];
  /** Integer seed, for providers that honour one. */
  readonly seed?: number;
  /** In [-2, 2]. */
  readonly presencePenalty?: number;
  /** In [-2, 2]. */
  readonly frequencyPenalty?: number;
}

/** The reply format a served request asks for: text, or a JSON object (optionally matching a JSON Schema). */
export type ReplyFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json'; readonly schema?: Readonly<Record<string, unknown>>; readonly name?: string };
