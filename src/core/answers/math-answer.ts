import { ComputeEngine } from '@cortex-js/compute-engine';
import { resolveOptions } from '../options.js';
import { indexEngineDictionary } from './_engine-dictionary-index.js';
import { assertInteger, assertKnownOptions, assertNonNegative, defineOptionKeys } from '../validate.js';
import type { AnswerKindHandler } from './answer-handler.js';
import { DECIMAL_PATTERN, GROUPED_PATTERN, formatNumberKey, numbersClose, parseSimpleFraction } from './_number.js';
import {
  firstKey,
  jsonAnswers,
  lastAnswerLine,
  lastBoxed,
  looksLikeProse,
  stripMathDelimiters,
  trimCharacters,
} from './_text.js';

/** Options of the `math` answer kind. */
export interface MathAnswerOptions {
  /** Relative tolerance on numeric values: |a − b| ≤ relative·max(|a|, |b|). @default 1e-8 */
  relativeTolerance?: number;
  /** Absolute tolerance on numeric values, for answers near 0; a value within half of it of 0 keys as `0`. @default 1e-12 */
  absoluteTolerance?: number;
  /** Most parsed answers kept in the cache (oldest dropped first). @default 50000 */
  cacheSize?: number;
}

const defaultMathOptions: Required<MathAnswerOptions> = {
  relativeTolerance: 1e-8,
  absoluteTolerance: 1e-12,
  cacheSize: 50_000,
};

/** A boxed expression of the engine (its type is not exported by name in 0.27). */
type BoxedExpression = ReturnType<ComputeEngine['parse']>;

/** A parsed math answer. Internal; keys are what the public API returns. */
type MathValue =
  | { readonly type: 'number'; readonly key: string; readonly value: number }
  | { readonly type: 'complex'; readonly key: string; readonly re: number; readonly im: number }
  | {
      readonly type: 'tuple';
      readonly key: string;
      readonly open: string;
      readonly close: string;
      readonly items: readonly MathValue[];
    }
  | { readonly type: 'set'; readonly key: string; readonly items: readonly MathValue[] }
  /** One value of a named unknown in a list naming several (`x=1` of `x=1, y=2`): key `x=1`. */
  | { readonly type: 'assignment'; readonly key: string; readonly name: string; readonly value: MathValue }
  | { readonly type: 'expression'; readonly key: string; readonly expression: BoxedExpression | null }
  | { readonly type: 'text'; readonly key: string };

// Operators the engine evaluates quickly. Anything else (Sum, Integrate, Limit, unknown functions)
// is keyed by its serialization without evaluation: the engine can hang or exhaust memory on them.
const SAFE_OPERATORS = new Set([
  'Add',
  'Subtract',
  'Negate',
  'Multiply',
  'Divide',
  'Rational',
  'Power',
  'Sqrt',
  'Root',
  'Square',
  'Exp',
  'Ln',
  'Log',
  'Lb',
  'Lg',
  'Abs',
  'Floor',
  'Ceil',
  'Round',
  'Sin',
  'Cos',
  'Tan',
  'Cot',
  'Sec',
  'Csc',
  'Arcsin',
  'Arccos',
  'Arctan',
  'Sinh',
  'Cosh',
  'Tanh',
  'Complex',
  'Half',
  'Max',
  'Min',
  'Mod',
  'Factorial',
  'Binomial',
  'GCD',
  'LCM',
  'Degrees',
  'Sequence',
  'Delimiter',
]);
const MAX_NODES = 200;
// Fixed, irrational-looking points for comparing symbolic expressions (deterministic, no RNG).
const SAMPLE_POINTS: readonly (readonly number[])[] = [
  [0.5377, 1.8339, -2.2588],
  [-1.3077, 0.8622, 0.3188],
  [2.7694, -1.3499, 3.0349],
];
const MAX_EXPONENT = 10_000;
const MAX_FACTORIAL = 1_000;
// Exact powers of 10^6 digits take the engine ~0.5 s; `(10^{10000})^{10000}` (10^8) took 30 s and 3.4 GB.
const MAX_DIGITS = 1_000_000;
const MAX_INPUT_LENGTH = 400;
const PLAIN_INTEGER = /^-?\d{1,15}$/;

/**
 * Normalizes LaTeX before parsing: `\dfrac`/`\tfrac` → `\frac`, drops `\left`/`\right`, spacing
 * commands (never the `\\` row break), `$`/`\$`, `%`, degree marks (`30^\circ` = `30`, the MATH
 * convention; inside a trigonometric function `30^\circ` becomes `\frac{30\pi}{180}`), `\text{..}`
 * units after a value with their exponent (`5\text{ cm}^2` → `5`; a `\text{X}` that follows no value
 * keeps X), a closing comment (`42 (since 6 \times 7 = 42)`, `x = 5, which is positive`), thousands separators
 * (`1{,}000`, `1,\!000`, `1,000` → `1000`) and everything before a top-level `=` (`x=5` → `5`, done per answer).
 * Exported for tests and docs.
 */
