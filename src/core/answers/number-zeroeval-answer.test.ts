import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { numberAnswerKind } from './number-answer.js';
import { formatPlainNumber, numberZeroevalAnswerKind, zeroevalFirstNumber } from './number-zeroeval-answer.js';

// Expected values worked out by hand from math_eval.py: drop "$", strip, drop ",", evaluate a division,
// then float(first match of -?\d+(\.\d+)?).
describe('number-zeroeval answer kind (ZeroEval math grader)', () => {
  it.each([
    ['$1,596', 1596, 'dollar and comma dropped'],
    ['$840 + $756 = $1,596', 840, 'the first number of a worked chain, not its result'],
    ['252 / 12 = 21 dozens', 252, 'a chain with a slash is no plain division'],
    ['3/4', 0.75, 'a division is evaluated: 3/4 = 0.75'],
    ['-6 / 4', -1.5, 'signed division: -6/4 = -1.5'],
    ['56/3', 18.666666666666668, 'float(56/3) = 18.666666666666668'],
    ['1/0', 1, 'ZeroDivisionError leaves the text: first number 1'],
    ['1/100000', 1, 'str(1e-05) is "1e-05", whose first number is 1'],
    ['28.00', 28, 'float("28.00") = 28'],
    ['1.5e3', 1.5, 'no exponent in the pattern: first number 1.5'],
    ['.5', 5, 'no leading-dot decimals in the pattern: first number 5'],
    ['14 points + 4 points = 18 points', 14, 'first number'],
  ])('reads %j as %d (%s)', (answer, value) => {
    expect(zeroevalFirstNumber(answer)).toBe(value);
  });

  it('has no number without digits', () => {
    expect(zeroevalFirstNumber('none')).toBeNull();
    expect(numberZeroevalAnswerKind.canonicalKey('none')).toBeNull();
    expect(numberZeroevalAnswerKind.equivalent('none', 'none')).toBe(false);
  });

  it('groups a worked chain with its first number, where the number kind reads its result', () => {
    // 840 + 756 = 1596: ZeroEval grades it against its first number 840; `number` reads 1596.
    expect(numberZeroevalAnswerKind.canonicalKey('$840 + $756 = $1,596')).toBe('840');
    expect(numberZeroevalAnswerKind.equivalent('$840 + $756 = $1,596', '1596')).toBe(false);
    expect(numberAnswerKind.equivalent('$840 + $756 = $1,596', '1596')).toBe(true);
    expect(numberZeroevalAnswerKind.equivalent('$1,596.00', '1596')).toBe(true);
  });

  it('extracts the first answer field, and nothing without one', () => {
    expect(numberZeroevalAnswerKind.extract('{"reasoning": "r", "answer": "$1,200"}')).toBe('1200');
    expect(numberZeroevalAnswerKind.extract('{"answer": -21}')).toBe('-21');
    expect(numberZeroevalAnswerKind.extract('so she pays $1,200.\n#### 1200')).toBeNull();
  });

  it('writes keys without an exponent, so a key reads back as itself', () => {
    expect(formatPlainNumber(1e-7)).toBe('0.0000001');
    expect(formatPlainNumber(-1.25e21)).toBe('-1250000000000000000000');
    expect(formatPlainNumber(-0)).toBe('0');
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const key = formatPlainNumber(value);
        expect(Number(key)).toBe(value === 0 ? 0 : value);
        expect(numberZeroevalAnswerKind.canonicalKey(key)).toBe(key);
      }),
    );
  });
});
