import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choiceAnswerKind } from './choice-answer.js';

describe('choice answer kind', () => {
  it.each([
    ['(B)', 'B'],
    ['B)', 'b'],
    ['b.', 'B'],
    ['\\text{(C)}', 'C'],
    ['Option D', 'D'],
  ])('%s ≡ %s', (a, b) => {
    expect(choiceAnswerKind.equivalent(a, b)).toBe(true);
    expect(choiceAnswerKind.equivalent(b, a)).toBe(true);
  });

  it.each([
    ['A', 'B'],
    ['(A)', 'AB'],
    ['', ''],
  ])('%s ≢ %s', (a, b) => {
    expect(choiceAnswerKind.equivalent(a, b)).toBe(false);
  });

  it.each([
    ['Let us think. ... The answer is (C).', 'C'],
    ['The answer is B', 'B'],
    ['answer: b', 'B'],
    ['Answer: (d)', 'D'],
    ['{"reasoning": "...", "answer": "E"}', 'E'],
    ['I pick \\boxed{A}', 'A'],
    ['(A) is wrong because ... so (C) is right', 'C'],
    ['The answer is a number we cannot find.', null],
    ['', null],
  ])('extracts %j as %j', (text, expected) => {
    expect(choiceAnswerKind.extract(text)).toBe(expected);
  });

  it('keys are single upper-case letters and keys are their own keys (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...'abcdefghijABCDEFGHIJ'), fc.constantFrom('', '(', ' '), (letter, prefix) => {
        const answer = prefix === '(' ? `(${letter})` : `${prefix}${letter}`;
        const key = choiceAnswerKind.canonicalKey(answer);
        expect(key).toBe(letter.toUpperCase());
        expect(choiceAnswerKind.canonicalKey(key as string)).toBe(key);
        expect(choiceAnswerKind.equivalent(answer, letter)).toBe(true);
      }),
    );
  });
});