export function normalizeMathAnswer(answer: string): string {
  const stripped = stripMathDelimiters(undoubleBackslashes(answer));
  const boxed = /^\\(?:boxed|fbox)\s*\{/.test(stripped) ? lastBoxed(stripped) : null;
  let text = stripMathDelimiters(boxed ?? stripped)
    .replace(/[\u2212\u2013]/g, '-')
    .replace(/π/g, '\\pi ')
    .replace(/∞/g, '\\infty ')
    .replace(/°/g, '^\\circ')
    .replace(/\\(?:dfrac|tfrac|cfrac)/g, '\\frac')
    .replace(/\\(?:dbinom|tbinom)/g, '\\binom')
    .replace(/\\displaystyle|\\limits/g, '')
    .replace(/\\left\.|\\right\./g, '')
    .replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![a-zA-Z])/g, '')
    // A thin space after a comma between digit groups (`1,\!000`) marks a thousands separator.
    .replace(/(\d),\\[!,](?=\d{3}(?!\d))/g, '$1')
    // Thin spaces (`\!`, `\,`) also serve as thousands separators (`1\,000`): drop them. The `\\`
    // alternative consumes a row break whole, so that its second backslash is never read as `\,` or `\ `.
    .replace(/\\\\|\\[!,]|\\(?:;|:|quad|qquad)(?![a-zA-Z])|\\ |~/g, (match) =>
      match === '\\\\' ? match : match === '\\!' || match === '\\,' ? '' : ' ',
    );
  text = degreesInTrigonometry(text)
    .replace(DEGREE_MARK, '')
    .replace(/\\\$|\$/g, '')
    .replace(/\\%|%/g, '')
    // `{,}` between digit groups is always a thousands separator, wherever the number stands.
    .replace(/(\d)\{,\}(?=\d{3}(?!\d))/g, '$1')
    .replace(/\{,\}/g, ',');
  // Word separators between several answers become commas before units are dropped.
  text = text.replace(/\\(?:text|textrm|mbox)\s*\{\s*(?:and|or)\s*\}|\s+(?:and|or)\s+/g, ',');
  // A `\text{..}` after a value is its unit, dropped with its exponent (`15\mbox{ cm}^2`). One that is a
  // whole answer (the answer, or a list or tuple element: `\text{(A)}, \text{(C)}`) keeps its text. One
  // before a value is a label (`\text{Area: } 5`) and is dropped.
  text = text
    .replace(
      /\\(?:text|textbf|textrm|mbox)\s*\{([^{}]*)\}(\s*\^\s*(?:\{[^{}]*\}|\d))?/g,
      (whole: string, content: string, exponent: string | undefined, offset: number, all: string) => {
        if (/[\w})\]!|'.]$/.test(all.slice(0, offset).trimEnd())) return ' ';
        const rest = all.slice(offset + whole.length).trimStart();
        return /^(?:$|[,)\]}&=]|\\[}\\])/.test(rest) ? `${content}${exponent ?? ''}` : ' ';
      },
    )
    .replace(/\\mathrm\s*\{([^{}]*)\}/g, '$1');
  text = trimCharacters(text.replace(/\s+/g, ' ').trim(), '.;', { start: false }).trim();
  text = dropTrailingComment(text);
  // Unit words after a value: `47 feet`, `12 square units`.
  text = text.replace(/([\d}])\s+[a-zA-Z]{2,}(?:[\s.]+[a-zA-Z]{2,})*\.?$/, '$1');
  // Thousands separators never have spaces: `1, 000` stays a list of two answers.
  if (GROUPED_PATTERN.test(text)) text = text.replace(/,/g, '');
  return text;
}

// A group in parentheses at the end opened by a word that gives a reason (one level of brackets inside), and the
// first `, which ...` or `, where ...` outside brackets (to the end): neither word starts an answer.
const REASON_IN_PARENTHESES = /\s+\((?:since|because|as|from|by|using|i\.e\.|e\.g\.)\s(?:[^()]|\([^()]*\))*\)$/;
const RELATIVE_CLAUSE = /^,\s*(?:which|where)\s/;

/**
 * Drops a comment closing an answer: `42 (since 6 \times 7 = 42)` → `42`, `x = 5, which is positive` → `x = 5`,
 * `p + 14, where p is any real number` → `p + 14`. Only after an answer: when the text before the comment reads as
 * prose, the whole text is a paragraph, and cutting it at a `which` would leave one of its numbers as the answer.
 * Whitespace in `text` is single spaces.
 */
function dropTrailingComment(text: string): string {
  const reason = REASON_IN_PARENTHESES.exec(text);
  const start = Math.min(reason?.index ?? text.length, relativeClauseStart(text));
  const answer = text.slice(0, start).trimEnd();
  return start < text.length && !looksLikeProse(answer) ? answer : text;
}

/**
 * Index of the first `, which ` or `, where ` outside brackets, else `text.length`. One inside brackets
 * (`(5, which is positive)`) is not cut: that would leave the bracket open.
 */
function relativeClauseStart(text: string): number {
  let depth = 0;
  for (let index = 0; index < text.length; index += bracketStepWidth(text, index)) {
    // Whitespace is single spaces here, so 16 characters hold `, which ` or `, where `.
    if (depth === 0 && text[index] === ',' && RELATIVE_CLAUSE.test(text.slice(index, index + 16))) return index;
    depth += bracketDelta(text, index);
  }
  return text.length;
}

// `30^\circ`, `30^{\circ}`, `30\circ`, `30\degree` (`°` is rewritten to `^\circ` first).
const DEGREE_MARK = /\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|\\circ|\\degree/g;

/**
 * Inside a trigonometric function a degree mark changes the value: `\sin 30^\circ` is sin(π/6) = 1/2,
 * not sin(30). A number with a degree mark there becomes radians, `\frac{30\pi}{180}`.
 */
function degreesInTrigonometry(text: string): string {
  if (!/\\(?:sin|cos|tan|cot|sec|csc)(?![a-zA-Z])/.test(text)) return text;
  return text.replace(
    new RegExp(String.raw`(\d+(?:\.\d+)?|\.\d+)\s*(?:${DEGREE_MARK.source})`, 'g'),
    (_whole, value: string) => `\\frac{${value}\\pi}{180}`,
  );
}

/**
 * Undoes a JSON string escaped twice, where every command is written `\\frac`: `\\` before a letter
 * becomes `\`, and `\\\\` becomes `\\`. Text with a single-backslash environment (`\begin{pmatrix}`) is
 * left alone: there `\\` is a row break, and `1\\x` a row holding x.
 */
function undoubleBackslashes(text: string): string {
  if (/(?<!\\)\\begin\s*\{/.test(text)) return text;
  return text.replace(/\\\\\\\\|(?<!\\)\\\\(?=[a-zA-Z])/g, (match) => match.slice(match.length / 2));
}

/** Splits at top-level occurrences of `separator` (outside (), [], {}); `\\\\` is one separator too. */
function splitTopLevel(text: string, separator: string): string[] {
  return splitTopLevelUntrimmed(text, separator).map((part) => part.trim());
}

/** {@link splitTopLevel} keeping the whitespace around each part. */
function splitTopLevelUntrimmed(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index += bracketStepWidth(text, index)) {
    const delta = bracketDelta(text, index);
    if (delta === 0 && depth === 0 && text.startsWith(separator, index)) {
      parts.push(text.slice(start, index));
      start = index + separator.length;
    }
    depth += delta;
  }
  parts.push(text.slice(start));
  return parts;
}

