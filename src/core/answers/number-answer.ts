import { resolveOptions } from '../options.js';
import { assertKnownOptions, assertNonNegative, defineOptionKeys } from '../validate.js';
import type { AnswerKindHandler } from './answer-handler.js';
import { DECIMAL_PATTERN, formatNumberKey, numbersClose, parseSimpleFraction } from './_number.js';
import { firstKey, jsonAnswers, lastAnswerLine, lastBoxed, stripMathDelimiters, trimCharacters } from './_text.js';

/** Options of the `number` answer kind. */
export interface NumberAnswerOptions {
  /** Relative tolerance: |a − b| ≤ relative·max(|a|, |b|) counts as equal. @default 1e-6 */
  relativeTolerance?: number;
  /** Absolute tolerance, for answers near 0. @default 1e-9 */
  absoluteTolerance?: number;
}

const defaultNumberOptions: Required<NumberAnswerOptions> = { relativeTolerance: 1e-6, absoluteTolerance: 1e-9 };

const NUMBER_TOKEN = /[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?|[+-]?\.\d+/g;

/**
 * Reads one real number from an isolated answer: drops `$`, `\$`, `\text{..}` units, `%`
 * (the number is kept, not divided by 100), thousands commas and anything before a last `=`;
 * accepts `a/b` and `\frac{a}{b}`, also before unit words (`3/4 cups`); otherwise takes the first number
 * in the text. LaTeX thousands separators (`1{,}000`) count as commas. `null` if none.
 *
 * @example
 * parseNumberAnswer('$1,234.50'); // 1234.5
 * parseNumberAnswer('x = \\frac{3}{4}'); // 0.75
 */
export function parseNumberAnswer(answer: string): number | null {
  let text = stripMathDelimiters(answer)
    // `1{,}000`: the LaTeX thousands separator.
    .replace(/\{,\}/g, ',')
    .replace(/\\boxed\{([^{}]*)\}/g, '$1')
    .replace(/\\(?:text|textbf|mbox|mathrm)\{[^{}]*\}/g, ' ')
    .replace(/\\[$%!,;: ]/g, '')
    .replace(/[$%€£]/g, '')
    .replace(/\\dfrac|\\tfrac/g, '\\frac')
    .replace(/−/g, '-')
    .trim();
  const lastEquals = text.lastIndexOf('=');
  if (lastEquals !== -1 && lastEquals < text.length - 1) text = text.slice(lastEquals + 1).trim();
  text = text.replace(/(\d),(?=\d{3}(?!\d))/g, '$1').trim();
  text = trimCharacters(text, '.。', { start: false }).trim();
  if (DECIMAL_PATTERN.test(text)) return finiteOrNull(Number(text));
  const whole = parseSimpleFraction(text.replace(/\s+/g, ''));
  if (whole !== null) return finiteOrNull(whole);
  // An answer that opens with a fraction and goes on in words (`3/4 cups`, `\frac{1}{2} hour`) is the
  // fraction, not its numerator. Inside an expression (`(42 / 3) * 10`) the first number stays.
  const leading = /^([+-]?(?:\\frac\{[^{}]*\}\{[^{}]*\}|[\d.]+\s*\/\s*[\d.]+))(?:\s+[a-zA-Z]|$)/.exec(text);
  const fraction = leading === null ? null : parseSimpleFraction((leading[1] as string).replace(/\s+/g, ''));
  if (fraction !== null) return finiteOrNull(fraction);
  const tokens = text.match(NUMBER_TOKEN);
  if (tokens === null) return null;
  return finiteOrNull(Number((tokens[0] as string).replace(/,/g, '')));
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/** Last number anywhere in free text (commas and `{,}` between digit groups removed), or `null`. */
export function lastNumberInText(text: string): number | null {
  const tokens = text.replace(/−/g, '-').replace(/\{,\}/g, ',').match(NUMBER_TOKEN);
  if (tokens === null) return null;
  return finiteOrNull(Number((tokens[tokens.length - 1] as string).replace(/,/g, '')));
}

const knownNumberOptions = defineOptionKeys<NumberAnswerOptions>()(['relativeTolerance', 'absoluteTolerance']);

/**
 * Creates the `number` kind: key = the value rounded to 10 significant digits; equivalence =
 * |a − b| ≤ max(absoluteTolerance, relativeTolerance·max(|a|, |b|)). Extraction tries, in order,
 * the last `\boxed{}`, the last `"answer":` JSON field, the last `#### x` / `Answer: x` line, and
 * finally the last number in the text.
 *
 * @example
 * const kind = createNumberAnswerKind();
 * kind.extract('... so she pays $1,234.\n#### 1234'); // '1234'
 * kind.equivalent('$12.00', '12'); // true
 */
export function createNumberAnswerKind(options?: NumberAnswerOptions): AnswerKindHandler {
  assertKnownOptions('options', options, knownNumberOptions, 'createNumberAnswerKind');
  const resolved = resolveOptions(defaultNumberOptions, options);
  assertNonNegative('options.relativeTolerance', resolved.relativeTolerance, 'pass e.g. { relativeTolerance: 1e-6 }');
  assertNonNegative('options.absoluteTolerance', resolved.absoluteTolerance, 'pass e.g. { absoluteTolerance: 1e-9 }');
  const canonicalKey = (answer: string): string | null => {
    const value = parseNumberAnswer(answer);
    return value === null ? null : formatNumberKey(value);
  };
  return {
    kind: 'number',
    canonicalKey,
    extract(text) {
      const key = firstKey([...jsonAnswers(text), lastBoxed(text), lastAnswerLine(text)], canonicalKey);
      if (key !== null) return key;
      const last = lastNumberInText(text);
      return last === null ? null : formatNumberKey(last);
    },
    equivalent(a, b) {
      const left = parseNumberAnswer(a);
      const right = parseNumberAnswer(b);
      if (left === null || right === null) return false;
      // Equal keys are the same integer, or values within 10 significant digits (far inside the tolerance).
      return (
        formatNumberKey(left) === formatNumberKey(right) ||
        numbersClose(left, right, resolved.relativeTolerance, resolved.absoluteTolerance)
      );
    },
  };
}

/** The `number` kind with default tolerances. */
export const numberAnswerKind: AnswerKindHandler = createNumberAnswerKind();
