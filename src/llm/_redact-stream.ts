// Internal: removing secrets from a stream of parts, including a secret that arrives split across
// two or more deltas of one text (or reasoning, or tool input), or across two or more raw chunks.
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { redactValue } from './_secrets.js';

type RawPart = Extract<LanguageModelV3StreamPart, { type: 'raw' }>;

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
 * is caught, and no more text than that is delayed. Raw chunks (`includeRawChunks`) are handled
 * the same way per string field (e.g. `choices[0].delta.content`), whole chunks being held back
 * in order: see {@link createRawRedactor}.
 */
export function createStreamRedactor(
  secrets: readonly string[],
  redact: (text: string) => string,
): TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart> {
  /** Held text per delta type and id. */
  const held = new Map<string, { readonly type: DeltaPart['type']; readonly id: string; readonly text: string }>();
  const raw = createRawRedactor(secrets, redact);
  const release = (slot: string, controller: TransformStreamDefaultController<LanguageModelV3StreamPart>): void => {
    const entry = held.get(slot);
    if (entry === undefined) return;
    held.delete(slot);
    // A proper prefix of a secret is no secret: it goes out as it is.
    controller.enqueue({ type: entry.type, id: entry.id, delta: entry.text });
  };
  const releaseAll = (controller: TransformStreamDefaultController<LanguageModelV3StreamPart>): void => {
    for (const slot of [...held.keys()]) release(slot, controller);
    for (const part of raw.flush()) controller.enqueue(part);
  };
  return new TransformStream({
    transform(part, controller) {
      if (part.type === 'raw') {
        for (const released of raw.push(part)) controller.enqueue(released);
        return;
      }
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

/** One string field of a held raw chunk: its path in the chunk and its (redacted so far) text. */
interface RawLeaf {
  readonly path: string;
  text: string;
}

/**
 * Redacts raw chunks across their boundaries. The string fields at the same path of consecutive
 * chunks (a provider's `choices[0].delta.content`, `delta.text`, tool-call arguments) are read as
 * one text: a secret in it is replaced wherever it falls, `[redacted]` standing where it starts.
 * A chunk is held back while the text of one of its fields ends in what could be the start of a
 * secret, and so is every later chunk (chunks keep their order); `flush` releases them all. Other
 * fields and the chunk's shape are kept.
 */
export function createRawRedactor(
  secrets: readonly string[],
  redact: (text: string) => string,
): { push(part: RawPart): RawPart[]; flush(): RawPart[] } {
  const present = secrets.filter((secret) => typeof secret === 'string' && secret.length > 0);
  const queue: Array<{ readonly part: RawPart; readonly leaves: RawLeaf[] }> = [];
  const emit = (count: number): RawPart[] =>
    queue.splice(0, count).map(({ part, leaves }) => {
      let index = 0;
      const rawValue = mapStrings(part.rawValue, () => leaves[index++]!.text);
      return { ...part, rawValue };
    });
  return {
    push(part) {
      const leaves: RawLeaf[] = [];
      mapStrings(part.rawValue, (text, path) => {
        leaves.push({ path, text: redact(text) });
        return text;
      });
      queue.push({ part, leaves });
      // The first chunk that must wait: it holds the start of what may still become a secret.
      let keepFrom = queue.length;
      for (const path of new Set(queue.flatMap((entry) => entry.leaves.map((leaf) => leaf.path)))) {
        const owners: number[] = [];
        const segments: RawLeaf[] = [];
        queue.forEach((entry, position) => {
          for (const leaf of entry.leaves)
            if (leaf.path === path) {
              segments.push(leaf);
              owners.push(position);
            }
        });
        redactAcross(segments, present);
        const joined = segments.map((leaf) => leaf.text).join('');
        const keep = secretPrefixTailLength(joined, present);
        if (keep === 0) continue;
        // The segment holding the first kept character, and so its chunk, waits.
        let offset = joined.length - keep;
        for (const [index, segment] of segments.entries()) {
          if (offset < segment.text.length) {
            keepFrom = Math.min(keepFrom, owners[index]!);
            break;
          }
          offset -= segment.text.length;
        }
      }
      return emit(keepFrom);
    },
    flush() {
      return emit(queue.length);
    },
  };
}

/**
 * Replaces every secret in the text the segments make together: the characters of an occurrence
 * are removed from whichever segments hold them, and `[redacted]` is put where it starts.
 */
function redactAcross(segments: readonly RawLeaf[], secrets: readonly string[]): void {
  const joined = segments.map((segment) => segment.text).join('');
  const covered: Array<[number, number]> = [];
  for (const secret of secrets)
    for (let at = joined.indexOf(secret); at !== -1; at = joined.indexOf(secret, at + 1))
      covered.push([at, at + secret.length]);
  if (covered.length === 0) return;
  covered.sort((left, right) => left[0] - right[0]);
  // Overlapping occurrences become one.
  const merged: Array<[number, number]> = [];
  for (const [start, end] of covered) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  let offset = 0;
  for (const segment of segments) {
    const start = offset;
    offset += segment.text.length;
    let text = '';
    for (let index = start; index < offset; index++) {
      const span = merged.find(([from, to]) => index >= from && index < to);
      if (span === undefined) text += joined[index];
      else if (index === span[0]) text += '[redacted]';
    }
    segment.text = text;
  }
}

/**
 * A copy of a raw chunk with each string in its plain objects and arrays replaced by
 * `replace(text, path)`, in a fixed walk order; anything else is kept as is.
 */
function mapStrings(value: unknown, replace: (text: string, path: string) => string, path = ''): unknown {
  if (typeof value === 'string') return replace(value, path);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item, index) => mapStrings(item, replace, `${path}[${index}]`));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  // defineProperty, not assignment: a `__proto__` key of a parsed chunk must stay an own member.
  for (const [key, inner] of Object.entries(value))
    Object.defineProperty(copy, key, {
      value: mapStrings(inner, replace, `${path}.${JSON.stringify(key)}`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}