// A grouped number after `=` ends a part's text (`x = 1`), and each later group is a whole part
// (`000`): only the last may have decimals or be followed by spaces.
const GROUP_AFTER_EQUALS = /=\s*[+-]?\d{1,3}$/;
const DIGIT_GROUP = /^\d{3}(?:\.\d+)?\s*$/;

/**
 * The answers of a bare list, split at top-level commas, with the thousands rule per answer: a grouped
 * number after `=` is one value (`x = 1,000, y = 2` → `x = 1000`, `y = 2`). A grouped number has no
 * spaces (`x = 1, 000` is two answers), and one followed at once by more digits (`x = 1,000,0001`) is
 * not grouped.
 */
function splitList(text: string): string[] {
  const raw = splitTopLevelUntrimmed(text, ',');
  const parts: string[] = [];
  for (let index = 0; index < raw.length; index++) {
    let end = index;
    if (GROUP_AFTER_EQUALS.test(raw[index] as string)) {
      while (
        end + 1 < raw.length &&
        DIGIT_GROUP.test(raw[end + 1] as string) &&
        (end === index || /^\d{3}$/.test(raw[end] as string))
      )
        end++;
      if (end + 1 < raw.length && /^\d/.test(raw[end + 1] as string)) end = index;
    }
    parts.push(
      raw
        .slice(index, end + 1)
        .join('')
        .trim(),
    );
    index = end;
  }
  return parts;
}

// Greek letters that can open a two-part name such as `\\Delta x`; `\\pi` is left out, since `\\pi r` is a product.
const GREEK_PREFIXES =
  'alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|rho|varrho|sigma|varsigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Sigma|Upsilon|Phi|Psi|Omega';

/**
 * The name of an unknown on the left of `=`: a letter, a Greek letter (`\\alpha`) or a Greek letter before a
 * letter (`\\Delta x`, written with one space as {@link compactLatex} leaves it), with optional primes and
 * subscript (`x`, `x_1`, `a_{n}`, `y'`, `x_1'`).
 */
const UNKNOWN_NAME_PATTERN = new RegExp(
  String.raw`^(?:[a-zA-Z]|\\[a-zA-Z]+|\\(?:${GREEK_PREFIXES}) [a-zA-Z])'*(?:_(?:[a-zA-Z0-9]|\{[a-zA-Z0-9]+\}))?'*$`,
);

/** The unknown `side` names (`x_{1}` read as `x_1`, `y^\\prime` as `y'`), or `null` when it names none. */
function unknownName(side: string): string | null {
  const name = compactLatex(side)
    .replace(/\^\{((?:\\prime)+)\}|\^\\prime(?![a-zA-Z])/g, (_whole: string, primes: string | undefined) =>
      "'".repeat(primes === undefined ? 1 : primes.length / '\\prime'.length),
    )
    .replace(/_\{(\w)\}(?='*$)/, '_$1');
  return UNKNOWN_NAME_PATTERN.test(name) ? name : null;
}

const MATRIX_OPEN = '\\begin{pmatrix}';
const MATRIX_CLOSE = '\\end{pmatrix}';

/** If the whole text is one bracketed group, its delimiters and inside; else `null`. */
function outerBrackets(text: string): { open: string; close: string; inner: string } | null {
  if (text.startsWith('\\{') && text.endsWith('\\}')) {
    const inner = text.slice(2, -2);
    return balanced(inner) ? { open: '\\{', close: '\\}', inner } : null;
  }
  const open = text[0];
  const close = text[text.length - 1];
  if ((open !== '(' && open !== '[') || (close !== ')' && close !== ']') || text.length < 2) return null;
  const inner = text.slice(1, -1);
  return balanced(inner) ? { open, close, inner } : null;
}

/** True when (), [] and {} nest to depth ≥ 0 throughout and end at 0, ignoring bracket kinds (intervals mix them). */
function balanced(text: string): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index += bracketStepWidth(text, index)) {
    depth += bracketDelta(text, index);
    if (depth < 0) return false;
  }
  return depth === 0;
}

/**
 * Bracket depth change of the step at `index`: +1 for `(`, `[`, `{` and `\{`, −1 for `)`, `]`, `}`
 * and `\}`, 0 otherwise. A `\` escape is one step of two characters, so other commands are skipped.
 */
function bracketDelta(text: string, index: number): number {
  const char = text[index];
  if (char === '\\') {
    const escaped = text[index + 1];
    return escaped === '{' ? 1 : escaped === '}' ? -1 : 0;
  }
  if (char === '(' || char === '[' || char === '{') return 1;
  if (char === ')' || char === ']' || char === '}') return -1;
  return 0;
}

/** Characters the bracket scan consumes at `index`: 2 for a `\` escape, else 1. */
function bracketStepWidth(text: string, index: number): number {
  return text[index] === '\\' ? 2 : 1;
}

/** Replaces `\binom{n}{k}` with integer literals by its value (the engine does not parse `\binom`). */
function expandBinomials(text: string): string {
  return text.replace(/\\binom\s*\{\s*(\d{1,4})\s*\}\s*\{\s*(\d{1,4})\s*\}/g, (whole, n: string, k: string) => {
    const top = Number(n);
    const bottom = Number(k);
    if (bottom > top) return '0';
    let value = 1;
    for (let index = 1; index <= Math.min(bottom, top - bottom); index++)
      value = (value * (top - Math.min(bottom, top - bottom) + index)) / index;
    return Number.isSafeInteger(Math.round(value)) ? String(Math.round(value)) : whole;
  });
}

/**
 * Walks MathJSON and decides whether `N()` is safe (bounded size, exponents, factorials). The engine
 * computes integer powers exactly, so the guard bounds what it would build, not just each literal:
 * every exponent, multiplied by the exponents of the powers around it (`(9999^{9999})^{9999}` is
 * 9999^{99980001}), is at most {@link MAX_EXPONENT}, and the whole value has at most
 * {@link MAX_DIGITS} decimal digits by a conservative estimate (`(10^{10000})^{10000}` has 10^8).
 */
