// Small statistics for the DRF experiments: Student-t intervals and Spearman correlation.
import { InvalidArgumentError } from '../../core/errors.js';

/** A mean with its two-sided 95% Student-t interval over independent runs (seeds). */
export interface MeanInterval {
  /** Arithmetic mean of the values. */
  readonly mean: number;
  /** Lower end of the 95% t-interval (equal to `mean` when n = 1; never below the measure's range). */
  readonly low: number;
  /** Upper end of the 95% t-interval (never above the measure's range). */
  readonly high: number;
  /** Sample standard deviation (n − 1 denominator; 0 when n = 1). */
  readonly sd: number;
  /** Number of values (seeds). */
  readonly n: number;
}

/** Arithmetic mean; throws on an empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0)
    throw new InvalidArgumentError({
      parameter: 'values',
      value: values,
      message: 'cannot average an empty list of values; run at least one seed',
    });
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The values a measure can take, e.g. `[0, 1]` for an accuracy: an interval never reaches past them. */
export type MeasureRange = readonly [min: number, max: number];

/** An accuracy, a rate or a share: values in [0, 1]. */
export const unitRange: MeasureRange = [0, 1];
/** A difference of two values in [0, 1], or a correlation: values in [−1, 1]. */
export const signedUnitRange: MeasureRange = [-1, 1];
/** A cost or a ratio of non-negative values: values ≥ 0. */
export const nonNegativeRange: MeasureRange = [0, Number.POSITIVE_INFINITY];

/**
 * Mean with the 95% Student-t interval mean ± t(0.975, n − 1)·sd/√n, clipped to the measure's
 * `range` when given: with few seeds the t quantile is large (12.7 for 2 seeds) and the interval of an
 * accuracy would otherwise reach below 0 or above 1.
 */
export function tInterval(values: readonly number[], level = 0.95, range?: MeasureRange): MeanInterval {
  const center = mean(values);
  const n = values.length;
  if (n === 1) return { mean: center, low: center, high: center, sd: 0, n };
  const sd = Math.sqrt(values.reduce((sum, value) => sum + (value - center) ** 2, 0) / (n - 1));
  const half = studentTQuantile(1 - (1 - level) / 2, n - 1) * (sd / Math.sqrt(n));
  const [min, max] = range ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  return { mean: center, low: Math.max(min, center - half), high: Math.min(max, center + half), sd, n };
}

/** Quantile of Student's t distribution with `df` degrees of freedom (bisection on the CDF, 1e-12). */
export function studentTQuantile(probability: number, df: number): number {
  if (!(probability > 0 && probability < 1))
    throw new InvalidArgumentError({
      parameter: 'probability',
      value: probability,
      message: `probability must be in (0, 1), got ${probability}`,
    });
  if (!(df > 0)) throw new InvalidArgumentError({ parameter: 'df', value: df, message: `df must be > 0, got ${df}` });
  if (probability === 0.5) return 0;
  if (probability < 0.5) return -studentTQuantile(1 - probability, df);
  let low = 0;
  let high = 1;
  while (studentTCdf(high, df) < probability) high *= 2;
  for (let iteration = 0; iteration < 200 && high - low > 1e-12; iteration++) {
    const middle = (low + high) / 2;
    if (studentTCdf(middle, df) < probability) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/** CDF of Student's t: for t ≥ 0, 1 − ½·I_{ν/(ν+t²)}(ν/2, ½). */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** Regularised incomplete beta I_x(a, b) by Lentz's continued fraction (Numerical Recipes §6.4). */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x > (a + 1) / (a + b + 2)) return 1 - regularizedIncompleteBeta(1 - x, b, a);
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let result = d;
  for (let m = 1; m <= 300; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + even / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    result *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + odd / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    result *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return (front * result) / a;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9). */
export function logGamma(x: number): number {
  const coefficients = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const shifted = x - 1;
  let sum = coefficients[0] as number;
  for (let index = 1; index < coefficients.length; index++) sum += (coefficients[index] as number) / (shifted + index);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Ranks 1..n with ties given their average rank. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((left, right) => left.value - right.value);
  const ranks = new Array<number>(values.length);
  let start = 0;
  while (start < order.length) {
    let end = start;
    while (
      end + 1 < order.length &&
      (order[end + 1] as { value: number }).value === (order[start] as { value: number }).value
    )
      end++;
    const rank = (start + end) / 2 + 1;
    for (let position = start; position <= end; position++) ranks[(order[position] as { index: number }).index] = rank;
    start = end + 1;
  }
  return ranks;
}

/** Pearson correlation; `NaN` when either side is constant. */
export function pearson(left: readonly number[], right: readonly number[]): number {
  if (left.length !== right.length || left.length < 2)
    throw new InvalidArgumentError({
      parameter: 'values',
      value: [left.length, right.length],
      message: `pearson needs two lists of equal length >= 2, got ${left.length} and ${right.length}`,
    });
  const meanLeft = mean(left);
  const meanRight = mean(right);
  let covariance = 0;
  let varianceLeft = 0;
  let varianceRight = 0;
  left.forEach((value, index) => {
    const other = right[index] as number;
    covariance += (value - meanLeft) * (other - meanRight);
    varianceLeft += (value - meanLeft) ** 2;
    varianceRight += (other - meanRight) ** 2;
  });
  return varianceLeft === 0 || varianceRight === 0 ? Number.NaN : covariance / Math.sqrt(varianceLeft * varianceRight);
}

/** Spearman rank correlation (Pearson on average ranks, so ties are handled); `NaN` when a side is constant. */
export function spearman(left: readonly number[], right: readonly number[]): number {
  return pearson(averageRanks(left), averageRanks(right));
}
