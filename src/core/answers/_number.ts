// Internal numeric helpers shared by the `number` and `math` answer kinds.

/** Significant digits kept in numeric answer keys. */
export const KEY_SIGNIFICANT_DIGITS = 10;

/**
 * Canonical key of a finite number: an integer exactly representable as a double (a safe integer)
 * as it is, any other value rounded to 10 significant digits; shortest JavaScript form, `-0` written
 * as `0`. `formatNumberKey(Number(key)) === key`, so keys are idempotent.
 *
 * @example
 * formatNumberKey(12345678901); // '12345678901' (not merged with 12345678902)
 * formatNumberKey(1 / 3); // '0.3333333333'
 */
export function formatNumberKey(value: number): string {
  if (Number.isSafeInteger(value)) return Object.is(value, -0) ? '0' : String(value);
  const rounded = Number(value.toPrecision(KEY_SIGNIFICANT_DIGITS));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/**
 * |a − b| ≤ max(absolute, relative·max(|a|, |b|)): symmetric, reflexive on finite numbers. Two safe
 * integers are close only when equal: a relative tolerance would make 1,000,007 and 1,000,008 the
 * same answer.
 */
export function numbersClose(a: number, b: number, relative: number, absolute: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) return false;
  return Math.abs(a - b) <= Math.max(absolute, relative * Math.max(Math.abs(a), Math.abs(b)));
}

/** A plain decimal or scientific literal: `-12`, `3.5`, `.5`, `1e-3`, `+4`. */
export const DECIMAL_PATTERN = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Thousands-grouped literal: `1,234`, `-12,345,678.5`. */
export const GROUPED_PATTERN = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/** Value of `a/b` or `\frac{a}{b}` with decimal a and b (b ≠ 0), or `null`. */
export function parseSimpleFraction(text: string): number | null {
  const match =
    /^([+-]?)(?:\\frac\{\s*([+-]?[\d.]+)\s*\}\{\s*([+-]?[\d.]+)\s*\}|\\frac(\d)(\d)|([+-]?[\d.]+)\s*\/\s*([+-]?[\d.]+))$/.exec(
      text,
    );
  if (match === null) return null;
  const numeratorText = match[2] ?? match[4] ?? match[6];
  const denominatorText = match[3] ?? match[5] ?? match[7];
  if (numeratorText === undefined || denominatorText === undefined) return null;
  if (!DECIMAL_PATTERN.test(numeratorText) || !DECIMAL_PATTERN.test(denominatorText)) return null;
  const denominator = Number(denominatorText);
  if (denominator === 0) return null;
  const value = Number(numeratorText) / denominator;
  return match[1] === '-' ? -value : value;
}