function isSafeToEvaluate(json: unknown): boolean {
  let nodes = 0;
  // Upper bound on the decimal digits of the exact value of `node` (and of its reciprocal), or
  // Infinity when the node is refused; `scale` is the product of the exponents of the enclosing powers.
  const digits = (node: unknown, scale: number): number => {
    if (++nodes > MAX_NODES) return Number.POSITIVE_INFINITY;
    if (typeof node === 'number') return literalDigits(node);
    if (typeof node === 'string') return 1;
    if (node === null || typeof node !== 'object') return Number.POSITIVE_INFINITY;
    if (!Array.isArray(node)) {
      const numberText = (node as { num?: unknown }).num;
      if (typeof numberText !== 'string' || numberText.length > 60) return Number.POSITIVE_INFINITY;
      return literalDigits(numberText);
    }
    const [operator, ...operands] = node as unknown[];
    if (typeof operator !== 'string' || !SAFE_OPERATORS.has(operator)) return Number.POSITIVE_INFINITY;
    if (operator === 'Power' || operator === 'Root' || operator === 'Exp') {
      const [base, exponent] = operator === 'Exp' ? ['ExponentialE', operands[0]] : operands;
      // Towers such as 9^{9^9} make the engine allocate without bound.
      if (containsOperator(exponent, ['Power', 'Factorial', 'Exp', 'Root', 'Sqrt'])) return Number.POSITIVE_INFINITY;
      const bound = Math.max(1, exponentBound(exponent));
      if (bound * scale > MAX_EXPONENT) return Number.POSITIVE_INFINITY;
      // A root makes its base smaller; its index is bounded like an exponent.
      if (operator === 'Root') return digits(base, scale) + digits(exponent, 1);
      return digits(base, scale * bound) * bound + digits(exponent, 1);
    }
    if (operator === 'Factorial') {
      const [argument] = operands;
      if (typeof argument !== 'number' || !Number.isInteger(argument) || argument < 0 || argument > MAX_FACTORIAL)
        return Number.POSITIVE_INFINITY;
      // n! < n^n: at most n·log10(n) digits.
      return Math.max(1, argument * Math.log10(Math.max(argument, 1)));
    }
    // Sums, products and quotients of values have at most the sum of their digits (plus carries).
    let total = 1;
    for (const operand of operands) total += digits(operand, scale);
    return total;
  };
  return digits(json, 1) <= MAX_DIGITS;
}

/** Decimal digits of a literal's exact value or of its reciprocal (`0.125` = 1/8), plus one. */
function literalDigits(value: number | string): number {
  const magnitude = Math.abs(Number(value));
  if (!Number.isFinite(magnitude)) return Number.POSITIVE_INFINITY;
  const mantissa = /^[+-]?(\d*)\.?(\d*)/.exec(String(value));
  const significant = `${mantissa?.[1] ?? ''}${mantissa?.[2] ?? ''}`.replace(/^0+/, '').length;
  return Math.max(significant, magnitude === 0 ? 0 : Math.abs(Math.log10(magnitude))) + 1;
}

/**
 * Upper bound on |value| of an exponent (which holds no powers, roots or factorials); Infinity when
 * unknown. A symbol counts as 4: the constants π and e, and the sample points, are below that.
 */
function exponentBound(node: unknown): number {
  if (typeof node === 'number') return Math.abs(node);
  if (typeof node === 'string') return 4;
  if (node === null || typeof node !== 'object') return Number.POSITIVE_INFINITY;
  if (!Array.isArray(node)) {
    const numberText = (node as { num?: unknown }).num;
    return typeof numberText === 'string' && numberText.length <= 60
      ? Math.abs(Number(numberText))
      : Number.POSITIVE_INFINITY;
  }
  const [operator, ...operands] = node as unknown[];
  const bounds = operands.map(exponentBound);
  switch (operator) {
    case 'Add':
    case 'Subtract':
      return bounds.reduce((sum, bound) => sum + bound, 0);
    case 'Multiply':
      return bounds.reduce((product, bound) => product * bound, 1);
    case 'Divide':
    case 'Rational': {
      // |a / b| ≤ |a| / min(1, |b|) for a literal b; a symbol is at least 0.3 at the sample points and
      // π, e are above 1. Other denominators have no lower bound here.
      const [numerator = Number.POSITIVE_INFINITY] = bounds;
      const [, denominator] = operands;
      if (typeof denominator === 'number' && denominator !== 0) return numerator / Math.min(1, Math.abs(denominator));
      return typeof denominator === 'string' ? numerator * 4 : Number.POSITIVE_INFINITY;
    }
    case 'Negate':
    case 'Abs':
    case 'Delimiter':
    case 'Sequence':
    case 'Max':
    case 'Min':
      return Math.max(0, ...bounds);
    case 'Floor':
    case 'Ceil':
    case 'Round':
      return Math.max(0, ...bounds) + 1;
    case 'Half':
      return (bounds[0] ?? Number.POSITIVE_INFINITY) / 2;
    case 'Sin':
    case 'Cos':
      return 1;
    default:
      return Number.POSITIVE_INFINITY;
  }
}

function containsOperator(node: unknown, operators: readonly string[]): boolean {
  if (!Array.isArray(node)) return false;
  if (typeof node[0] === 'string' && operators.includes(node[0])) return true;
  return node.some((child) => containsOperator(child, operators));
}

function containsError(node: unknown): boolean {
  if (!Array.isArray(node)) return false;
  if (node[0] === 'Error') return true;
  return node.some(containsError);
}

const knownMathOptions = defineOptionKeys<MathAnswerOptions>()(['relativeTolerance', 'absoluteTolerance', 'cacheSize']);

