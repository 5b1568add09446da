import type { AnswerKindHandler } from './answer-handler.js';
import { firstKey, jsonAnswers, lastBoxed, sameKey, stripMathDelimiters } from './_text.js';

// A whole isolated answer that is one option letter: `B`, `(B)`, `B)`, `b.`, `\text{(B)}`, `Option B`.
const BARE_CHOICE = /^(?:option|choice)?\s*[([]?\s*([A-Za-z])\s*[)\]]?\s*[.:]?$/i;
// `answer is (B)`, `Answer: B`, `answer: b`, `The correct answer is B.`; a lowercase letter only in
// parentheses or at the end of its line, so `the answer is a number` is not read as A.
const ANSWER_PHRASE =
  /(?:[Aa]nswer|ANSWER)(?:\s+is)?\s*[:=]?\s*(?:[Oo]ption\s+)?(?:\(([A-Za-z])\)|\b([A-Z])\b(?![-'])|\b([a-z])\s*[.)]?\s*$)/gm;
const PARENTHESIZED = /\(([A-Z])\)/g;

/** The option letter of an isolated answer (`(b)` → `B`), or `null` when it is not one letter. */
export function parseChoiceAnswer(answer: string): string | null {
  const text = stripMathDelimiters(answer)
    .replace(/\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}/g, '$1')
    .trim();
  const match = BARE_CHOICE.exec(text);
  return match === null ? null : (match[1] as string).toUpperCase();
}

/**
 * The `choice` kind: one option letter A–Z, key = the upper-case letter, equivalence = same
 * letter. Extraction tries `\boxed{}`, the `"answer":` JSON field, an `answer is (B)` /
 * `Answer: B` phrase (last one wins), the whole text as a bare letter, and finally the last `(B)`.
 *
 * @example
 * choiceAnswerKind.extract('Reasoning... The answer is (C).'); // 'C'
 * choiceAnswerKind.equivalent('(b)', 'B'); // true
 */
export const choiceAnswerKind: AnswerKindHandler = {
  kind: 'choice',
  canonicalKey: parseChoiceAnswer,
  extract(text) {
    const letter = firstKey([...jsonAnswers(text), lastBoxed(text)], parseChoiceAnswer);
    if (letter !== null) return letter;
    let phrase: string | null = null;
    for (const match of text.matchAll(ANSWER_PHRASE))
      phrase = (match[1] ?? match[2] ?? match[3] ?? '').toUpperCase() || phrase;
    if (phrase !== null) return phrase;
    const bare = parseChoiceAnswer(text);
    if (bare !== null) return bare;
    let parenthesized: string | null = null;
    for (const match of text.matchAll(PARENTHESIZED)) parenthesized = match[1] as string;
    return parenthesized;
  },
  equivalent(a, b) {
    return sameKey(a, b, parseChoiceAnswer);
  },
};
