import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors.js';
import { createNumberAnswerKind, lastNumberInText, numberAnswerKind, parseNumberAnswer } from './number-answer.js';

describe('number answer kind', () => {
  it.each([
    ['$1,234.50', '1234.5', 'dollar and thousands comma'],
    ['12', '12.0', 'trailing zero'],
    ['50%', '50', 'percent sign dropped, value kept'],
    ['\\frac{3}{4}', '0.75', 'LaTeX fraction'],
    ['3/4', '0.75', 'slash fraction'],
    ['x = 18', '18', 'value after the last ='],
    ['18 dollars', '18', 'unit word'],
    ['−7', '-7', 'Unicode minus'],
    ['1000000', '1000000.0000001', 'relative difference 1e-13 < 1e-6'],
    ['\\$5', '5.', 'escaped dollar, trailing period'],
  ])('%s ≡ %s (%s)', (a, b) => {
    expect(numberAnswerKind.equivalent(a, b)).toBe(true);
    expect(numberAnswerKind.equivalent(b, a)).toBe(true);
  });

  it.each([
    ['12', '13', 'different integers'],
    ['0.75', '0.76', '|Δ| = 0.01 > 1e-6·0.76'],
    ['1,234', '1.234', 'a thousands comma is not a decimal point'],
    ['five', '5', 'words are not parsed'],
    ['-3', '3', 'sign'],
    ['1,000,007', '1000008', 'different integers, though 1/1000008 < 1e-6 relative'],
    ['12345678901', '12345678902', 'different integers with the same 10 significant digits'],
  ])('%s ≢ %s (%s)', (a, b) => {
    expect(numberAnswerKind.equivalent(a, b)).toBe(false);
    expect(numberAnswerKind.equivalent(b, a)).toBe(false);
  });

  it('keys values by 10 significant digits, and safe integers whole', () => {
    // 1/3 = 0.33333333333… → 0.3333333333; 1234.50 → 1234.5; 12345678901 < 2^53 stays whole,
    // 2^53 + 2 = 9007199254740994 is not a safe integer: 10 significant digits, 9007199255000000.
    expect(numberAnswerKind.canonicalKey('1/3')).toBe('0.3333333333');
    expect(numberAnswerKind.canonicalKey('12,345,678,901')).toBe('12345678901');
    expect(numberAnswerKind.canonicalKey('9007199254740994')).toBe('9007199255000000');
    expect(numberAnswerKind.canonicalKey('$1,234.50')).toBe('1234.5');
    expect(numberAnswerKind.canonicalKey('no number here')).toBeNull();
  });

  it('extracts GSM8K-style, JSON, boxed and free-text answers', () => {
    expect(numberAnswerKind.extract('She pays 3 * 400 = 1,200 dollars.\n#### 1200')).toBe('1200');
    expect(numberAnswerKind.extract('{"reasoning": "2+2", "answer": "4"}')).toBe('4');
    expect(numberAnswerKind.extract('so it is \\boxed{42}.')).toBe('42');
    expect(numberAnswerKind.extract('Answer: $18')).toBe('18');
    expect(numberAnswerKind.extract('First 3 apples, then 5 more, so 8 in total')).toBe('8');
    expect(numberAnswerKind.extract('I do not know')).toBeNull();
  });

  it('reads the LaTeX thousands separator {,}', () => {
    expect(numberAnswerKind.canonicalKey('1{,}000')).toBe('1000');
    expect(numberAnswerKind.equivalent('1{,}000', '1')).toBe(false);
    expect(numberAnswerKind.extract('... so she pays $\\boxed{1{,}200}$.')).toBe('1200');
    expect(numberAnswerKind.extract('1{,}200')).toBe('1200');
    expect(lastNumberInText('in all 12{,}345 votes')).toBe(12345);
  });

  it('reads a fraction followed by unit words as the fraction', () => {
    // 3/4 = 0.75, 1/2 = 0.5; inside an expression the first number stays (42 in (42 / 3) * 10).
    expect(numberAnswerKind.canonicalKey('3/4 cups')).toBe('0.75');
    expect(numberAnswerKind.canonicalKey('-3/4 cups')).toBe('-0.75');
    expect(numberAnswerKind.canonicalKey('\\frac{1}{2} hour')).toBe('0.5');
    expect(numberAnswerKind.canonicalKey('(42 / 3) * 10')).toBe('42');
  });

  it('parses numbers from isolated answers', () => {
    expect(parseNumberAnswer('1.5e3')).toBe(1500);
    expect(parseNumberAnswer('')).toBeNull();
  });

  it('refuses negative tolerances', () => {
    expect(() => createNumberAnswerKind({ absoluteTolerance: -1 })).toThrow(InvalidArgumentError);
  });

  it('is reflexive and symmetric, and equal keys imply equivalence (properties)', () => {
    const value = fc.double({ min: -1e15, max: 1e15, noNaN: true, noDefaultInfinity: true }).map(String);
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(numberAnswerKind.equivalent(a, a)).toBe(true);
        expect(numberAnswerKind.equivalent(a, b)).toBe(numberAnswerKind.equivalent(b, a));
      }),
    );
  });

  it('gives equal keys and equivalence to a number and its decorated forms, and tells x and x + 1% apart (properties)', () => {
    // Each pair is equal by construction: the same digits with a $, boxed, after "x =", with a closing period or
    // between $ signs. The unequal pair differs by max(1, |x|)/100, above both tolerances (1e-9 absolute, 1e-6 relative).
    const finite = fc.double({ min: -1e15, max: 1e15, noNaN: true, noDefaultInfinity: true });
    const decorate = fc.constantFrom(
      (text: string) => `\\$${text}`,
      (text: string) => `\\boxed{${text}}`,
      (text: string) => `x = ${text}`,
      (text: string) => `${text}.`,
      (text: string) => `$${text}$`,
    );
    fc.assert(
      fc.property(finite, decorate, (x, wrap) => {
        const text = String(x);
        expect(numberAnswerKind.canonicalKey(text)).not.toBeNull();
        expect(numberAnswerKind.canonicalKey(wrap(text))).toBe(numberAnswerKind.canonicalKey(text));
        expect(numberAnswerKind.equivalent(wrap(text), text)).toBe(true);
        const other = String(x + Math.max(1, Math.abs(x)) / 100);
        expect(numberAnswerKind.canonicalKey(other)).not.toBe(numberAnswerKind.canonicalKey(text));
        expect(numberAnswerKind.equivalent(other, text)).toBe(false);
      }),
    );
  });

  it('reads thousands-grouped integers as the integer (second method: toLocaleString)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000_000 }), (n) => {
        expect(numberAnswerKind.canonicalKey(n.toLocaleString('en-US'))).toBe(String(n));
      }),
    );
  });
});
