// Internal: the `"answer":` fields of JSON-like model text, shared by the `literal` kinds.
import { parsePythonLiteralPrefix, type PythonValue } from './python-literal.js';

/** One `"answer":` field: a JSON string's decoded content, or a bare literal written after the colon. */
export interface AnswerField {
  /** The string's content, or the bare literal's source text. */
  readonly text: string;
  /** The parsed value of a bare literal (`"answer": [1, 2]`); absent for a JSON string. */
  readonly bare?: PythonValue;
}

// A bounded number of fields keeps hostile text (thousands of `"answer": '`) linear.
const maxFields = 20;

/**
 * The `"answer":` / `"final_answer":` fields of a text in order, blank ones included; `seen` says
 * whether any field exists (even one whose value could not be read).
 */
export function answerFields(text: string): { seen: boolean; values: AnswerField[] } {
  const found: AnswerField[] = [];
  let fields = 0;
  for (const match of text.matchAll(/"(?:final_answer|answer)"\s*:\s*/g)) {
    if (++fields > maxFields) break;
    const start = (match.index ?? 0) + match[0].length;
    const rest = text.slice(start);
    if (rest.startsWith('"')) {
      const string = /^"(?:[^"\\]|\\[\s\S])*"/.exec(rest);
      if (string === null) continue;
      try {
        found.push({ text: JSON.parse(string[0]) as string });
      } catch {
        found.push({ text: string[0].slice(1, -1) });
      }
      continue;
    }
    // JSON's own words, which a JSON parser (ZeroEval's) turns into Python's True, False and None.
    const word = /^(true|false|null)\b/.exec(rest)?.[1];
    if (word !== undefined) {
      found.push({ text: word, bare: word === 'null' ? { type: 'none' } : { type: 'bool', value: word === 'true' } });
      continue;
    }
    // `"answer": [1, 2]` or `"answer": {'a': 1}`: the literal itself, when one starts there.
    const literal = parsePythonLiteralPrefix(rest);
    if (literal !== null) found.push({ text: rest.slice(0, literal.end), bare: literal.value });
  }
  return { seen: fields > 0, values: found };
}

/** True for blank and placeholder values (`""`, `"___"`, `"..."`). */
export function isPlaceholderAnswer(text: string): boolean {
  return /^[\s_.…-]*$/.test(text);
}
