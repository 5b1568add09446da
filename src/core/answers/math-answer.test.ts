import fc from 'fast-check';
import { ComputeEngine } from '@cortex-js/compute-engine';
import { describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../errors.js';
import { createMathAnswerKind, mathAnswerKind, normalizeMathAnswer } from './math-answer.js';

// Pairs worked out by hand: each line says why the two are (not) the same answer.
const equivalentPairs: Array<[string, string, string]> = [
  ['\\frac{3}{4}', '0.75', '3/4 = 0.75'],
  ['\\frac{3}{4}', '3/4', 'LaTeX and slash fraction'],
  ['\\dfrac{3}{4}', '\\frac34', '\\dfrac is display style of \\frac'],
  ['\\tfrac{1}{2}', '.5', 'text-style fraction = 0.5'],
  ['2\\sqrt{2}', '\\sqrt{8}', 'sqrt(8) = sqrt(4·2) = 2·sqrt(2) ≈ 2.8284'],
  ['\\left(3,-1\\right)', '(3, -1)', '\\left/\\right are sizing only'],
  ['30^\\circ', '30', 'MATH gives angles in degrees: 30° = 30'],
  ['30^{\\circ}', '30°', 'braced and Unicode degree marks'],
  ['5\\text{ cm}', '5', 'unit text after a value is dropped'],
  ['\\$5', '5', 'dollar sign dropped'],
  ['10\\%', '10', 'percent sign dropped (value kept)'],
  ['x=5', '5', 'x = 5 answers 5'],
  ['1{,}000', '1000', 'thousands separator'],
  ['1,\\!000', '1000', 'thousands separator with negative thin space'],
  ['\\frac{\\sqrt{3}}{2}', '\\sin(\\pi/3)', 'sin 60° = sqrt(3)/2 ≈ 0.8660'],
  ['\\binom{10}{3}', '120', '10·9·8 / 3! = 720 / 6 = 120'],
  ['3\\frac{1}{2}', '3.5', 'mixed number 3 + 1/2'],
  ['\\{1,2\\}', '\\{2,1\\}', 'sets ignore order'],
  ['1, -2', '-2, 1', 'a bare list of solutions is unordered'],
  ['x^2+2x+1', '(x+1)^2', '(x+1)^2 expands to x^2 + 2x + 1'],
  ['\\pi r^2', 'r^2\\pi', 'product commutes'],
  ['(-\\infty, 3]', '(-\\infty,3]', 'interval with infinity, spacing ignored'],
  ['47 feet', '47', 'unit word after a value'],
  ['0.333333333333', '\\frac{1}{3}', '|0.333333333333 − 1/3| ≈ 3.3e-13, inside 1e-8 relative'],
  ['-0', '0', 'signed zero'],
  ['\\boxed{7}', '7', 'a stray \\boxed inside an isolated answer'],
  ['$\\frac{1}{2}$', '0.5', 'math delimiters'],
];

const differentPairs: Array<[string, string, string]> = [
  ['(3,-1)', '(-1,3)', 'tuples keep order'],
  ['[2,5)', '(2,5)', 'closed vs open interval end'],
  ['(1,2)', '\\{1,2\\}', 'tuple vs set'],
  ['\\frac{3}{4}', '0.74', '0.75 vs 0.74'],
  ['0.3333', '\\frac{1}{3}', '|0.3333 − 1/3| ≈ 3.3e-5, outside 1e-8 relative'],
  ['2\\sqrt{2}', '2\\sqrt{3}', '2.828 vs 3.464'],
  ['x^2+1', 'x^2-1', 'differ by 2 everywhere'],
  ['\\sqrt{x^2}', 'x', '|x| ≠ x for negative x'],
  ['1, 2', '1, 2, 3', 'different sizes'],
  ['5', '-5', 'sign'],
  ['None', '0', 'a word is not a number'],
];

describe('math answer kind: equivalence table', () => {
  it.each(equivalentPairs)('%s ≡ %s (%s)', (a, b) => {
    expect(mathAnswerKind.equivalent(a, b)).toBe(true);
    expect(mathAnswerKind.equivalent(b, a)).toBe(true);
  });

  it.each(differentPairs)('%s ≢ %s (%s)', (a, b) => {
    expect(mathAnswerKind.equivalent(a, b)).toBe(false);
    expect(mathAnswerKind.equivalent(b, a)).toBe(false);
  });

  it('gives equivalent numeric answers the same key, rounded to 10 significant digits', () => {
    // 3/4 = 0.75 exactly; 2·sqrt(2) = 2.8284271247461903 → 2.828427125 at 10 digits.
    expect(mathAnswerKind.canonicalKey('\\dfrac{3}{4}')).toBe('0.75');
    expect(mathAnswerKind.canonicalKey('0.75')).toBe('0.75');
    expect(mathAnswerKind.canonicalKey('2\\sqrt{2}')).toBe('2.828427125');
    expect(mathAnswerKind.canonicalKey('\\sqrt{8}')).toBe('2.828427125');
    // 2^1000 = 1.0715086071862673e301 → 1.071508607e+301.
    expect(mathAnswerKind.canonicalKey('2^{1000}')).toBe('1.071508607e+301');
    expect(mathAnswerKind.canonicalKey('(3,-1)')).toBe('(3,-1)');
    expect(mathAnswerKind.canonicalKey('\\{2, 1\\}')).toBe('\\{1,2\\}');
  });

  it('keeps keys stable: the key of a key is itself', () => {
    for (const answer of [
      '\\frac{3}{4}',
      '(3,-1)',
      'x^2+1',
      '2\\pi r',
      'x \\in [1,2]',
      'None',
      '\\sum_{n=1}^{10} n',
      '1+2i',
      '2^{100000}',
      '\\frac{a}{b',
    ]) {
      const key = mathAnswerKind.canonicalKey(answer);
      expect(key, answer).not.toBeNull();
      expect(mathAnswerKind.canonicalKey(key as string), answer).toBe(key);
    }
  });

  it('returns null for empty answers and never treats them as equivalent', () => {
    expect(mathAnswerKind.canonicalKey('   ')).toBeNull();
    expect(mathAnswerKind.canonicalKey('$$')).toBeNull();
    expect(mathAnswerKind.equivalent('', '')).toBe(false);
  });

  it('does not evaluate expressions that would hang or exhaust the engine', () => {
    // 9^(9^9) has ~370 million digits and 10000000! takes seconds: both must be keyed unevaluated.
    const started = performance.now();
    expect(mathAnswerKind.canonicalKey('9^{9^9}')).toBe('9^{9^9}');
    expect(mathAnswerKind.canonicalKey('10^{10^{10}}')).toBe('10^{10^{10}}');
    expect(mathAnswerKind.canonicalKey('10000000!')).not.toBeNull();
    expect(mathAnswerKind.canonicalKey('\\sum_{n=1}^{1000000000} n')).not.toBeNull();
    expect(mathAnswerKind.equivalent('9^{9^9}', '9^{9^9}')).toBe(true);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('does not evaluate a power whose base is a large power, nor a product of large exponents', () => {
    // (9999^9999)^9999 = 9999^99980001 has ~4·10^8 digits: it ran the process out of heap. (10^10000)^10000
    // has 10^8 + 1 digits (30 s, 3.4 GB), and 2^(10000·10000) ~3·10^7 digits (7 s). Each is keyed unevaluated,
    // by its text: the engine writes (a^b)^c as the tower a^{b^c}, a different number.
    const kind = createMathAnswerKind();
    const started = performance.now();
    expect(kind.canonicalKey('(9999^{9999})^{9999}')).toBe('(9999^{9999})^{9999}');
    expect(kind.canonicalKey('{{2^{10000}}^{10000}}^{10000}')).toBe('{{2^{10000}}^{10000}}^{10000}');
    expect(kind.canonicalKey('(10^{10000})^{10000}')).toBe('(10^{10000})^{10000}');
    expect(kind.canonicalKey('2^{10000\\cdot 10000}')).not.toBeNull();
    expect(kind.extract('So $\\boxed{(9999^{9999})^{9999}}$.')).toBe('(9999^{9999})^{9999}');
    expect(kind.equivalent('(9999^{9999})^{9999}', '(9999^{9999})^{9999}')).toBe(true);
    expect(kind.equivalent('(9999^{9999})^{9999}', '9999^{9999^{9999}}')).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    // Small powers of powers are still evaluated: (2^3)^4 = 2^12 = 4096; (2^100)^100 = 2^10000 ≈ 1.995063117e3010.
    expect(kind.canonicalKey('(2^3)^4')).toBe('4096');
    expect(kind.canonicalKey('(2^{100})^{100}')).toBe('1.995063117e+3010');
  });

  it('keys a matrix by its elements: spacing around the row break and \\frac vs / do not matter', () => {
    // The MATH reference form has spaces around `\\`; the `\ ` spacing rule used to eat the row break's second
    // backslash. Elements are keyed like tuple elements: -1/3 = -0.3333333333, 2/3 = 0.6666666667, 5/3 = 1.666666667.
    const reference = '\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}';
    expect(mathAnswerKind.canonicalKey(reference)).toBe('\\begin{pmatrix}-2\\\\-14\\\\-7\\end{pmatrix}');
    expect(mathAnswerKind.canonicalKey('\\begin{pmatrix}-2\\\\-14\\\\-7\\end{pmatrix}')).toBe(
      mathAnswerKind.canonicalKey(reference),
    );
    expect(mathAnswerKind.equivalent(reference, '\\begin{bmatrix} -2\\\\ -14\\\\ -7 \\end{bmatrix}')).toBe(true);
    expect(
      mathAnswerKind.equivalent(
        '\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}',
        '\\begin{pmatrix} -\\frac{1}{3} \\\\ \\frac{2}{3} \\\\ \\frac{5}{3} \\end{pmatrix}',
      ),
    ).toBe(true);
    expect(mathAnswerKind.canonicalKey('\\begin{pmatrix} 1 & \\frac12 \\\\ 0 & 1 \\end{pmatrix}')).toBe(
      '\\begin{pmatrix}1&0.5\\\\0&1\\end{pmatrix}',
    );
    // Different elements, or a row vector against a column vector, differ.
    expect(mathAnswerKind.equivalent(reference, '\\begin{pmatrix} -2 \\\\ -14 \\\\ 7 \\end{pmatrix}')).toBe(false);
    expect(mathAnswerKind.equivalent(reference, '\\begin{pmatrix} -2 & -14 & -7 \\end{pmatrix}')).toBe(false);
  });

  it('drops a unit with its exponent: 15\\mbox{ cm}^2 is 15, not 15^2 = 225', () => {
    expect(mathAnswerKind.canonicalKey('15\\mbox{ cm}^2')).toBe('15');
    expect(mathAnswerKind.canonicalKey('24\\text{ m}^{3}')).toBe('24');
    expect(mathAnswerKind.equivalent('864 \\mbox{ inches}^2', '864')).toBe(true);
    expect(mathAnswerKind.extract('The area is $\\boxed{15\\text{ cm}^2}$.')).toBe('15');
  });

  it('applies the thousands rule to each answer: after `=`, inside a tuple, in a list', () => {
    expect(mathAnswerKind.canonicalKey('x = 1{,}000')).toBe('1000');
    expect(mathAnswerKind.canonicalKey('x=1,000')).toBe('1000');
    expect(mathAnswerKind.canonicalKey('(1{,}000, 2)')).toBe('(1000,2)');
    expect(mathAnswerKind.canonicalKey('1{,}000 \\text{ and } 2{,}000')).toBe('1000, 2000');
    expect(mathAnswerKind.equivalent('x = 1{,}000', '0, 1')).toBe(false);
    // Two answers stay two: x = 1 and y = 2.
    expect(mathAnswerKind.canonicalKey('x=1, y=2')).toBe('x=1, y=2');
    expect(mathAnswerKind.canonicalKey('x = 1{,}000, y = 2')).toBe('x=1000, y=2');
    // A plain grouped number after `=` is one value in a list too: x = 1000 and y = 2, not 1, 000 and 2.
    expect(mathAnswerKind.canonicalKey('x = 1,000, y = 2')).toBe('x=1000, y=2');
    expect(mathAnswerKind.canonicalKey('x=1,000,y=2')).toBe('x=1000, y=2');
    expect(mathAnswerKind.equivalent('x=1,000, y=2', 'x=2, y=1,000')).toBe(false);
    expect(mathAnswerKind.canonicalKey('x = -1,000, y = 2,500')).toBe('x=-1000, y=2500');
    // Keys of a bare list sort as text: 1234567.5 before 2.
    expect(mathAnswerKind.canonicalKey('x = 1,234,567.5, x = 2')).toBe('1234567.5, 2');
    // With a space, or followed at once by more digits, the digits are not a group: separate answers.
    expect(mathAnswerKind.canonicalKey('x = 1, 000, y = 2')).toBe('0, 1, 2');
    expect(mathAnswerKind.canonicalKey('x=1,000,0001')).toBe('0, 1, 1');
    // One answer whose grouped number follows a comma inside brackets: C(6, 2) = 15, and 7,800 is 7800.
    expect(mathAnswerKind.canonicalKey('6 \\cdot C(6, 2) = 7,800')).toBe('7800');
  });

  it('keeps the names of a list of values of several unknowns; values of one unknown are a bare list', () => {
    // x = 1, y = 2 is not x = 2, y = 1 (the values alone would sort to the same key, 1, 2).
    expect(mathAnswerKind.equivalent('x=1, y=2', 'x=2, y=1')).toBe(false);
    expect(mathAnswerKind.equivalent('x = 1, y = 2', 'y=2,x=1')).toBe(true);
    expect(mathAnswerKind.equivalent('a = \\frac{1}{2}, b = 3', 'b = 3, a = 0.5')).toBe(true);
    expect(mathAnswerKind.equivalent('x_{1} = 2, x_2 = 3', 'x_1 = 2, x_{2} = 3')).toBe(true);
    expect(mathAnswerKind.equivalent('\\alpha = 1, \\beta = 2', '\\alpha = 2, \\beta = 1')).toBe(false);
    // Which value belongs to which unknown is unknown in a bare list, so it is not the named one.
    expect(mathAnswerKind.equivalent('x=1, y=2', '1, 2')).toBe(false);
    // The solutions of one equation: x = 1 or x = -2, the same as the bare list.
    expect(mathAnswerKind.canonicalKey('x=1, x=-2')).toBe('-2, 1');
    // In set braces too, a grouped value after = is one number: x = 1000, y = 2.
    expect(mathAnswerKind.canonicalKey('\\{x=1,000, y=2\\}')).toBe('\\{x=1000,y=2\\}');
    expect(mathAnswerKind.equivalent('\\{x=1,000, y=2\\}', 'x = 1,000, y = 2')).toBe(true);
    expect(mathAnswerKind.equivalent('x=1, x=-2', '-2, 1')).toBe(true);
    // Not every part names an unknown: the values, as before.
    expect(mathAnswerKind.canonicalKey('x=1, y=2, 5')).toBe('1, 2, 5');
    for (const answer of [
      'x=1, y=2',
      'y = 0.5, x = \\frac{1}{3}',
      'x_{1} = 2, x_2 = 3',
      'x = y = 1, z = 2',
      "x^\\prime = 1, y'' = 2",
      '\\{x = 1, y = 2\\}',
      'x = 1,000, y = 2',
    ]) {
      const key = mathAnswerKind.canonicalKey(answer) as string;
      expect(mathAnswerKind.canonicalKey(key), answer).toBe(key);
    }
  });

  it('keeps the names of a list of several unknowns after a trailing comma or an empty answer', () => {
    // The empty answer is left out; it does not turn the list into the bare values 1, 2.
    expect(mathAnswerKind.canonicalKey('x=1, y=2,')).toBe('x=1, y=2');
    expect(mathAnswerKind.equivalent('x=1, y=2,', 'x=2, y=1,')).toBe(false);
    expect(mathAnswerKind.equivalent('x=1, , y=2', '1, 2')).toBe(false);
  });

  it('gives each unknown of a chain x = y = 1 the value; steps before the last `=` are dropped', () => {
    expect(mathAnswerKind.canonicalKey('x = y = 1, z = 2')).toBe('x=1, y=1, z=2');
    expect(mathAnswerKind.equivalent('x = y = 1, z = 2', 'x = y = 2, z = 1')).toBe(false);
    expect(mathAnswerKind.equivalent('x = y = 1, z = 2', 'z=2, y=1, x=1')).toBe(true);
    // A chain naming x twice gives it its value once.
    expect(mathAnswerKind.equivalent('x = x = 1, y = 2', 'x = 1, y = 2')).toBe(true);
    // x = 2+1 = 3 is x = 3: the step 2+1 names no unknown.
    expect(mathAnswerKind.canonicalKey('x = 2+1 = 3, y = 2')).toBe('x=3, y=2');
    expect(mathAnswerKind.equivalent('x = 2+1 = 3, y = 2', 'x = 2, y = 3')).toBe(false);
  });

  it("keeps the names of unknowns with primes: x' = 1, y' = 2 is not x' = 2, y' = 1", () => {
    expect(mathAnswerKind.canonicalKey("x' = 2, y' = 1")).toBe("x'=2, y'=1");
    expect(mathAnswerKind.equivalent("x'=1, y'=2", "x'=2, y'=1")).toBe(false);
    // x^\prime is x', and y^{\prime\prime} is y''.
    expect(mathAnswerKind.equivalent('x^\\prime=1, y^{\\prime\\prime}=2', "y''=2, x'=1")).toBe(true);
  });

  it('keeps the names of several unknowns in set braces: \\{x=1, y=2\\} is not \\{x=2, y=1\\}', () => {
    expect(mathAnswerKind.canonicalKey('\\{x=1, y=2\\}')).toBe('\\{x=1,y=2\\}');
    expect(mathAnswerKind.equivalent('\\{x=1, y=2\\}', '\\{x=2, y=1\\}')).toBe(false);
    // A set is the bare list of the same answers, as \\{1,2\\} is 1, 2.
    expect(mathAnswerKind.equivalent('\\{x=1, y=2\\}', 'y=2, x=1')).toBe(true);
  });

  it('keeps (x,y)=(1,2) the tuple (1,2), so it matches the reference of an ordered-pair question', () => {
    // "Enter the ordered pair (x, y)": the reference is the bare tuple, and answers name the pair first.
    // (Reading it as the named list x=1, y=2 made it differ from that reference.)
    expect(mathAnswerKind.canonicalKey('(x,y)=(1,2)')).toBe('(1,2)');
    expect(mathAnswerKind.equivalent('(x,y)=(1,2)', '(1,2)')).toBe(true);
    expect(mathAnswerKind.equivalent('(a,b)=(2,5)', '(2,5)')).toBe(true);
    expect(mathAnswerKind.equivalent('(x,y)=(1,2)', '(2,1)')).toBe(false);
    // Two solutions of a system are two tuples.
    expect(mathAnswerKind.canonicalKey('(x,y)=(1,2), (x,y)=(3,4)')).toBe('(1,2), (3,4)');
  });

  it('reads semicolon-separated assignments like the comma list: x=1;y=2 is x=1, y=2', () => {
    // The x=1 part used to be lost: everything before the last `=` was dropped, leaving 2.
    expect(mathAnswerKind.canonicalKey('x=1;y=2')).toBe('x=1, y=2');
    expect(mathAnswerKind.canonicalKey('x = 1; y = 2')).toBe('x=1, y=2');
    expect(mathAnswerKind.equivalent('x=1;y=2', 'x=2;y=1')).toBe(false);
    expect(mathAnswerKind.equivalent('x=1; y=2', 'y=2, x=1')).toBe(true);
    // The thousands rule of the comma list holds: x = 1000 and y = 2.
    expect(mathAnswerKind.canonicalKey('x = 1,000; y = 2')).toBe('x=1000, y=2');
    // Values of one unknown stay a bare list, as with commas.
    expect(mathAnswerKind.canonicalKey('x=1; x=-2')).toBe('-2, 1');
    // In set braces too; a key is its own key.
    expect(mathAnswerKind.canonicalKey('\\{x=1; y=2\\}')).toBe('\\{x=1,y=2\\}');
    for (const answer of ['x=1;y=2', '\\{x=1; y=2\\}', 'x = 1,000; y = 2']) {
      const key = mathAnswerKind.canonicalKey(answer) as string;
      expect(mathAnswerKind.canonicalKey(key), answer).toBe(key);
    }
    // Not every part assigns: the text is not a list (no key change for such answers).
    expect(mathAnswerKind.canonicalKey('1; 2')).toBe('1;2');
    // Two solutions of a system separated by `;` are the two tuples of the comma form, not x = 3, y = 4 read from
    // the first `(x, y)` to the last `=`.
    expect(mathAnswerKind.canonicalKey('(x, y) = (1, 2); (x, y) = (3, 4)')).toBe('(1,2), (3,4)');
    // In parentheses too, like `(x=1, y=2)`.
    expect(mathAnswerKind.canonicalKey('(x=1; y=2)')).toBe('x=1, y=2');
  });

  it('reads a parenthesised named list like the bare one: (x=1,000, y=2) is x=1000, y=2', () => {
    // Its commas used to all separate tuple elements: (1,0,2).
    expect(mathAnswerKind.canonicalKey('(x=1,000, y=2)')).toBe('x=1000, y=2');
    expect(mathAnswerKind.equivalent('(x=1,000, y=2)', 'x = 1,000, y = 2')).toBe(true);
    // The names are kept: (x=1, y=2) was the tuple (1,2), the same as (y=1, x=2).
    expect(mathAnswerKind.canonicalKey('(x=1, y=2)')).toBe('x=1, y=2');
    expect(mathAnswerKind.equivalent('(x=1, y=2)', '(y=1, x=2)')).toBe(false);
    expect(mathAnswerKind.equivalent('(x=1, y=2)', '(y=2, x=1)')).toBe(true);
    // Values of one unknown in parentheses stay a tuple, as before.
    expect(mathAnswerKind.canonicalKey('(x=1, x=2)')).toBe('(1,2)');
  });

  it('reads a Greek command with a letter (\\Delta x) as the name of an unknown', () => {
    expect(mathAnswerKind.canonicalKey('\\Delta x = 3, \\Delta y = 4')).toBe('\\Delta x=3, \\Delta y=4');
    expect(mathAnswerKind.equivalent('\\Delta x = 3, \\Delta y = 4', '\\Delta x = 4, \\Delta y = 3')).toBe(false);
    expect(mathAnswerKind.equivalent('\\Delta x = 3, y = 2', 'y=2, \\Delta x=3')).toBe(true);
    // It used to be no name, so the list fell back to its bare values 2, 3.
    expect(mathAnswerKind.canonicalKey('\\Delta x = 3, y = 2')).toBe('\\Delta x=3, y=2');
    for (const answer of ['\\Delta x = 3, \\Delta y = 4', '\\Delta x = 3, y = 2']) {
      const key = mathAnswerKind.canonicalKey(answer) as string;
      expect(mathAnswerKind.canonicalKey(key), answer).toBe(key);
    }
  });

  it('drops commentary after the answer: 42 (since 6 \\times 7 = 42) is 42, x = 5, which is positive is 5', () => {
    // The comment was keyed as text (42(since6\\times7=42)) or as a second answer (5, whichispositive).
    expect(mathAnswerKind.canonicalKey('42 (since 6 \\times 7 = 42)')).toBe('42');
    expect(mathAnswerKind.canonicalKey('x = 5, which is positive')).toBe('5');
    expect(mathAnswerKind.canonicalKey('x = 1, y = 2, which satisfies both equations')).toBe('x=1, y=2');
    expect(mathAnswerKind.canonicalKey('\\frac{1}{2} (because f(1) = \\frac{1}{2})')).toBe('0.5');
    // A paragraph is not cut at its `which`: that would leave one of its numbers (100) as the answer.
    expect(mathAnswerKind.canonicalKey('The total is 100, which gives 21')).toBe('Thetotalis100, whichgives21');
    // Without a comma, trailing words were already dropped like unit words.
    expect(mathAnswerKind.canonicalKey('x = 5 which is positive')).toBe('5');
    // A bracket that is not commentary stays: a product, a tuple element.
    expect(mathAnswerKind.canonicalKey('2 (3)')).toBe('6');
    expect(mathAnswerKind.canonicalKey('(x+1)(x-1)')).toBe('(x-1)(x+1)');
    // After a bracketed answer the comment goes; a `, which` inside brackets is not cut, which would leave the
    // bracket open (`(5`, `\{1`): the text is keyed as before.
    expect(mathAnswerKind.canonicalKey('(1, 2), which is the only solution')).toBe('(1,2)');
    expect(mathAnswerKind.canonicalKey('(5, which is positive)')).toBe('(5,whichispositive)');
    expect(mathAnswerKind.canonicalKey('\\{1, where x \\}')).toBe('\\{1,wherex\\}');
  });

  it('extracts an answer line with a comment after it, which reads as prose only with the comment', () => {
    // These gave null: the prose check saw `which is positive`.
    expect(mathAnswerKind.extract('The answer is x = 5, which is positive.')).toBe('5');
    expect(mathAnswerKind.extract('{"answer": "2a^2, where a is any non-zero real number"}')).toBe('2a^2');
    expect(mathAnswerKind.extract('p + 14, where p is any real number')).toBe('p+14');
    // A paragraph stays a paragraph.
    expect(mathAnswerKind.extract('The total is 100, which gives 21')).toBeNull();
  });

  it('keys a value within half the absolute tolerance of 0 as 0, the key counterpart of the tolerance', () => {
    // Default absoluteTolerance 1e-12: a value keys as 0 when all values its 10-digit key stands for are within
    // 5e-13 of 0, so any two values keyed 0 are at most 1e-12 apart and equal keys still mean equivalent. 1e-13
    // was keyed 1e-13 though equivalent to 0.
    expect(mathAnswerKind.canonicalKey('1e-13')).toBe('0');
    expect(mathAnswerKind.canonicalKey('0.0000000000001')).toBe('0');
    expect(mathAnswerKind.canonicalKey('-4.999999999e-13')).toBe('0');
    expect(mathAnswerKind.equivalent('1e-13', '0')).toBe(true);
    // The key 5e-13 stands for values up to 5.0000000005e-13, beyond 5e-13: it stays, and so does the key of
    // 5.0000000001e-13 (10 digits: 5e-13), which must be its own key.
    expect(mathAnswerKind.canonicalKey('-5e-13')).toBe('-5e-13');
    expect(mathAnswerKind.canonicalKey('5.0000000001e-13')).toBe('5e-13');
    expect(mathAnswerKind.canonicalKey('5e-13')).toBe('5e-13');
    // -5e-13 and 5e-13 are 1e-12 ≤ 1e-12 apart: equivalent, with keys of their own.
    expect(mathAnswerKind.equivalent('-5e-13', '5e-13')).toBe(true);
    // 1e-12 is above 5e-13: its own key, yet within 1e-12 of 0 (equivalent), and 2e-12 from -1e-12 (not).
    expect(mathAnswerKind.canonicalKey('1e-12')).toBe('1e-12');
    expect(mathAnswerKind.equivalent('1e-12', '0')).toBe(true);
    expect(mathAnswerKind.equivalent('1e-12', '-1e-12')).toBe(false);
    // Tuple elements and list values follow the same rule: (1e-13, 1) is (0, 1).
    expect(mathAnswerKind.canonicalKey('(1e-13, 1)')).toBe('(0,1)');
    // The bound follows the option: 1e-6 keys values within 5e-7 of 0 as 0; 4e-7 and -4e-7 are 8e-7 ≤ 1e-6 apart.
    const loose = createMathAnswerKind({ absoluteTolerance: 1e-6 });
    expect(loose.canonicalKey('4e-7')).toBe('0');
    expect(loose.canonicalKey('6e-7')).toBe('6e-7');
    expect(loose.equivalent('4e-7', '-4e-7')).toBe(true);
  });

  it('evaluates tiny values with the engine by the same rule: the engine no longer sets |v| ≤ 1e-10 to 0', () => {
    // 10^{-11} was 0, not the key 1e-11 of `1e-11`, and not equivalent to it (1e-11 > 1e-12 apart).
    expect(mathAnswerKind.canonicalKey('10^{-11}')).toBe('1e-11');
    expect(mathAnswerKind.equivalent('10^{-11}', '1e-11')).toBe(true);
    expect(mathAnswerKind.equivalent('10^{-11}', '0')).toBe(false);
    // The engine set its intermediate 10^{-11} to 0: 10^{-11}·10^{20} = 10^9 came out 0.
    expect(mathAnswerKind.canonicalKey('10^{-11}\\cdot 10^{20}')).toBe('1000000000');
    // 2^{-40} = 9.094947017729282e-13 → 9.094947018e-13 at 10 digits.
    expect(mathAnswerKind.canonicalKey('2^{-40}')).toBe('9.094947018e-13');
    // Rounding noise of an exact 0 still keys 0.
    expect(mathAnswerKind.canonicalKey('\\sin\\pi')).toBe('0');
    expect(mathAnswerKind.canonicalKey('\\cos 90^\\circ')).toBe('0');
    // At the bound the engine decides nothing itself: 5·10^{-13} keys like the literal 5e-13 (it was 0).
    expect(mathAnswerKind.canonicalKey('5\\cdot 10^{-13}')).toBe('5e-13');
    expect(mathAnswerKind.canonicalKey('4\\cdot 10^{-13}')).toBe('0');
  });

  it('keys tiny values so that equal keys are within the documented tolerance: generated values near 0', () => {
    const tiny = fc.double({ min: -1e-11, max: 1e-11, noNaN: true });
    fc.assert(
      fc.property(tiny, tiny, (a, b) => {
        const left = String(a);
        const right = String(b);
        // |a| ≤ 4.99999999e-13 rounds to a key r ≤ 4.999999999e-13, which stands for values up to
        // 4.9999999995e-13 ≤ 5e-13: keyed 0, as the rule above says.
        if (Math.abs(a) <= 4.99999999e-13) expect(mathAnswerKind.canonicalKey(left)).toBe('0');
        if (mathAnswerKind.canonicalKey(left) === mathAnswerKind.canonicalKey(right)) {
          // |a − b| ≤ max(1e-12, 1e-8·max(|a|, |b|)) (docs/answers.md).
          expect(Math.abs(a - b)).toBeLessThanOrEqual(Math.max(1e-12, 1e-8 * Math.max(Math.abs(a), Math.abs(b))));
          expect(mathAnswerKind.equivalent(left, right)).toBe(true);
        }
      }),
    );
  });

  it('keys values at the zero bound so that a key is its own key and keys of 0 are within the tolerance', () => {
    // 5e-13 · (1 + k·1e-11): values around the bound 5e-13 whose 10-digit keys land on either side of it.
    const nearBound = fc
      .tuple(fc.integer({ min: -1000, max: 1000 }), fc.boolean())
      .map(([step, negative]) => (negative ? -1 : 1) * 5e-13 * (1 + step * 1e-11));
    fc.assert(
      fc.property(nearBound, nearBound, (a, b) => {
        const left = mathAnswerKind.canonicalKey(String(a)) as string;
        expect(mathAnswerKind.canonicalKey(left), String(a)).toBe(left);
        if (left === '0' && mathAnswerKind.canonicalKey(String(b)) === '0')
          expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12);
      }),
    );
  });

  it('keeps a \\text{..} that is a list or tuple element; only one after a value is a unit', () => {
    expect(mathAnswerKind.equivalent('\\text{(A)}, \\text{(C)}', '\\text{(B)}, \\text{(D)}')).toBe(false);
    expect(mathAnswerKind.equivalent('\\text{(A)}, \\text{(C)}', '\\text{(C)}, \\text{(A)}')).toBe(true);
    expect(mathAnswerKind.equivalent('(2, \\text{undefined})', '(2, \\text{none})')).toBe(false);
    expect(mathAnswerKind.equivalent('\\text{Monday}, \\text{Tuesday}', '\\text{odd}, \\text{even}')).toBe(false);
    // A unit after a value inside a tuple is still dropped, and so is a label before a value.
    expect(mathAnswerKind.canonicalKey('(5\\text{ cm}, 3\\text{ cm})')).toBe('(5,3)');
    expect(mathAnswerKind.canonicalKey('\\text{answer: } -3404')).toBe('-3404');
  });

  it('gives keys that are their own keys for doubly escaped and spaced LaTeX', () => {
    for (const [answer, expected] of [
      ['\\\\boxed{5}', '5'],
      ['\\\\frac{1}{2}', '0.5'],
      ['5 \\text {cm}', '5'],
      // 8·√3 = 13.856406460551018 → 13.85640646.
      ['8\\sqrt{3} \\text { square inches}', '13.85640646'],
    ] as const) {
      const key = mathAnswerKind.canonicalKey(answer);
      expect(key, answer).toBe(expected);
      expect(mathAnswerKind.canonicalKey(key as string), answer).toBe(key);
    }
    const key = mathAnswerKind.canonicalKey('$\\\\boxed{k \\\\in \\\\mathbb{R}}$') as string;
    expect(mathAnswerKind.canonicalKey(key)).toBe(key);
  });

  it('reads a degree mark inside a trigonometric function in degrees', () => {
    // sin 30° = 1/2, cos 60° = 1/2, tan 45° = 1, cos 36° = (1 + √5)/4 ≈ 0.8090169944, 2 cos 15° = (√6 + √2)/2 ≈ 1.931851653.
    expect(mathAnswerKind.canonicalKey('\\sin 30^\\circ')).toBe('0.5');
    expect(mathAnswerKind.equivalent('\\cos 60^\\circ', '\\frac{1}{2}')).toBe(true);
    expect(mathAnswerKind.equivalent('\\tan 45°', '1')).toBe(true);
    expect(mathAnswerKind.equivalent('\\cos 36^\\circ', '\\frac{1+\\sqrt5}{4}')).toBe(true);
    expect(mathAnswerKind.equivalent('2\\cos 15^{\\circ}', '\\frac{\\sqrt6+\\sqrt2}{2}')).toBe(true);
    // sin 30 (radians) ≈ -0.988 is another number; a bare angle keeps the MATH convention, 30° = 30.
    expect(mathAnswerKind.equivalent('\\sin 30^\\circ', '\\sin 30')).toBe(false);
    expect(mathAnswerKind.canonicalKey('30^\\circ')).toBe('30');
  });

  it("keeps the engine's own caught errors off stderr and counts them", () => {
    // An ARITH payload from the MATH-L5 replay: the engine fails to type `AD` inside its canonical
    // form, catches that and used to print an "Invalid type" block per failure to stderr.
    const kind = createMathAnswerKind();
    const printed = vi.spyOn(console, 'error');
    try {
      expect(kind.canonicalKey('-(-28-8AD)')).not.toBeNull();
      expect(kind.equivalent('-(-28-8AD)', '28')).toBe(false);
      expect(printed).not.toHaveBeenCalled();
      // console.error is put back after every engine call.
      expect(console.error).toBe(printed);
    } finally {
      printed.mockRestore();
    }
    expect(kind.engineDiagnostics()).toBeGreaterThan(0);
    expect(createMathAnswerKind().engineDiagnostics()).toBe(0);
  });

  it('does not let one answer change how later answers parse (symbol types are scoped)', () => {
    const kind = createMathAnswerKind();
    // Parsing `x \in [1,2]` once made x a non-number for the rest of the engine's life.
    kind.canonicalKey('x \\in [1,2]');
    expect(kind.equivalent('x^2+2x+1', '(x+1)^2')).toBe(true);
  });

  it('normalizes LaTeX noise before parsing', () => {
    expect(normalizeMathAnswer('\\left( \\dfrac{1}{2}, 3 \\right)')).toBe('( \\frac{1}{2}, 3 )');
    expect(normalizeMathAnswer('\\text{(C)}')).toBe('(C)');
    expect(normalizeMathAnswer('1,000,000')).toBe('1000000');
  });

  it('extracts the answer from raw model text', () => {
    expect(mathAnswerKind.extract('So $x = \\boxed{\\dfrac{3}{4}}$.')).toBe('0.75');
    // Model output with a raw newline inside the JSON string and a single-backslash \frac (JSON would read \f as form feed).
    expect(mathAnswerKind.extract('{\n "reasoning": "first\nsecond",\n "answer": "\\frac{1}{2}"\n}')).toBe('0.5');
    // The first real JSON answer wins over a template echo with placeholders.
    expect(mathAnswerKind.extract('```json\n{"answer": "12"}\n```\nformat: {"answer": "___"}')).toBe('12');
    expect(mathAnswerKind.extract('Thus the final answer is (3, -1).')).toBe('(3,-1)');
    expect(mathAnswerKind.extract('-15')).toBe('-15');
    expect(mathAnswerKind.extract('I could not solve this problem at all, sorry.')).toBeNull();
  });

  it('refuses bad options with a typed error', () => {
    expect(() => createMathAnswerKind({ relativeTolerance: -1 })).toThrow(InvalidArgumentError);
    expect(() => createMathAnswerKind({ cacheSize: 0 })).toThrow(/options.cacheSize/);
  });

  it('reads each distinct text with the engine once: a key read back costs no engine parse', () => {
    const kind = createMathAnswerKind();
    const parsed = vi.spyOn(ComputeEngine.prototype, 'parse');
    try {
      // 'x^2 + 2x + 1' has a free variable, so the engine keys it by its LaTeX 'x^2+2x+1' and the
      // verify step parses that LaTeX back: 2 engine parses. The key read as an answer normalizes to
      // 'x^2+2x+1' again, and its own verify step asks for the same text: 0 more.
      expect(kind.canonicalKey('x^2 + 2x + 1')).toBe('x^2+2x+1');
      expect(parsed).toHaveBeenCalledTimes(2);
      expect(kind.canonicalKey('x^2+2x+1')).toBe('x^2+2x+1');
      expect(parsed).toHaveBeenCalledTimes(2);
      // The engine reads '2\cdot(-1, 2)' with an error (a tuple times 2), so its key is the text
      // without spaces, which the verify step parses: 2 more (4). The key read back asks for that
      // same text again: 0 more.
      expect(kind.canonicalKey('2\\cdot(-1, 2)')).toBe('2\\cdot(-1,2)');
      expect(kind.canonicalKey('2\\cdot(-1,2)')).toBe('2\\cdot(-1,2)');
      expect(parsed).toHaveBeenCalledTimes(4);
      // Equivalence reads the kept expressions: (x+1)^2 = x^2 + 2x + 1 is 1 new text.
      expect(kind.equivalent('x^2+2x+1', '(x+1)^2')).toBe(true);
      expect(parsed).toHaveBeenCalledTimes(5);
    } finally {
      parsed.mockRestore();
    }
  });

  it('keys plain integers as the general path does (second method: the same text with spaces around)', () => {
    // By hand: -0 is 0; leading zeros drop; 123456789012345 < 2^53 is a safe integer, kept whole
    // (10 significant digits would merge it with 123456789012346).
    const kind = createMathAnswerKind();
    expect(kind.canonicalKey('-0')).toBe('0');
    expect(kind.canonicalKey('007')).toBe('7');
    expect(kind.canonicalKey('123456789012345')).toBe('123456789012345');
    expect(kind.equivalent('123456789012345', '123456789012346')).toBe(false);
    // ' n ' is not a plain integer, so it takes normalization and the decimal branch.
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), (value) => {
        const text = String(value);
        expect(kind.canonicalKey(text)).toBe(kind.canonicalKey(` ${text} `));
        expect(kind.equivalent(text, ` ${text} `)).toBe(true);
      }),
    );
  });

  it('bounds its cache', () => {
    const kind = createMathAnswerKind({ cacheSize: 3 });
    for (const answer of ['1', '2', '3', '4', '5']) kind.canonicalKey(answer);
    expect(kind.cacheSize()).toBe(3);
  });
});

