import { ComputeEngine } from '@cortex-js/compute-engine';
import { resolveOptions } from '../options.js';
import { assertInteger, assertNonNegative } from '../validate.js';
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
  /** Absolute tolerance on numeric values, for answers near 0. @default 1e-12 */
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
const MAX_INPUT_LENGTH = 400;
const PLAIN_INTEGER = /^-?\d{1,15}$/;

/**
 * Normalizes LaTeX before parsing: `\dfrac`/`\tfrac` → `\frac`, drops `\left`/`\right`, spacing
 * commands, `$`/`\$`, `%`, degree marks (`30^\circ` = `30`, the MATH convention), `\text{..}`
 * units after a value (a lone `\text{X}` keeps X), thousands commas (`1{,}000`, `1,000` → `1000`)
 * and everything before a top-level `=` (`x=5` → `5`). Exported for tests and docs.
 */
export function normalizeMathAnswer(answer: string): string {
  const stripped = stripMathDelimiters(answer);
  const boxed = /^\\(?:boxed|fbox)\s*\{/.test(stripped) ? lastBoxed(stripped) : null;
  let text = stripMathDelimiters(boxed ?? stripped)
    .replace(/\\\\(?=[a-zA-Z])/g, '\\')
    .replace(/[\u2212\u2013]/g, '-')
    .replace(/π/g, '\\pi ')
    .replace(/∞/g, '\\infty ')
    .replace(/°/g, '^\\circ')
    .replace(/\\(?:dfrac|tfrac|cfrac)/g, '\\frac')
    .replace(/\\(?:dbinom|tbinom)/g, '\\binom')
    .replace(/\\displaystyle|\\limits/g, '')
    .replace(/\\left\.|\\right\./g, '')
    .replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![a-zA-Z])/g, '')
    // Thin spaces (`\!`, `\,`) also serve as thousands separators (`1,\!000`, `1\,000`): drop them.
    .replace(/\\[!,]/g, '')
    .replace(/\\(?:;|:|quad|qquad)(?![a-zA-Z])|\\ |~/g, ' ')
    .replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|\\circ|\\degree/g, '')
    .replace(/\\\$|\$/g, '')
    .replace(/\\%|%/g, '')
    .replace(/\{,\}/g, ',');
  // Word separators between several answers become commas before units are dropped.
  text = text.replace(/\\(?:text|textrm|mbox)\{\s*(?:and|or)\s*\}|\s+(?:and|or)\s+/g, ',');
  const onlyText = /^\\(?:text|textbf|textrm|mbox|mathrm)\{([^{}]*)\}$/.exec(text.trim());
  if (onlyText !== null) text = onlyText[1] as string;
  else text = text.replace(/\\(?:text|textbf|textrm|mbox)\{[^{}]*\}/g, ' ').replace(/\\mathrm\{([^{}]*)\}/g, '$1');
  text = trimCharacters(text.replace(/\s+/g, ' ').trim(), '.;', { start: false }).trim();
  // Unit words after a value: `47 feet`, `12 square units`.
  text = text.replace(/([\d}])\s+[a-zA-Z]{2,}(?:[\s.]+[a-zA-Z]{2,})*\.?$/, '$1');
  // Thousands separators never have spaces: `1, 000` stays a list of two answers.
  if (GROUPED_PATTERN.test(text)) text = text.replace(/,/g, '');
  return text;
}

