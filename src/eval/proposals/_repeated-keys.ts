// Internal: finds a key written twice in one object of a JSON text. JSON.parse keeps the last value
// of a repeated key without a word, so a record giving an agent's answer or a field twice would lose
// one of them. Checking costs about a third of JSON.parse: the `:` of the text are counted against
// the keys and the `:` inside the strings of the parsed value, and only when they differ is the text
// scanned, character by character, to name the key.

/** A key written twice in one object. */
export interface RepeatedKey {
  /** The key, decoded (`"\u0061"` is `a`). */
  readonly key: string;
  /** Where its object sits, e.g. `proposals` or `models[1]`; `''` for the top-level object. */
  readonly path: string;
  /** The first value's text, as written. */
  readonly first: string;
  /** The second value's text, as written. */
  readonly second: string;
  /** Offset of the second key in the text (UTF-16 code units). */
  readonly offset: number;
}

const colon = 0x3a;
// A colon written as an escape inside a string: the counts below cannot see it.
const escapedColon = /\\u003[aA]/;

/**
 * The first key written twice in one object of `text`, which `value` is the `JSON.parse` of, or
 * `undefined` when every object's keys are distinct. Linear in the text.
 */
export function findRepeatedKey(text: string, value: unknown): RepeatedKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // Each `:` of a JSON text follows a key or sits inside a string. With none written as `\u003a`, the
  // text holds exactly as many as the parsed value's keys plus the `:` in its strings (keys and
  // values), unless a key repeats: then the value JSON.parse dropped took its key, and any keys and
  // `:` inside it, along, and the text holds more. Equal counts prove there is no repeated key.
  if (!escapedColon.test(text) && colonsIn(text) === keysAndColons(value)) return undefined;
  return locateRepeatedKey(text);
}

function colonsIn(text: string): number {
  let count = 0;
  for (let index = text.indexOf(':'); index !== -1; index = text.indexOf(':', index + 1)) count++;
  return count;
}

/** The keys of a parsed value plus the `:` in its strings (keys and values). */
function keysAndColons(value: object): number {
  let count = 0;
  // A list instead of recursion: a deeply nested record must not overflow the stack.
  const pending: object[] = [value];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (Array.isArray(item)) {
      for (const entry of item) {
        if (typeof entry === 'string') count += colonsIn(entry);
        else if (typeof entry === 'object' && entry !== null) pending.push(entry);
      }
      continue;
    }
    // for-in is the fastest walk; a property some code added to Object.prototype would only make the
    // counts differ, which sends the text to the exact scan.
    for (const key in item) {
      count += 1 + colonsIn(key);
      const entry = (item as Record<string, unknown>)[key];
      if (typeof entry === 'string') count += colonsIn(entry);
      else if (typeof entry === 'object' && entry !== null) pending.push(entry);
    }
  }
  return count;
}

/** Index just past the string token that opens at `start`. */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return text.length;
}

/** The text of the value that starts at `start`. */
function valueText(text: string, start: number): string {
  const opening = text[start];
  if (opening === '"') return text.slice(start, stringEnd(text, start));
  if (opening !== '{' && opening !== '[') {
    const end = text.slice(start).search(/[,\]}\s]/);
    return end === -1 ? text.slice(start) : text.slice(start, start + end);
  }
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (char === '"') index = stringEnd(text, index) - 1;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return text.slice(start, index + 1);
    }
  }
  return text.slice(start);
}

interface Frame {
  /** An object's keys so far, with where each value starts; `undefined` for a list. */
  readonly keys: Map<string, number> | undefined;
  /** The key whose value is being read (objects). */
  key: string;
  /** The entry being read (lists). */
  index: number;
}

function pathOf(frames: readonly Frame[]): string {
  let path = '';
  for (const frame of frames)
    path += frame.keys === undefined ? `[${frame.index}]` : `${path === '' ? '' : '.'}${frame.key}`;
  return path;
}

// Walks a valid JSON text (JSON.parse accepted it) keeping, per open object, the keys seen so far.
function locateRepeatedKey(text: string): RepeatedKey | undefined {
  const frames: Frame[] = [];
  let expectKey = false;
  for (let index = 0; index < text.length; ) {
    const char = text[index];
    if (char === '{' || char === '[') {
      frames.push({ keys: char === '{' ? new Map() : undefined, key: '', index: 0 });
      expectKey = char === '{';
      index++;
    } else if (char === '}' || char === ']') {
      frames.pop();
      expectKey = false;
      index++;
    } else if (char === ',') {
      const top = frames.at(-1);
      if (top?.keys === undefined) {
        if (top !== undefined) top.index++;
      } else expectKey = true;
      index++;
    } else if (char === '"') {
      const end = stringEnd(text, index);
      const top = frames.at(-1);
      if (!expectKey || top?.keys === undefined) {
        index = end;
        continue;
      }
      const key = JSON.parse(text.slice(index, end)) as string;
      let valueStart = end;
      while (
        valueStart < text.length &&
        (text.charCodeAt(valueStart) === colon || /\s/.test(text[valueStart] as string))
      )
        valueStart++;
      const first = top.keys.get(key);
      if (first !== undefined)
        return {
          key,
          path: pathOf(frames.slice(0, -1)),
          first: valueText(text, first),
          second: valueText(text, valueStart),
          offset: index,
        };
      top.keys.set(key, valueStart);
      top.key = key;
      expectKey = false;
      index = valueStart;
    } else index++;
  }
  return undefined;
}
