// ZeroEval's CRUXEval grader, src/evaluation/crux_eval.py of WildEval/ZeroEval (commit 570c626, the one
// the shared zeroeval-crux flags come from):
//   model_answer   = str(prediction_json["answer"]).strip("'\"").replace('\n', '\\n')
//   correct_answer = str(item["answer"]).strip("'\"")
//   correct        = model_answer == correct_answer   (both "" also counts as correct)
import { zeroevalAnswerText } from './_zeroeval-answer.js';
import type { AnswerKindHandler } from './answer-handler.js';

// Python's str.strip("'\""): every ' and " at either end.
const surroundingQuotes = /^['"]+|['"]+$/g;

/**
 * The string ZeroEval's crux grader compares for an answer: surrounding whitespace trimmed, then every
 * `'` and `"` at either end stripped, then newlines written as `\n`. The trim is ours: the staged
 * answers keep whitespace around values that ZeroEval's JSON parse did not see (`" [666]"` is flagged
 * correct for `[666]`); with it the rule reproduces every flag of `zeroeval-crux`.
 *
 * @example
 * zeroevalCruxString(`"hello"`); // 'hello'
 * zeroevalCruxString('8.50'); // '8.50' (not 8.5: the grader compares text)
 */
export function zeroevalCruxString(answer: string): string {
  return answer.trim().replace(surroundingQuotes, '').replace(/\n/g, '\\n');
}

/**
 * Key of an answer under `literal-zeroeval`: the compared string between single quotes, so that the
 * empty string (a real CRUXEval output) has a non-empty key. Idempotent: the compared string never
 * starts or ends with a quote, so stripping the added pair gives it back.
 *
 * @example
 * literalZeroevalKey(`'a b'`); // "'a b'"
 * literalZeroevalKey(`""`); // "''"
 */
export function literalZeroevalKey(answer: string): string {
  return `'${zeroevalCruxString(answer)}'`;
}

/**
 * The `literal-zeroeval` kind: Python outputs compared the way ZeroEval's crux grader compares them, as
 * text with surrounding quotes stripped. `8.50` ≠ `8.5`, `{"a": 1}` ≠ `{'a': 1}`, `[1,2]` ≠ `[1, 2]` and
 * `True` ≠ `1`, although Python's `==` calls each pair equal. Declare it only for data whose correctness
 * flags come from that grader (the ZeroEval loader does so for `"task": "crux"`); for your own data use
 * `literal`, which compares values with Python's `==`.
 *
 * Extraction is the grader's own: the `"answer"` of the first complete `{...}` that `json.loads` reads,
 * as Python's `str` prints it (`"answer": [1, 2.50]` → `[1, 2.5]`, `true` → `True`), else ZeroEval's
 * regexes (`"answer": "..."` up to the next quote, or a bare value up to a comma or space); no answer
 * gives `null`.
 *
 * @example
 * literalZeroevalAnswerKind.equivalent('"hello"', "'hello'"); // true
 * literalZeroevalAnswerKind.equivalent('8.50', '8.5'); // false
 */
export const literalZeroevalAnswerKind: AnswerKindHandler = {
  kind: 'literal-zeroeval',
  canonicalKey: literalZeroevalKey,
  extract(text) {
    const answer = zeroevalAnswerText(text);
    return answer === null ? null : literalZeroevalKey(answer);
  },
  equivalent(a, b) {
    return literalZeroevalKey(a) === literalZeroevalKey(b);
  },
};