/**
 * Creates the `math` kind. Keys: a numeric value rounded to 10 significant digits when the answer
 * evaluates to a real number; `(a,b)` / `[a,b)` with element keys in order for tuples and
 * intervals; sorted element keys for sets (`\{..\}`) and bare lists of solutions (`1, -2`); the
 * engine's canonical LaTeX for symbolic expressions; the normalized text when the engine cannot
 * parse it. Equivalence: equal keys, or numbers within tolerance, or element-wise equivalence of
 * tuples and sets, or the engine's `isEqual` on symbolic expressions.
 *
 * @example
 * const kind = createMathAnswerKind();
 * kind.canonicalKey('\\dfrac{3}{4}'); // '0.75'
 * kind.equivalent('2\\sqrt{2}', '\\sqrt{8}'); // true
 * kind.equivalent('(3,-1)', '(-1,3)'); // false
 */
export function createMathAnswerKind(options?: MathAnswerOptions): AnswerKindHandler & {
  /** Entries currently cached. */
  cacheSize(): number;
  /**
   * Diagnostics the engine printed and this kind kept off stderr: the engine catches some of its own
   * errors on unusual input (e.g. a type it cannot parse) and writes them with `console.error`; the
   * answer still gets a key (the engine's non-canonical form or the text).
   */
  engineDiagnostics(): number;
} {
  assertKnownOptions('options', options, knownMathOptions, 'createMathAnswerKind');
  const resolved = resolveOptions(defaultMathOptions, options);
  assertNonNegative('options.relativeTolerance', resolved.relativeTolerance, 'pass e.g. { relativeTolerance: 1e-8 }');
  assertNonNegative('options.absoluteTolerance', resolved.absoluteTolerance, 'pass e.g. { absoluteTolerance: 1e-12 }');
  assertInteger('options.cacheSize', resolved.cacheSize, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. { cacheSize: 50000 }');
  // The key counterpart of absoluteTolerance, as 10 significant digits are of relativeTolerance: a value within
  // half of it of 0 keys as 0. Any two values keyed 0 are then within the tolerance of each other, so equal keys
  // stay equivalent; `1e-13` no longer has a key of its own beside `0`, to which it is equivalent.
  const zeroKeyBound = resolved.absoluteTolerance / 2;
  let engine: ComputeEngine | null = null;
  const cache = new Map<string, MathValue | null>();

  const getEngine = (): ComputeEngine => {
    if (engine === null) {
      engine = new ComputeEngine();
      // The engine sets every result within its tolerance (1e-10 by default) to 0, also inside a computation:
      // `10^{-11} \cdot 10^{20}` came out 0, not 10^9. Ours decides what is 0 (see partKey); the engine's half of
      // the bound only drops rounding noise, and never a value that partKey would key otherwise.
      engine.tolerance = zeroKeyBound / 2;
      // The same parses, about a third faster: the parser's dictionary lookups from an index.
      indexEngineDictionary(engine);
    }
    return engine;
  };

  // The engine infers and keeps symbol types (`x \in [1,2]` makes x a non-number for every later
  // answer), so each answer is parsed and compared in a scope of its own. The engine reports some of
  // its own caught errors with console.error; the work is synchronous, so they are counted instead.
  let diagnostics = 0;
  const inScope = <T>(work: (computeEngine: ComputeEngine) => T): T => {
    const computeEngine = getEngine();
    const report = console.error;
    console.error = () => {
      diagnostics++;
    };
    computeEngine.pushScope();
    try {
      return work(computeEngine);
    } finally {
      computeEngine.popScope();
      console.error = report;
    }
  };

  const remember = (answer: string, value: MathValue | null): MathValue | null => {
    if (cache.size >= resolved.cacheSize) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(answer, value);
    return value;
  };

  const parse = (answer: string): MathValue | null => {
    const cached = cache.get(answer);
    if (cached !== undefined || cache.has(answer)) return cached ?? null;
    // A plain integer of at most 15 digits (most recorded answers, every random attack payload)
    // normalizes to itself and has no brackets, commas, `=` or spaces, so the general path would
    // reach parseItem's decimal branch with the same text: its value is Number(answer), exactly.
    if (PLAIN_INTEGER.test(answer)) return remember(answer, numberValue(Number(answer)));
    const normalized = normalizeMathAnswer(answer);
    return remember(answer, normalized.length === 0 ? null : parseNormalized(normalized, 0, true));
  };

  const parseNormalized = (text: string, depth: number, verify: boolean): MathValue | null => {
    if (text.length === 0) return null;
    // Unbalanced brackets make any split ambiguous: key the text as it is.
    if (depth > 4 || !balanced(text)) return { type: 'text', key: compactLatex(text) };
    const matrix = parseMatrix(text, depth, verify);
    if (matrix !== undefined) return matrix;
    // The whole answer only (as set braces below): inside a list or tuple the names of its parts would run together.
    if (depth === 0) {
      // `x=1; y=2` is the list `x=1, y=2`: before, everything up to the last `=` was dropped, leaving 2.
      const assignmentList = semicolonAssignments(text);
      if (assignmentList !== null) return parseNormalized(assignmentList, depth, verify);
      // `(x, y) = (1, 2)` and `(x = 1, y = 2)` name their values like `x=1, y=2`.
      const named = parseNamedTuple(text, verify);
      if (named !== undefined) return named;
    }
    const brackets = outerBrackets(text);
    if (brackets !== null) {
      const isSet = brackets.open === '\\{';
      // A set's answers follow a bare list's rules: the thousands rule (`\\{x=1,000, y=2\\}`) and `;` between
      // assignments. A tuple's commas all separate.
      const parts = isSet
        ? splitList(semicolonAssignments(brackets.inner) ?? brackets.inner)
        : splitTopLevel(brackets.inner, ',');
      if (parts.length > 1 || isSet) {
        // `\{x=1, y=2\}` keeps the names like the bare list `x=1, y=2`.
        const assignments = isSet
          ? parseAssignments(parts, depth, verify, brackets.open, brackets.close, text)
          : undefined;
        if (assignments !== undefined) return assignments;
        const items = parts.map((part) => parseNormalized(part, depth + 1, verify));
        if (items.some((item) => item === null)) return { type: 'text', key: compactLatex(text) };
        const values = items as MathValue[];
        if (isSet) return makeSet(values, '\\{', '\\}');
        return {
          type: 'tuple',
          open: brackets.open,
          close: brackets.close,
          items: values,
          key: `${brackets.open}${values.map((item) => item.key).join(',')}${brackets.close}`,
        };
      }
    }
    // The thousands rule holds per answer: `x = 1,000` is one answer, 1000 (`x=1, y=2` is two).
    const sides = splitTopLevel(text, '=');
    const value = sides[sides.length - 1] as string;
    if (sides.length > 1 && GROUPED_PATTERN.test(value) && !sides.slice(0, -1).some((side) => side.includes(',')))
      return parseItem(value.replace(/,/g, ''), verify);
    const parts = splitList(text);
    if (parts.length > 1) {
      // An empty answer (`x=1, y=2,`) is left out, of the named list as of the values.
      const answers = parts.filter((part) => part.length > 0);
      const assignments = parseAssignments(answers, depth, verify, '', '', text);
      if (assignments !== undefined) return assignments;
      const items = answers.map((part) => parseNormalized(part, depth + 1, verify));
      if (items.length === 0 || items.some((item) => item === null)) return { type: 'text', key: compactLatex(text) };
      return makeSet(items as MathValue[], '', '');
    }
    // One answer, whose grouped number after `=` splitList joined (`C(6, 2) = 7,800` → `C(6, 2) = 7800`).
    return parseItem(parts[0] ?? text, verify);
  };

  // `\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}` (also `bmatrix`, `Bmatrix`, `matrix`): rows of
  // elements keyed like tuple elements, so spacing and `\frac{1}{3}` vs `1/3` do not matter. The key
  // always names `pmatrix`. `undefined` when the text is not one matrix.
  const parseMatrix = (text: string, depth: number, verify: boolean): MathValue | null | undefined => {
    const match = /^\\begin\s*\{([bB]?matrix|pmatrix)\}([\s\S]*)\\end\s*\{\1\}$/.exec(text);
    if (match === null) return undefined;
    const body = match[2] as string;
    if (/\\(?:begin|end)(?![a-zA-Z])/.test(body) || !balanced(body)) return undefined;
    const rowTexts = splitTopLevel(body, '\\\\');
    // A `\\` after the last row is allowed.
    if (rowTexts.length > 1 && rowTexts[rowTexts.length - 1] === '') rowTexts.pop();
    const rows: MathValue[] = [];
    for (const rowText of rowTexts) {
      const items = splitTopLevel(rowText, '&').map((element) => parseNormalized(element, depth + 1, verify));
      if (items.some((item) => item === null)) return { type: 'text', key: compactLatex(text) };
      const values = items as MathValue[];
      rows.push({ type: 'tuple', open: '', close: '', items: values, key: values.map((item) => item.key).join('&') });
    }
    return {
      type: 'tuple',
      open: MATRIX_OPEN,
      close: MATRIX_CLOSE,
      items: rows,
      key: `${MATRIX_OPEN}${rows.map((row) => row.key).join('\\\\')}${MATRIX_CLOSE}`,
    };
  };

  // A list whose parts all assign a value to a named unknown, naming two or more (`x=1, y=2`): each
  // value keeps its name, so `x=2, y=1` is a different answer and `y=2, x=1` the same one. Values of one
  // unknown (`x=1, x=-2`, the solutions of an equation) stay a bare list of values. A part may name
  // several unknowns, which all take its value (`x = y = 1` is `x=1` and `y=1`); like a single answer,
  // it is read after its last `=`, and steps between (`x = 2+1 = 3`) are dropped. `undefined` when the
  // list is not such a list.
  const parseAssignments = (
    parts: readonly string[],
    depth: number,
    verify: boolean,
    open: string,
    close: string,
    text: string,
  ): MathValue | null | undefined => {
    const named: Array<{ names: Set<string>; value: string }> = [];
    for (const part of parts) {
      const sides = splitTopLevel(part, '=');
      // A chain naming an unknown twice (`x = x = 1`) gives it the value once.
      const names = new Set<string>();
      for (const side of sides.slice(0, -1)) {
        const name = unknownName(side);
        if (name === null) break;
        names.add(name);
      }
      if (names.size === 0) return undefined;
      named.push({ names, value: sides[sides.length - 1] as string });
    }
    if (new Set(named.flatMap((entry) => [...entry.names])).size < 2) return undefined;
    const items: MathValue[] = [];
    for (const { names, value: valueText } of named) {
      const value = parseNormalized(valueText, depth + 1, verify);
      if (value === null) return { type: 'text', key: compactLatex(text) };
      for (const name of names) items.push({ type: 'assignment', name, value, key: `${name}=${value.key}` });
    }
    return makeSet(items, open, close);
  };

  // `(x, y) = (1, 2)`, names and values paired one to one, and `(x = 1, y = 2)`, with a bare list's thousands rule
  // (`(x=1,000, y=2)` is x = 1000, y = 2): both keyed as the bare named list. `undefined` for anything else.
  const parseNamedTuple = (text: string, verify: boolean): MathValue | null | undefined => {
    const brackets = outerBrackets(text);
    if (brackets !== null) {
      if (brackets.open !== '(' || brackets.close !== ')') return undefined;
      // `;` between assignments as in a set (`(x=1; y=2)`).
      const parts = splitList(semicolonAssignments(brackets.inner) ?? brackets.inner).filter((part) => part.length > 0);
      return parts.length > 1 ? parseAssignments(parts, 0, verify, '', '', text) : undefined;
    }
    // `(x, y) = (1, 2)` stays the tuple `(1,2)`: it is how answers to "enter the ordered pair (x, y)" are
    // written, and its reference is the bare tuple; a named list would no longer match it.
    return undefined;
  };

  const makeSet = (items: MathValue[], open: string, close: string): MathValue => {
    const sorted = items.slice().sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
    // A bare list joins with `, ` so that its key cannot read as a thousands-grouped number (`5,500.5`).
    const separator = open === '' ? ', ' : ',';
    return { type: 'set', items: sorted, key: `${open}${sorted.map((item) => item.key).join(separator)}${close}` };
  };

  const parseItem = (raw: string, verify: boolean): MathValue | null => {
    let text = raw;
    const sides = splitTopLevel(text, '=');
    if (sides.length > 1) text = sides[sides.length - 1] as string;
    text = text.trim();
    if (text.length === 0) return null;
    const compact = compactLatex(text);
    if (DECIMAL_PATTERN.test(compact)) {
      const value = Number(compact);
      // Literals beyond the double range (keys of huge values such as 2^{100000}) stay text.
      return Number.isFinite(value) ? numberValue(value) : { type: 'text', key: compact };
    }
    const fraction = parseSimpleFraction(compact);
    if (fraction !== null) return numberValue(fraction);
    // Words (`None`, `Infinite`, `undefined`) are text; the engine would read them as products.
    if (text.length > MAX_INPUT_LENGTH || /(?<![\\a-zA-Z])[a-zA-Z]{3,}/.test(text))
      return { type: 'text', key: compact };
    const value = parseWithEngine(expandBinomials(text));
    if (!verify || value.type === 'number' || value.type === 'complex') return value;
    // Keys must be their own keys: when the engine's LaTeX does not parse back to itself, key by
    // the normalized input text instead (which maps to the same LaTeX, so it is stable too).
    const again = parseNormalized(normalizeMathAnswer(value.key), 0, false);
    return again !== null && again.key === value.key ? value : { ...value, key: compact };
  };

  // The engine's reading of a text is a function of the text (each parse has a scope of its own), and
  // the same text reaches the engine several times: the verify step parses a key's LaTeX, and later
  // the key itself arrives as an answer (attack payloads are canonicalised, then compared as keys),
  // so its parse and its own verify step ask for that LaTeX again. Bounded like the answer cache.
  const engineCache = new Map<string, MathValue>();
  const parseWithEngine = (text: string): MathValue => {
    const cached = engineCache.get(text);
    if (cached !== undefined) return cached;
    const value = inScope((computeEngine) => parseInScope(computeEngine, text));
    if (engineCache.size >= resolved.cacheSize) {
      const oldest = engineCache.keys().next();
      if (!oldest.done) engineCache.delete(oldest.value);
    }
    engineCache.set(text, value);
    return value;
  };

  const parseInScope = (computeEngine: ComputeEngine, text: string): MathValue => {
    const compact = compactLatex(text);
    let expression: BoxedExpression;
    try {
      expression = computeEngine.parse(text);
    } catch {
      return { type: 'text', key: compact };
    }
    const json: unknown = expression.json;
    if (!expression.isValid || containsError(json)) return { type: 'text', key: compact };
    if (json === 'PositiveInfinity' || json === 'ComplexInfinity') return { type: 'text', key: '\\infty' };
    if (json === 'NegativeInfinity') return { type: 'text', key: '-\\infty' };
    if (!isSafeToEvaluate(json)) {
      // The engine writes a power of a power as a tower (`(9^9)^9` as `9^{9^9}`): an unevaluated key
      // must read back as the same expression, else two different values would share it.
      const latex = safeLatex(expression, compact);
      return { type: 'expression', expression: null, key: readsBackAs(computeEngine, latex, json) ? latex : compact };
    }
    // Free variables: no numeric value to find, and N() on symbolic input is the slowest call.
    if (expression.unknowns.length > 0) return { type: 'expression', expression, key: safeLatex(expression, compact) };
    try {
      const numeric = expression.N();
      if (numeric.isNumberLiteral) {
        // `re` of a bignum sets |re| ≤ 1e-10 to 0 whatever the tolerance (`10^{-11}` was 0, `1e-11` not).
        const re = numeric.bignumRe?.toNumber() ?? numeric.re;
        const im = numeric.im;
        // An imaginary part that keys as 0 leaves a real number.
        if (Number.isFinite(re) && (Number.isNaN(im) || partKey(im) === '0')) return numberValue(re) as MathValue;
        if (Number.isFinite(re) && Number.isFinite(im)) {
          return { type: 'complex', re, im, key: `${partKey(re)}${im < 0 ? '-' : '+'}${partKey(Math.abs(im))}i` };
        }
        const big = bigNumberKey(numeric.json);
        if (big !== null) return { type: 'text', key: big };
      }
    } catch {
      // The engine gave up (time limit, unsupported input): key the expression unevaluated.
    }
    return { type: 'expression', expression, key: safeLatex(expression, compact) };
  };

  // The rule is on the key, so that a key is its own key: it is 0 when every value it stands for (up to half a
  // unit in its 10th digit beyond it) is within zeroKeyBound of 0. `4.999999999e-13` → `0`; `5e-13` and
  // `5.0000000001e-13` → `5e-13`, which stands for values up to 5.0000000005e-13.
  const partKey = (value: number): string => {
    const key = formatNumberKey(value);
    const magnitude = Math.abs(Number(key));
    // `toExponential(9)` writes the key's 10 digits, so its exponent places the 10th digit.
    const exponent = Number(magnitude.toExponential(9).split('e')[1]);
    return magnitude + 0.5 * 10 ** (exponent - 9) <= zeroKeyBound ? '0' : key;
  };

  const numberValue = (value: number): MathValue | null => {
    if (!Number.isFinite(value)) return null;
    return { type: 'number', value, key: partKey(value) };
  };

  const valuesEquivalent = (left: MathValue, right: MathValue): boolean => {
    if (left.key === right.key) return true;
    if (left.type === 'number' && right.type === 'number') {
      return numbersClose(left.value, right.value, resolved.relativeTolerance, resolved.absoluteTolerance);
    }
    if (left.type === 'complex' && right.type === 'complex') {
      return (
        numbersClose(left.re, right.re, resolved.relativeTolerance, resolved.absoluteTolerance) &&
        numbersClose(left.im, right.im, resolved.relativeTolerance, resolved.absoluteTolerance)
      );
    }
    if (left.type === 'tuple' && right.type === 'tuple') {
      return (
        left.open === right.open &&
        left.close === right.close &&
        left.items.length === right.items.length &&
        left.items.every((item, index) => valuesEquivalent(item, right.items[index] as MathValue))
      );
    }
    if (left.type === 'assignment' && right.type === 'assignment')
      return left.name === right.name && valuesEquivalent(left.value, right.value);
    if (left.type === 'set' && right.type === 'set') {
      // Greedy matching in both directions keeps the relation symmetric.
      return (
        left.items.length === right.items.length &&
        (matchAll(left.items, right.items) || matchAll(right.items, left.items))
      );
    }
    if (
      left.type === 'expression' &&
      right.type === 'expression' &&
      left.expression !== null &&
      right.expression !== null
    ) {
      return expressionsEqual(left.expression, right.expression);
    }
    return false;
  };

  const expressionsEqual = (left: BoxedExpression, right: BoxedExpression): boolean =>
    inScope(() => {
      try {
        if (left.isEqual(right) === true || right.isEqual(left) === true) return true;
        // The engine leaves many polynomial identities undecided; compare values at fixed points.
        const variables = [...new Set([...left.unknowns, ...right.unknowns])].sort();
        if (variables.length === 0 || variables.length > 3) return false;
        if (left.unknowns.length !== right.unknowns.length) return false;
        return SAMPLE_POINTS.every((point) => {
          const substitution = Object.fromEntries(variables.map((name, index) => [name, point[index] as number]));
          const leftValue = left.subs(substitution).N();
          const rightValue = right.subs(substitution).N();
          const a = leftValue.re;
          const b = rightValue.re;
          return (
            Number.isFinite(a) &&
            Number.isFinite(b) &&
            numbersClose(a, b, resolved.relativeTolerance, resolved.absoluteTolerance) &&
            numbersClose(leftValue.im || 0, rightValue.im || 0, resolved.relativeTolerance, resolved.absoluteTolerance)
          );
        });
      } catch {
        return false;
      }
    });

  const matchAll = (from: readonly MathValue[], to: readonly MathValue[]): boolean => {
    const used = new Array<boolean>(to.length).fill(false);
    return from.every((item) => {
      const index = to.findIndex((candidate, position) => !used[position] && valuesEquivalent(item, candidate));
      if (index === -1) return false;
      used[index] = true;
      return true;
    });
  };

  const canonicalKey = (answer: string): string | null => parse(answer)?.key ?? null;

  return {
    kind: 'math',
    canonicalKey,
    extract(text) {
      const key = firstKey([...jsonAnswers(text), lastBoxed(text), lastAnswerLine(text)], (candidate) =>
        looksLikeAnswerProse(candidate) ? null : canonicalKey(candidate),
      );
      if (key !== null) return key;
      // Replayed data often holds the bare answer: take a short single-line text whole.
      const trimmed = text.trim();
      if (trimmed.length > 0 && trimmed.length <= 200 && !trimmed.includes('\n') && !looksLikeAnswerProse(trimmed))
        return canonicalKey(trimmed);
      return null;
    },
    equivalent(a, b) {
      const left = parse(a);
      const right = parse(b);
      if (left === null || right === null) return false;
      return valuesEquivalent(left, right);
    },
    cacheSize: () => cache.size,
    engineDiagnostics: () => diagnostics,
  };
}

/**
 * `x=1; y=2` as the comma list `x=1, y=2` when every `;`-separated part assigns a value to a named unknown or to a
 * tuple of them (`(x, y) = (1, 2); (x, y) = (3, 4)`, read as its comma form), else `null`. Empty parts
 * (`x=1;; y=2`) are left out.
 */
function semicolonAssignments(text: string): string | null {
  const parts = splitTopLevel(text, ';').filter((part) => part.length > 0);
  if (parts.length < 2) return null;
  const names = (side: string): boolean => {
    const brackets = outerBrackets(side);
    if (brackets === null || brackets.open !== '(' || brackets.close !== ')') return unknownName(side) !== null;
    return splitTopLevel(brackets.inner, ',').every((name) => unknownName(name) !== null);
  };
  const assigns = (part: string): boolean => {
    const sides = splitTopLevel(part, '=');
    return sides.length > 1 && names(sides[0] as string);
  };
  return parts.every(assigns) ? parts.join(', ') : null;
}

/**
 * True when an answer candidate reads as prose once a closing comment is dropped, as the key drops it: `x = 5, which
 * is positive` is the answer 5, `The total is 100, which gives 21` a sentence.
 */
function looksLikeAnswerProse(candidate: string): boolean {
  return looksLikeProse(dropTrailingComment(stripMathDelimiters(candidate).replace(/\s+/g, ' ')));
}

/** Removes whitespace except a single space where it separates a command from a letter (`\pi r`). */
function compactLatex(text: string): string {
  return text
    .replace(/(\\[a-zA-Z]+)\s+(?=[a-zA-Z])/g, '$1\u0000')
    .replace(/\s+/g, '')
    .replace(/\u0000/g, ' ');
}

/** True when `latex` parses to the MathJSON `json` (compared as JSON text). */
function readsBackAs(computeEngine: ComputeEngine, latex: string, json: unknown): boolean {
  try {
    return JSON.stringify(computeEngine.parse(latex).json) === JSON.stringify(json);
  } catch {
    return false;
  }
}

function safeLatex(expression: BoxedExpression, fallback: string): string {
  try {
    const latex = compactLatex(expression.latex);
    return latex.length > 0 ? latex : fallback;
  } catch {
    return fallback;
  }
}

/** Key of a number too large for a double (`2^{100000}`): 10 significant digits and the exponent. */
function bigNumberKey(json: unknown): string | null {
  const numberText =
    typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as { num?: unknown }).num : undefined;
  if (typeof numberText !== 'string') return null;
  const match = /^(-?)(\d+)(?:\.(\d*))?e([+-]?\d+)$/.exec(numberText);
  if (match === null) return null;
  const integerPart = (match[2] as string).replace(/^0+/, '');
  if (integerPart.length === 0) return null;
  const digits = `${integerPart}${match[3] ?? ''}`;
  const exponent = Number(match[4]) + integerPart.length - 1;
  const mantissa = Number(`${digits[0]}.${digits.slice(1, 16) || '0'}`);
  return `${match[1]}${formatNumberKey(mantissa)}e+${exponent}`;
}

/** The `math` kind with default tolerances and a shared parse cache. */
export const mathAnswerKind = createMathAnswerKind();
