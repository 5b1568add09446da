import { ComputeEngine } from '@cortex-js/compute-engine';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { indexEngineDictionary, unindexEngineDictionary } from './_engine-dictionary-index.js';
import { createMathAnswerKind } from './math-answer.js';

const engine = new ComputeEngine();

/** The engine's reading of `latex` in a scope of its own: its MathJSON, or the error it threw. */
function reading(latex: string): string {
  engine.pushScope();
  try {
    const expression = engine.parse(latex);
    return JSON.stringify(expression.json);
  } catch (error) {
    return `threw ${(error as Error).message}`;
  } finally {
    engine.popScope();
  }
}

function readingWithoutIndex(latex: string): string {
  unindexEngineDictionary(engine);
  try {
    return reading(latex);
  } finally {
    indexEngineDictionary(engine);
  }
}

// Answers of every shape the math kind meets: each exercises another branch of the parser
// (symbols and identifier triggers such as `exp` and `abs`, matchfix, environments, sub- and
// superscripts, postfix `!` and `'`, text, infinities, units of angle, sets and intervals).
const answers = [
  '\\frac{\\sqrt{3}}{2}',
  'a_1+b_1+a_2+b_2+a_3+b_3+a_4+b_4-1',
  '2\\cdot(7+\\sqrt{11})',
  '\\left(-\\infty, 3\\right] \\cup [5, \\infty)',
  '\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}',
  '\\begin{cases} x & x > 0 \\\\ -x & x \\le 0 \\end{cases}',
  'exp(2) + abs(-3) + ceil(2.5)',
  '\\exp(x)\\sin^2 x + \\cos 30^\\circ',
  '5! + n!!',
  "f'(x) = 3x^2",
  '\\{1, 2, 3\\}',
  '\\text{no solution}',
  '\\pi r^2 h / 3',
  '\\log_2 8 + \\ln e',
  '10^{-11} \\cdot 10^{20}',
  '\\binom{6}{2}',
  '|x - 1| < 2',
  '\\mathbb{R}',
  'x \\in [1, 2]',
  '\\sum_{k=1}^{n} k^2',
  '\\int_0^1 x\\,dx',
  '3.\\overline{14}',
  '1{,}000',
  'G + \\operatorname{lcm}(4, 6)',
  '\\dfrac{1}{65}(65a^2+50b^2)-\\frac{10b^2}{13}',
  '(xn, yn) is (1/2) * |Σ(x_i * y_(i+1))|',
  '',
  '\\',
  '}{',
];

describe('the engine dictionary index', () => {
  afterEach(() => {
    indexEngineDictionary(engine);
  });

  it('installs on the engine version it was written against', () => {
    expect(indexEngineDictionary(engine)).toBe(true);
  });

  it('reads every answer as the stock parser does', () => {
    indexEngineDictionary(engine);
    for (const latex of answers) expect(reading(latex), latex).toBe(readingWithoutIndex(latex));
  });

  it('reads generated LaTeX as the stock parser does', () => {
    indexEngineDictionary(engine);
    // Token soup from the dictionary's trigger vocabulary: most strings are malformed, which walks
    // the parser's error paths and every kind of lookup.
    const token = fc.constantFrom(
      '1',
      '2.5',
      'x',
      'y_1',
      'G',
      'exp',
      'abs',
      '+',
      '-',
      '\\cdot',
      '\\times',
      '/',
      '^',
      '_',
      '!',
      "'",
      '=',
      '<',
      '\\le',
      ',',
      ';',
      '(',
      ')',
      '[',
      ']',
      '\\{',
      '\\}',
      '|',
      '\\left(',
      '\\right)',
      '{',
      '}',
      '\\frac',
      '\\sqrt',
      '\\sin',
      '\\ln',
      '\\log',
      '\\pi',
      '\\infty',
      '\\circ',
      '\\in',
      '\\cup',
      '\\to',
      '\\text{a}',
      '\\mathrm{d}',
      '\\begin{pmatrix}',
      '\\end{pmatrix}',
      '&',
      '\\\\',
      ' ',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
        const latex = tokens.join('');
        expect(reading(latex)).toBe(readingWithoutIndex(latex));
      }),
      { seed: 20261203, numRuns: 400 },
    );
  });

  it('leaves an engine it was not given to the stock parser', () => {
    // A second engine has a dictionary of its own, never registered: its parses use the stock lookups.
    const other = new ComputeEngine();
    expect(JSON.stringify(other.parse('\\frac{\\sqrt{3}}{2} + exp(1)').json)).toBe(
      reading('\\frac{\\sqrt{3}}{2} + exp(1)'),
    );
  });

  it('gives the math kind the keys it gave without the index', () => {
    // Hand-checked keys: the engine evaluates closed forms to 10 significant digits and keeps free
    // variables as LaTeX.
    const kind = createMathAnswerKind();
    expect(kind.canonicalKey('\\frac{\\sqrt{3}}{2}')).toBe('0.8660254038');
    expect(kind.canonicalKey('2\\cdot(7+\\sqrt{4})')).toBe('18');
    expect(kind.canonicalKey('\\pi')).toBe('3.141592654');
    expect(kind.equivalent('\\frac{1}{2}x', 'x/2')).toBe(true);
  });
});
