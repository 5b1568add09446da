/**
 * How a task's answers are extracted from raw text and compared.
 * - `number`: a single real number (`1,234.5`, `$12`, `-3`), numeric tolerance.
 * - `math`: a LaTeX-aware expression (`\frac{3}{4}`, `(3,-1)`, `2\sqrt{2}`), equivalence by
 *   @cortex-js/compute-engine plus a numeric tolerance; tuples keep their order.
 * - `choice`: one option letter (`A`..`Z`).
 * - `exact`: a normalised string (case, whitespace and surrounding punctuation ignored).
 * - `labels`: a set of labels (`joy, anger`); scored by sample F1 and exact match.
 * - `code`: a program judged by its test outcome, not by text equality.
 * - `literal`: a Python value as a program prints it (`[(4, 1), (2, 3)]`, `'Hello'`), compared by
 *   Python's `==` on the parsed value.
 * - `literal-zeroeval`: a Python value compared as ZeroEval's CRUXEval grader compares it, as text with
 *   surrounding quotes stripped (`8.50` ≠ `8.5`); only for data graded by that grader.
 * - `number-zeroeval`: the first number of the answer, as ZeroEval's math grader reads it
 *   (`$840 + $756 = $1,596` is 840); only for data graded by that grader.
 */
export type AnswerKind =
  | 'number'
  | 'math'
  | 'choice'
  | 'exact'
  | 'labels'
  | 'code'
  | 'literal'
  | 'literal-zeroeval'
  | 'number-zeroeval';

/** All answer kinds, in a stable order. */
export const answerKinds: readonly AnswerKind[] = [
  'number',
  'math',
  'choice',
  'exact',
  'labels',
  'code',
  'literal',
  'literal-zeroeval',
  'number-zeroeval',
];
