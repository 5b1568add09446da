import type { AnswerKind } from './answer-kind.js';

/** How one answer kind pulls answers out of text, keys them and compares them. */
export interface AnswerKindHandler {
  /** The kind this handler implements. */
  readonly kind: AnswerKind;
  /**
   * Finds the final answer in raw model text (`\boxed{..}`, `"answer": ..`, `Answer: X`,
   * `#### 42`, ...) and returns its canonical key, or `null` when no answer can be parsed.
   */
  extract(text: string): string | null;
  /**
   * Canonical key of an already isolated answer (a reference or an extracted answer), or `null`
   * when it holds no usable answer. Equivalent answers get the same key where feasible, and a key
   * is its own key (`canonicalKey(key) === key`), so plurality voting can group by key.
   */
  canonicalKey(answer: string): string | null;
  /**
   * Whether two isolated answers (raw answers or keys) mean the same. Symmetric and reflexive on
   * parseable answers; equal keys always imply equivalence; an unparseable side is never equivalent.
   */
  equivalent(a: string, b: string): boolean;
}

/** Result of grading one answer against a reference. */
export interface AnswerScore {
  /** The answer is equivalent to the reference (exact set match for `labels`). */
  readonly correct: boolean;
  /** Sample F1 in [0, 1] between predicted and reference label sets (`labels` only). */
  readonly f1?: number;
}
