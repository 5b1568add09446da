import { resolveOptions } from '../options.js';
import { assertKnownOptions, defineOptionKeys } from '../validate.js';
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
  /** Drop the English articles `a`, `an`, `the` as space-separated words (SQuAD-style), unless nothing else is left. @default true */
  removeArticles?: boolean;
  /** Compare case-insensitively. @default true */
  ignoreCase?: boolean;
}

const defaultExactOptions: Required<ExactAnswerOptions> = { removeArticles: true, ignoreCase: true };
const knownExactOptions = defineOptionKeys<ExactAnswerOptions>()(['removeArticles', 'ignoreCase']);

// Punctuation and quotes stripped from both ends of an answer.
const SURROUNDING = ' "\'`“”‘’.,;:!?()[]{}*_';

/** Normalizes an isolated answer for exact comparison, or `null` when nothing is left. */
export function normalizeExactAnswer(answer: string, options?: ExactAnswerOptions): string | null {
  assertKnownOptions('options', options, knownExactOptions, 'normalizeExactAnswer');
  const resolved = resolveOptions(defaultExactOptions, options);
  let text = stripMathDelimiters(answer.normalize('NFKC')).replace(/\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}/g, '$1');
  if (resolved.ignoreCase) text = text.toLowerCase();
  // Repeat until stable, so that a key is its own key (`"The Tower."` → `The Tower` → `Tower`).
  for (let pass = 0; pass < 10; pass++) {
    const before = text;
    text = trimCharacters(text.replace(/\s+/g, ' '), SURROUNDING);
    if (resolved.removeArticles) {
      // Articles are whole words between spaces (`U.S.A.` keeps its A), and an answer that is
      // nothing but articles (`A`, `(a)`, `The`) keeps them: it is not empty.
      const without = text
        .replace(/(?<=^|\s)(?:a|an|the)(?=\s|$)/gi, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (without.length > 0) text = without;
    }
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
  assertKnownOptions('options', options, knownExactOptions, 'createExactAnswerKind');
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
