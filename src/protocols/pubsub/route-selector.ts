import type { AgentId } from '../../core/agent-identity.js';
import type { Message } from '../../core/message.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';

/** A candidate recipient offered to a {@link RouteSelector}. */
export interface RouteCandidate {
  /** The candidate receiver. */
  readonly agentId: AgentId;
  /** The candidate's current subscription text. */
  readonly subscription: string;
  /** Cosine similarity of publication and subscription, in [-1, 1]. */
  readonly similarity: number;
  /** The candidate's trust in the publisher, in [0, 1]. */
  readonly trust: number;
}

/**
 * Chooses recipients among candidates that already passed the floor and the trust policy, e.g. by
 * asking an LLM. Returned ids outside the candidates are ignored (and reported as events).
 */
export type RouteSelector = (input: {
  publication: Message;
  candidates: readonly RouteCandidate[];
  topK: number;
}) => Promise<readonly AgentId[]>;

const knownPromptRouteOptions = defineOptionKeys<Parameters<typeof createPromptRouteSelector>[0]>()(['generate']);

/**
 * A {@link RouteSelector} that asks a text generator (an LLM behind `generate`) which subscribers
 * should receive the publication; the reply must contain a JSON array of agent ids.
 *
 * @example
 * const selector = createPromptRouteSelector({ generate: async (prompt) => (await generateText({ model, prompt })).text });
 */
export function createPromptRouteSelector(options: { generate: (prompt: string) => Promise<string> }): RouteSelector {
  assertKnownOptions('', options, knownPromptRouteOptions, 'createPromptRouteSelector');
  const { generate } = options;
  return async ({ publication, candidates, topK }) => {
    const lines = candidates.map((candidate) => `- ${candidate.agentId}: ${candidate.subscription}`);
    const prompt = [
      'You route messages between agents. A message was published:',
      publication.text,
      '',
      'Subscribers and what they want to hear about:',
      ...lines,
      '',
      `Reply with a JSON array of at most ${topK} subscriber ids who should receive it, most relevant first, e.g. ["a1","a2"].`,
    ].join('\n');
    const reply = await generate(prompt);
    const match = /\[[\s\S]*?\]/.exec(reply);
    if (!match) return [];
    try {
      const parsed = JSON.parse(match[0]) as unknown;
      return Array.isArray(parsed)
        ? parsed.filter((item): item is string => typeof item === 'string').slice(0, topK)
        : [];
    } catch {
      return [];
    }
  };
}
