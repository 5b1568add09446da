import type { AnswerKindHandler } from './answer-handler.js';
import { lastFencedBlock } from './_text.js';
import { answerFields, isPlaceholderAnswer } from './_answer-fields.js';
import { formatPythonRepr, parsePythonLiteral, parsePythonLiteralPrefix, pythonKey } from './python-literal.js';

/**
 * Key of text that is not a Python literal: the text with line endings unified (CRLF → LF) and
 * surrounding whitespace trimmed, nothing else. Case, quotes, punctuation and inner whitespace are
 * kept, because in printed program output they are the answer (`'a  b'` ≠ `'a b'`). `null` when
 * nothing is left.
 */
export function literalFallbackKey(text: string): string | null {
  const trimmed = text.replace(/\r\n?/g, '\n').trim();
  return trimmed.length === 0 ? null : trimmed;
}

/**
 * Canonical key of an isolated answer under the `literal` kind: the canonical repr of the Python value
 * when the text is one literal, else {@link literalFallbackKey}. `null` for blank text.
 *
 * @example
 * literalAnswerKey('{"b": [1.0], "a": (2,)}'); // "{'a': (2,), 'b': [1]}"
 * literalAnswerKey('(4, 1), (2, 3)'); // '(4, 1), (2, 3)' (not a single literal: fallback)
 */
export function literalAnswerKey(answer: string): string | null {
  const value = parsePythonLiteral(answer);
  return value === null ? literalFallbackKey(answer) : pythonKey(value);
}

/**
 * True when a `literal` key is a fallback string key (its text is not a Python literal). Keys made by
 * {@link literalAnswerKey} from literals always parse back, so this tells the two apart.
 */
export function isLiteralFallbackKey(key: string): boolean {
  return parsePythonLiteral(key) === null;
}

// Candidates tried per assert line (`==` positions).
const maxTries = 20;

/**
 * The expected value of the last `assert ... == <literal>` line: the first `==` after which a
 * literal starts and runs to the end of the line or to an assert message (`, 'msg'`).
 */
function assertedValue(text: string): string | null {
  let found: string | null = null;
  for (const line of text.split('\n')) {
    if (!/^\s*assert\b/.test(line)) continue;
    let tries = 0;
    for (let at = line.indexOf('=='); at !== -1 && ++tries <= maxTries; at = line.indexOf('==', at + 2)) {
      const rest = line.slice(at + 2);
      const literal = parsePythonLiteralPrefix(rest);
      if (literal === null) continue;
      const tail = rest.slice(literal.end).trim();
      if (tail === '' || tail.startsWith(',') || tail.startsWith('#')) {
        found = rest.slice(0, literal.end).trim();
        break;
      }
    }
  }
  return found;
}

/**
 * The `literal` kind, for answers that are Python values printed by a program (CRUXEval-style
 * predicted outputs). Key = the canonical repr of the parsed value; equivalence = Python's `==`:
 * `'a'` = `"a"`, `1` = `1.0` = `True`, `(1,)` ≠ `[1]`, set and dict order ignored, string case and
 * inner whitespace kept. Nothing is evaluated: {@link parsePythonLiteral} is a parser. Text that is
 * not one literal keys by {@link literalFallbackKey} (exact up to surrounding whitespace), so
 * `(4, 1), (2, 3)` ≠ `[(4, 1), (2, 3)]` and `hello` ≠ `'hello'`.
 *
 * Extraction tries the `"answer":` JSON fields and then the value after `==` in the last `assert`
 * line; a text without an answer field (a JSON reply is itself a dict literal) tries the last fenced
 * block (its assert line when it has one), the last `assert` line, and the whole text. The first
 * candidate that parses as a literal wins, else the first candidate found is keyed as fallback text.
 *
 * @example
 * literalAnswerKind.equivalent("{'a': 1, 'b': 2}", '{"b": 2.0, "a": 1}'); // true
 * literalAnswerKind.equivalent("'Hello'", "'hello'"); // false
 * literalAnswerKind.extract('```python\nassert f(3) == [1, 2]\n```'); // '[1, 2]'
 */
export const literalAnswerKind: AnswerKindHandler = {
  kind: 'literal',
  canonicalKey: literalAnswerKey,
  extract(text) {
    const fields = answerFields(text);
    const fenced = fields.seen ? null : lastFencedBlock(text);
    // A JSON reply (fenced or not) is itself a dict literal: with an answer field, even a blank one,
    // neither the fenced block nor the whole text is a candidate.
    const candidates = (
      fields.seen
        ? [
            ...fields.values
              .map((field) => (field.bare === undefined ? field.text : formatPythonRepr(field.bare)))
              .filter((value) => !isPlaceholderAnswer(value)),
            assertedValue(text),
          ]
        : [fenced === null ? null : (assertedValue(fenced) ?? fenced), assertedValue(text), text]
    ).filter((candidate): candidate is string => candidate !== null && candidate.trim().length > 0);
    for (const candidate of candidates) {
      const value = parsePythonLiteral(candidate);
      if (value !== null) return pythonKey(value);
    }
    return candidates.length === 0 ? null : literalFallbackKey(candidates[0] as string);
  },
  equivalent(a, b) {
    const left = literalAnswerKey(a);
    return left !== null && left === literalAnswerKey(b);
  },
};
