// Internal text helpers shared by the answer kinds: locating a final answer in raw model text.

/** Content of the last `\boxed{...}` or `\fbox{...}` (balanced braces), or `null`. */
export function lastBoxed(text: string): string | null {
  const starts: number[] = [];
  const pattern = /\\(?:boxed|fbox)\s*\{/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text))
    starts.push(match.index + match[0].length);
  // Latest first, and at most 20 tries: each brace scan is linear, so unbounded tries on text with
  // thousands of unclosed `\boxed{` would be quadratic.
  for (let index = starts.length - 1; index >= Math.max(0, starts.length - 20); index--) {
    const start = starts[index] as number;
    const end = matchingBrace(text, start - 1);
    if (end !== -1) return text.slice(start, end);
  }
  return null;
}

/** Index of the `}` closing the `{` at `open`, or -1 when unbalanced. */
export function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === '\\') {
      index++;
      continue;
    }
    if (char === '{') depth++;
    else if (char === '}') {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/**
 * Values of every `"answer": ...` field in JSON-like text, in order (string, number or bare word),
 * decoded from JSON string escapes. Tolerates invalid JSON around them (raw newlines in
 * reasoning), bare values (`"answer": -3/8`), LaTeX written with single backslashes (`"\frac{1}{2}"`, where JSON would read `\f`
 * as a form feed) and skips template placeholders (`"___"`, `"..."`, blank) and examples quoted
 * in an echoed prompt (`e.g., \`"answer": "42"\``).
 */
export function jsonAnswers(text: string): string[] {
  const pattern = /"(?:final_answer|answer)"\s*:\s*("(?:[^"\\]|\\[\s\S])*"|-?[\d.][\d.,eE+/-]*|[A-Za-z]+)/g;
  const found: string[] = [];
  for (const match of text.matchAll(pattern)) {
    // An example in an echoed prompt (`e.g., \`"answer": "42"\``) is not the model's answer.
    const before = text.slice(Math.max(0, (match.index ?? 0) - 8), match.index);
    if (/e\.g\.,?\s*`?$|`$/.test(before)) continue;
    const raw = match[1] as string;
    let value = raw;
    if (raw.startsWith('"')) {
      // A backslash before two or more letters is a LaTeX command, not a JSON escape.
      const latexSafe = raw.replace(/\\([\s\S])/g, (escape: string, char: string, offset: number) =>
        /^[a-zA-Z]{2,}/.test(raw.slice(offset + 1)) && !/^u[0-9a-fA-F]{4}/.test(raw.slice(offset + 1))
          ? `\\\\${char}`
          : escape,
      );
      try {
        value = JSON.parse(latexSafe) as string;
      } catch {
        value = raw.slice(1, -1);
      }
    }
    if (/^[\s_.…-]*$/.test(value)) continue;
    found.push(value);
  }
  return found;
}

/** True when text reads as a sentence (three plain words in a row) rather than a final answer. */
export function looksLikeProse(text: string): boolean {
  const plain = text.replace(/\$[^$]*\$/g, ' ').replace(/\\[a-zA-Z]+(?:\{[^{}]*\})?/g, ' ');
  return /(?:^|[\s,.;:])[A-Za-z]{2,}\s+[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(plain);
}

/**
 * Text after the last answer marker: `#### 42`, `Answer: X`, `The answer is X`, `final answer is X`,
 * up to the end of that line, or `null` when there is no marker.
 */
export function lastAnswerLine(text: string): string | null {
  const pattern = /(?:^|\n)[ \t]*####[ \t]*([^\n]*)|(?:final answer|the answer|answer)\s*(?:is|:|=)\s*:?\s*([^\n]*)/gi;
  let found: string | null = null;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const value = (match[1] ?? match[2] ?? '').trim();
    if (value.length > 0) found = value;
  }
  return found;
}

/**
 * Removes characters of `chars` from both ends (or one end) in linear time; regexes such as
 * `/[.]+$/` are quadratic on long runs that do not reach the end.
 */
export function trimCharacters(
  text: string,
  chars: string,
  { start = true, end = true }: { start?: boolean; end?: boolean } = {},
): string {
  const isTrimmed = (char: string): boolean => chars.includes(char) || (chars.includes(' ') && /\s/.test(char));
  let from = 0;
  let to = text.length;
  if (start) while (from < to && isTrimmed(text[from] as string)) from++;
  if (end) while (to > from && isTrimmed(text[to - 1] as string)) to--;
  return text.slice(from, to);
}

/** Removes one layer of surrounding `$...$`, `\(...\)`, `\[...\]` and trailing sentence punctuation. */
export function stripMathDelimiters(text: string): string {
  let value = text.trim();
  for (;;) {
    const before = value;
    value = trimCharacters(value, '.。;', { start: false }).trim();
    if (/^\$\$[\s\S]*\$\$$/.test(value) && value.length >= 4) value = value.slice(2, -2).trim();
    else if (/^\$[\s\S]*\$$/.test(value) && value.length >= 2) value = value.slice(1, -1).trim();
    else if (/^\\\([\s\S]*\\\)$/.test(value) || /^\\\[[\s\S]*\\\]$/.test(value)) value = value.slice(2, -2).trim();
    if (value === before) return value;
  }
}

/** Content of the last fenced code block (```lang ... ```), or `null` when there is none. */
export function lastFencedBlock(text: string): string | null {
  const pattern = /```[^\n`]*\n([\s\S]*?)```/g;
  let found: string | null = null;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) found = match[1] as string;
  return found;
}

/**
 * Key of the first candidate (in order) whose key is not `null`; `null` candidates are skipped.
 * Returns `null` when no candidate has a key.
 */
export function firstKey(
  candidates: readonly (string | null)[],
  keyOf: (candidate: string) => string | null,
): string | null {
  for (const candidate of candidates) {
    if (candidate === null) continue;
    const key = keyOf(candidate);
    if (key !== null) return key;
  }
  return null;
}

/** True when both answers have a key and the keys are equal. */
export function sameKey(a: string, b: string, keyOf: (answer: string) => string | null): boolean {
  const left = keyOf(a);
  return left !== null && left === keyOf(b);
}
