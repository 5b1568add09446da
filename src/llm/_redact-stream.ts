// Internal: removing secrets from a stream of parts, including a secret that arrives split across
// two or more deltas of one text (or reasoning, or tool input).
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { redactValue } from './_secrets.js';

type DeltaPart = Extract<LanguageModelV3StreamPart, { type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' }>;

/** The delta type each `-end` part closes. */
const deltaTypeOfEnd: Partial<Record<LanguageModelV3StreamPart['type'], DeltaPart['type']>> = {
  'text-end': 'text-delta',
  'reasoning-end': 'reasoning-delta',
  'tool-input-end': 'tool-input-delta',
};

/**
 * Length of the longest end of `text` that is the start of a secret, but not a whole one: the
 * only text that could still become a secret when the next delta arrives. Always below the
 * longest secret's length.
 */
export function secretPrefixTailLength(text: string, secrets: readonly string[]): number {
  let longest = 0;
  for (const secret of secrets) {
    for (let length = Math.min(secret.length - 1, text.length); length > longest; length--) {
      if (text.endsWith(secret.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

/**
 * A transform that replaces every secret in every part (see `redactValue`). For deltas it holds
 * back, per text, reasoning or tool-input id, only the end that could be the start of a secret,
 * and releases it when the next delta shows it is not (or redacts it when it is), at that id's
 * `-end` part, at `finish` or `error`, or when the stream ends. So a secret split across deltas
 * is caught, and no more text than that is delayed.
 */
export function createStreamRedactor(
  secrets: readonly string[],
  redact: (text: string) => string,
): TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart> {
  /** Held text per delta type and id. */
  const held = new Map<string, { readonly type: DeltaPart['type']; readonly id: string; readonly text: string }>();
  const release = (slot: string, controller: TransformStreamDefaultController<LanguageModelV3StreamPart>): void => {
    const entry = held.get(slot);
    if (entry === undefined) return;
    held.delete(slot);
    // A proper prefix of a secret is no secret: it goes out as it is.
    controller.enqueue({ type: entry.type, id: entry.id, delta: entry.text });
  };
  const releaseAll = (controller: TransformStreamDefaultController<LanguageModelV3StreamPart>): void => {
    for (const slot of [...held.keys()]) release(slot, controller);
  };
  return new TransformStream({
    transform(part, controller) {
      if (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-input-delta') {
        const slot = `${part.type}:${part.id}`;
        const text = redact((held.get(slot)?.text ?? '') + part.delta);
        const keep = secretPrefixTailLength(text, secrets);
        if (keep > 0) held.set(slot, { type: part.type, id: part.id, text: text.slice(text.length - keep) });
        else held.delete(slot);
        const delta = text.slice(0, text.length - keep);
        // A delta wholly held back is not sent empty, unless it carries metadata of its own.
        if (delta.length > 0 || part.providerMetadata !== undefined)
          controller.enqueue({ ...redactValue({ ...part, delta: '' }, secrets, redact), delta });
        return;
      }
      const closes = deltaTypeOfEnd[part.type];
      if (closes !== undefined && 'id' in part) release(`${closes}:${part.id}`, controller);
      if (part.type === 'finish' || part.type === 'error') releaseAll(controller);
      controller.enqueue(redactValue(part, secrets, redact));
    },
    flush(controller) {
      releaseAll(controller);
    },
  });
}
