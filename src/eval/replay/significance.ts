// Significant wins: a strict win counts as significant when the paired bootstrap interval of the
// per-task score difference to the best other method excludes 0 (Efron & Tibshirani 1993, ch. 13:
// the 95% percentile interval [θ*_(0.025), θ*_(0.975)] of the resampled mean difference; the pairs
// are resampled together, since both methods answered the same tasks under the same attack).
import { createRng, randomInt, type Rng } from '../../core/rng.js';

/** Bootstrap resamples of a significant-win check. @default 1000 */
export const significanceResamples = 1000;

/**
 * The 95% percentile bootstrap interval of mean(a − b) over paired tasks: each resample draws the
 * task indices with replacement and takes the mean difference on them. `a` and `b` must have the
 * same length (≥ 1).
 *
 * @example
 * pairedBootstrapInterval({ a: [1, 1, 0], b: [0, 1, 0], rng: createRng(1) }); // { mean: 1/3, low: 0, high: 1 } or so
 */
export function pairedBootstrapInterval({
  a,
  b,
  rng,
  resamples = significanceResamples,
}: {
  a: ArrayLike<number>;
  b: ArrayLike<number>;
  rng: Rng;
  resamples?: number;
}): { mean: number; low: number; high: number } {
  const n = a.length;
  const differences = new Float64Array(n);
  let total = 0;
  for (let index = 0; index < n; index++) {
    differences[index] = (a[index] ?? 0) - (b[index] ?? 0);
    total += differences[index] as number;
  }
  const means: number[] = new Array(resamples);
  for (let sample = 0; sample < resamples; sample++) {
    let sum = 0;
    for (let draw = 0; draw < n; draw++) sum += differences[randomInt(rng, n)] as number;
    means[sample] = sum / n;
  }
  means.sort((left, right) => left - right);
  return { mean: n === 0 ? 0 : total / n, low: quantile(means, 0.025), high: quantile(means, 0.975) };
}

/**
 * Whether `winner` beats `runnerUp` significantly on these tasks: the paired 95% bootstrap interval
 * of the mean score difference lies above 0. Seeded by `seed` (one draw sequence per check).
 */
export function significantlyBetter(winner: ArrayLike<number>, runnerUp: ArrayLike<number>, seed: number): boolean {
  if (winner.length === 0) return false;
  return pairedBootstrapInterval({ a: winner, b: runnerUp, rng: createRng(seed) }).low > 0;
}

/** Linear-interpolation quantile (type 7) of sorted values, q in [0, 1]. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return (sorted[below] ?? 0) + ((sorted[above] ?? 0) - (sorted[below] ?? 0)) * (position - below);
}
