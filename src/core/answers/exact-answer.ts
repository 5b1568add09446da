import { resolveOptions } from '../options.js';
import type { AnswerKindHandler } from './answer-handler.js';
import {
  firstKey,
  jsonAnswers,
  lastAnswerLine,
  lastBoxed,
  sameKey,
  stripMathDelimiters,
  trimCharacters,
} from './_text.js';

/** Options of the `exact` answer kind. */
export interface ExactAnswerOptions {
  /** Drop the English articles `a`, `an`, `the` as whole words (SQuAD-style). @default true */
  removeArticles?: boolean;
  /** Compare case-insensitively. @default true */
  ignoreCase?: boolean;
}

const defaultExactOptions: Required<ExactAnswerOptions> = { removeArticles: true, ignoreCase: true };

// Punctuation and quotes stripped from both ends of an answer.
const SURROUNDING = ' "\'`“”‘’.,;:!?()[]{}*_';

/** Normalizes an isolated answer for exact comparison, or `null` when nothing is left. */
export function normalizeExactAnswer(answer: string, options?: ExactAnswerOptions): string | null {
  const resolved = resolveOptions(defaultExactOptions, options);
  let text = stripMathDelimiters(answer.normalize('NFKC')).replace(/\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}/g, '$1');
  if (resolved.ignoreCase) text = text.toLowerCase();
  // Repeat until stable, so that a key is its own key (`(A) 0` → `a) 0` → `) 0` → `0`).
  for (let pass = 0; pass < 10; pass++) {
    const before = text;
    text = trimCharacters(text.replace(/\s+/g, ' '), SURROUNDING);
    if (resolved.removeArticles)
      text = text
        .replace(/\b(?:a|an|the)\b/gi, ' ')
        .replace(/\s+/g, ' ')
        .trim();
    if (text === before) break;
  }
  return text.length === 0 ? null : text;
}

/**
 * Creates the `exact` kind: key = the answer with Unicode NFKC, case folded, whitespace collapsed,
 * surrounding punctuation and quotes removed and (optionally) articles dropped; equivalence =
 * equal keys. Extraction: `\boxed{}`, the `"answer":` JSON field, an `Answer: X` line, else the
 * whole text.
 *
 * @example
 * createExactAnswerKind().equivalent('The Eiffel Tower.', 'eiffel tower'); // true
 */
export function createExactAnswerKind(options?: ExactAnswerOptions): AnswerKindHandler {
  const resolved = resolveOptions(defaultExactOptions, options);
  const canonicalKey = (answer: string): string | null => normalizeExactAnswer(answer, resolved);
  return {
    kind: 'exact',
    canonicalKey,
    extract(text) {
      return (
        firstKey([...jsonAnswers(text), lastBoxed(text), lastAnswerLine(text)], canonicalKey) ?? canonicalKey(text)
      );
    },
    equivalent(a, b) {
      return sameKey(a, b, canonicalKey);
    },
  };
}

/** The `exact` kind with default options (case and articles ignored). */
export const exactAnswerKind: AnswerKindHandler = createExactAnswerKind();