/** Splits at top-level occurrences of `separator` (outside (), [], {}). */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index += bracketStepWidth(text, index)) {
    const delta = bracketDelta(text, index);
    if (delta === 0 && depth === 0 && text[index] === separator) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
    depth += delta;
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

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

/** Walks MathJSON and decides whether `N()` is safe (bounded size, exponents, factorials). */
function isSafeToEvaluate(json: unknown): boolean {
  let nodes = 0;
  const visit = (node: unknown, insideExponent: boolean): boolean => {
    if (++nodes > MAX_NODES) return false;
    if (typeof node === 'number') return !insideExponent || Math.abs(node) <= MAX_EXPONENT;
    if (typeof node === 'string') return true;
    if (node === null || typeof node !== 'object') return false;
    if (!Array.isArray(node)) {
      const numberText = (node as { num?: unknown }).num;
      return (
        typeof numberText === 'string' &&
        numberText.length <= 60 &&
        (!insideExponent || Math.abs(Number(numberText)) <= MAX_EXPONENT)
      );
    }
    const [operator, ...operands] = node as unknown[];
    if (typeof operator !== 'string' || !SAFE_OPERATORS.has(operator)) return false;
    if (operator === 'Power' || operator === 'Root') {
      const [base, exponent] = operands;
      // Towers such as 9^{9^9} make the engine allocate without bound.
      if (containsOperator(exponent, ['Power', 'Factorial', 'Exp', 'Root', 'Sqrt'])) return false;
      return visit(base, insideExponent) && visit(exponent, true);
    }
    if (operator === 'Factorial') {
      const [argument] = operands;
      return typeof argument === 'number' && Number.isInteger(argument) && argument >= 0 && argument <= MAX_FACTORIAL;
    }
    if (operator === 'Exp') return operands.every((operand) => visit(operand, true));
    return operands.every((operand) => visit(operand, insideExponent));
  };
  return visit(json, false);
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
  const resolved = resolveOptions(defaultMathOptions, options);
  assertNonNegative('options.relativeTolerance', resolved.relativeTolerance, 'pass e.g. { relativeTolerance: 1e-8 }');
  assertNonNegative('options.absoluteTolerance', resolved.absoluteTolerance, 'pass e.g. { absoluteTolerance: 1e-12 }');
  assertInteger('options.cacheSize', resolved.cacheSize, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. { cacheSize: 50000 }');
  let engine: ComputeEngine | null = null;
  const cache = new Map<string, MathValue | null>();

  const getEngine = (): ComputeEngine => {
    engine ??= new ComputeEngine();
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
    const brackets = outerBrackets(text);
    if (brackets !== null) {
      const parts = splitTopLevel(brackets.inner, ',');
      const isSet = brackets.open === '\\{';
      if (parts.length > 1 || isSet) {
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
    const parts = splitTopLevel(text, ',');
    if (parts.length > 1) {
      const items = parts.filter((part) => part.length > 0).map((part) => parseNormalized(part, depth + 1, verify));
      if (items.length === 0 || items.some((item) => item === null)) return { type: 'text', key: compactLatex(text) };
      return makeSet(items as MathValue[], '', '');
    }
    return parseItem(text, verify);
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
    if (!isSafeToEvaluate(json)) return { type: 'expression', expression: null, key: safeLatex(expression, compact) };
    // Free variables: no numeric value to find, and N() on symbolic input is the slowest call.
    if (expression.unknowns.length > 0) return { type: 'expression', expression, key: safeLatex(expression, compact) };
    try {
      const numeric = expression.N();
      if (numeric.isNumberLiteral) {
        const re = numeric.re;
        const im = numeric.im;
        if (Number.isFinite(re) && (im === 0 || Number.isNaN(im))) return numberValue(re) as MathValue;
        if (Number.isFinite(re) && Number.isFinite(im)) {
          return {
            type: 'complex',
            re,
            im,
            key: `${formatNumberKey(re)}${im < 0 ? '-' : '+'}${formatNumberKey(Math.abs(im))}i`,
          };
        }
        const big = bigNumberKey(numeric.json);
        if (big !== null) return { type: 'text', key: big };
      }
    } catch {
      // The engine gave up (time limit, unsupported input): key the expression unevaluated.
    }
    return { type: 'expression', expression, key: safeLatex(expression, compact) };
  };

  const numberValue = (value: number): MathValue | null => {
    if (!Number.isFinite(value)) return null;
    return { type: 'number', value, key: formatNumberKey(value) };
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
        looksLikeProse(candidate) ? null : canonicalKey(candidate),
      );
      if (key !== null) return key;
      // Replayed data often holds the bare answer: take a short single-line text whole.
      const trimmed = text.trim();
      if (trimmed.length > 0 && trimmed.length <= 200 && !trimmed.includes('\n') && !looksLikeProse(trimmed))
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

/** Removes whitespace except a single space where it separates a command from a letter (`\pi r`). */
function compactLatex(text: string): string {
  return text
    .replace(/(\\[a-zA-Z]+)\s+(?=[a-zA-Z])/g, '$1\u0000')
    .replace(/\s+/g, '')
    .replace(/\u0000/g, ' ');
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
