import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerKindHandler } from './answers.js';
import { literalZeroevalAnswerKind, literalZeroevalKey, zeroevalCruxString } from './literal-zeroeval-answer.js';

// Expected strings worked out by hand from crux_eval.py: str(answer).strip("'\"").replace('\n', '\\n'),
// after our trim of surrounding whitespace.
describe('literal-zeroeval answer kind (ZeroEval crux grader)', () => {
  it.each([
    ["'hello'", 'hello', 'single quotes stripped'],
    ['"hello"', 'hello', 'double quotes stripped'],
    ['  [666] ', '[666]', 'surrounding whitespace trimmed first'],
    ['\'"a"\'', 'a', 'every quote at either end, as str.strip("\'\\"") does'],
    ["''", '', 'the empty string'],
    ['8.50', '8.50', 'text, not a value: 8.50 stays 8.50'],
    ['a\nb', 'a\\nb', 'a newline written as \\n'],
    ["'     7     '", '     7     ', 'whitespace inside the quotes is kept'],
  ])('compares %j as %j (%s)', (answer, compared) => {
    expect(zeroevalCruxString(answer)).toBe(compared);
    expect(literalZeroevalKey(answer)).toBe(`'${compared}'`);
  });

  it.each([
    ['"hello"', "'hello'"],
    ['[1, 2]', ' [1, 2]'],
    ["''", '""'],
  ])('%j ≡ %j', (a, b) => {
    expect(literalZeroevalAnswerKind.equivalent(a, b)).toBe(true);
    expect(literalZeroevalAnswerKind.equivalent(b, a)).toBe(true);
  });

  // Each pair is equal under Python's `==` (the `literal` kind merges it) but differs as text.
  it.each([
    ['8.50', '8.5'],
    ['{"a": 1}', "{'a': 1}"],
    ['[1,2]', '[1, 2]'],
    ['1', 'True'],
    ['{2: 1, 1: 0}', '{1: 0, 2: 1}'],
  ])('%j ≢ %j, unlike the literal kind', (a, b) => {
    expect(literalZeroevalAnswerKind.equivalent(a, b)).toBe(false);
    expect(answerKindHandler('literal').equivalent(a, b)).toBe(true);
  });

  it('extracts the first answer field as the grader reads it, and nothing without one', () => {
    expect(literalZeroevalAnswerKind.extract('{"reasoning": "r", "answer": "[1, 2]"}')).toBe("'[1, 2]'");
    // A bare value is Python's str of the parsed JSON: 2.50 → 2.5, double quotes → single quotes.
    expect(literalZeroevalAnswerKind.extract('{"answer": [1, 2.50, "x"]}')).toBe("'[1, 2.5, 'x']'");
    expect(literalZeroevalAnswerKind.extract('{"answer": true}')).toBe("'True'");
    expect(literalZeroevalAnswerKind.extract('{"answer": null}')).toBe("'None'");
    expect(literalZeroevalAnswerKind.extract('{"answer": ""}')).toBe("''");
    expect(literalZeroevalAnswerKind.extract('{"answer": "a"} then {"answer": "b"}')).toBe("'a'");
    expect(literalZeroevalAnswerKind.extract('assert f(1) == [1]')).toBeNull();
  });

  it('keys are their own keys, and equal keys are equivalent (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', "'", '"', '\n', '[', '1', '.') }), (answer) => {
        const key = literalZeroevalKey(answer);
        expect(literalZeroevalKey(key)).toBe(key);
        expect(literalZeroevalAnswerKind.equivalent(answer, key)).toBe(true);
      }),
    );
  });
});