describe('math answer kind: properties', () => {
  const finite = fc.double({ min: -1e12, max: 1e12, noNaN: true, noDefaultInfinity: true });

  it('is reflexive and symmetric on generated numbers', () => {
    fc.assert(
      fc.property(finite, finite, (a, b) => {
        const left = String(a);
        const right = String(b);
        expect(mathAnswerKind.equivalent(left, left)).toBe(true);
        expect(mathAnswerKind.equivalent(left, right)).toBe(mathAnswerKind.equivalent(right, left));
      }),
    );
  });

  it('gives equal keys and equivalence to generated equal pairs written differently', () => {
    // Each pair is equal by construction: n/d and (n·k)/(d·k); \frac and \dfrac; a tuple with and without spaces and
    // \left( \right); √(a²·b) and a√b; an answer bare, boxed and between $ signs.
    const pair = fc.oneof(
      fc
        .tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 2, max: 9 }))
        .map(([n, d, k]) => [`\\frac{${n}}{${d}}`, `\\frac{${n * k}}{${d * k}}`]),
      fc
        .tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 50 }))
        .map(([n, d]) => [`\\frac{${n}}{${d}}`, `\\dfrac{${n}}{${d}}`]),
      fc
        .tuple(fc.integer({ min: -9, max: 9 }), fc.integer({ min: -9, max: 9 }))
        .map(([x, y]) => [`(${x},${y})`, `\\left( ${x} , ${y} \\right)`]),
      fc
        .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 2, max: 20 }))
        .map(([a, b]) => [`\\sqrt{${a * a * b}}`, `${a}\\sqrt{${b}}`]),
      finite.map(String).chain((text) => fc.constantFrom([text, `\\boxed{${text}}`], [text, `$${text}$`])),
    );
    fc.assert(
      fc.property(pair, ([left, right]) => {
        expect(mathAnswerKind.canonicalKey(left)).not.toBeNull();
        expect(mathAnswerKind.canonicalKey(right)).toBe(mathAnswerKind.canonicalKey(left));
        expect(mathAnswerKind.equivalent(left, right)).toBe(true);
        expect(mathAnswerKind.equivalent(right, left)).toBe(true);
      }),
    );
  });

  it('keys a list of named values by name, whatever the order: generated assignments', () => {
    const names = ['x', 'y', 'z', 'a', 'b'];
    const assignments = fc
      .uniqueArray(fc.constantFrom(...names), { minLength: 2, maxLength: 4 })
      .chain((picked) =>
        fc.tuple(
          fc.constant(picked),
          fc.array(fc.integer({ min: -20, max: 20 }), { minLength: picked.length, maxLength: picked.length }),
        ),
      );
    fc.assert(
      fc.property(assignments, ([picked, values]) => {
        const text = (order: readonly number[]) => order.map((at) => `${picked[at]} = ${values[at]}`).join(', ');
        const order = picked.map((_, at) => at);
        const reversed = order.slice().reverse();
        expect(mathAnswerKind.canonicalKey(text(reversed))).toBe(mathAnswerKind.canonicalKey(text(order)));
        // The first two values moved to each other's unknown: the same answer only when they are equal.
        const swapped = picked.map((name, at) => `${name} = ${values[at === 0 ? 1 : at === 1 ? 0 : at]}`).join(', ');
        expect(mathAnswerKind.equivalent(text(order), swapped)).toBe(values[0] === values[1]);
      }),
    );
  });

  it('tells generated unequal pairs apart: n/d and n/d + 1', () => {
    // (n + d)/d = n/d + 1, one whole unit away, far outside any tolerance.
    fc.assert(
      fc.property(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 50 }), (n, d) => {
        const left = `\\frac{${n}}{${d}}`;
        const right = `\\frac{${n + d}}{${d}}`;
        expect(mathAnswerKind.canonicalKey(left)).not.toBe(mathAnswerKind.canonicalKey(right));
        expect(mathAnswerKind.equivalent(left, right)).toBe(false);
      }),
    );
  });

  it('treats n·d/d written as a fraction as equal to n (second method: integer arithmetic)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 1, max: 97 }), (n, d) => {
        expect(mathAnswerKind.equivalent(`\\frac{${n * d}}{${d}}`, String(n))).toBe(true);
      }),
    );
  });
});

describe('math extraction on ZeroEval-shaped outputs', () => {
  it('skips the example answer of an echoed prompt and reads bare JSON values', () => {
    const echoed =
      'Please show your final answer in the `answer` field, e.g.,`"answer": "42"`.\n```json\n{"reasoning": "...", "answer": "No integer values satisfy it."}\n```';
    expect(mathAnswerKind.extract(echoed)).toBeNull();
    expect(mathAnswerKind.extract('{\n "reasoning": "so -3/8 = k.",\n "answer": -3/8\n}')).toBe('-0.375');
  });
});
