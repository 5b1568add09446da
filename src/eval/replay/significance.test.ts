import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.js';
import { pairedBootstrapInterval, significantlyBetter } from './significance.js';

describe('pairedBootstrapInterval', () => {
  it('is [1, 1] when the winner is right on every task the other misses', () => {
    // every difference is 1, so every resampled mean is 1
    expect(pairedBootstrapInterval({ a: [1, 1, 1, 1], b: [0, 0, 0, 0], rng: createRng(1) })).toEqual({
      mean: 1,
      low: 1,
      high: 1,
    });
    expect(significantlyBetter([1, 1, 1, 1], [0, 0, 0, 0], 1)).toBe(true);
  });

  it('does not call a win on one task out of many significant', () => {
    // 100 tasks, the winner ahead on one: differences are 99 zeros and a 1; a resample misses that task
    // with probability (1 − 1/100)^100 ≈ 0.366 > 0.025, so the 2.5th percentile is 0.
    const a = Array.from({ length: 100 }, (_, index) => (index === 0 ? 1 : 0));
    const b = new Array(100).fill(0);
    expect(pairedBootstrapInterval({ a, b, rng: createRng(2) }).low).toBe(0);
    expect(significantlyBetter(a, b, 2)).toBe(false);
  });

  it('lies between the smallest and largest paired difference, around the mean (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.integer(),
        (pairs, seed) => {
          const a = pairs.map(([left]) => left);
          const b = pairs.map(([, right]) => right);
          const differences = pairs.map(([left, right]) => left - right);
          const interval = pairedBootstrapInterval({ a, b, rng: createRng(seed), resamples: 200 });
          expect(interval.low).toBeGreaterThanOrEqual(Math.min(...differences) - 1e-12);
          expect(interval.high).toBeLessThanOrEqual(Math.max(...differences) + 1e-12);
          expect(interval.low).toBeLessThanOrEqual(interval.high);
          expect(interval.mean).toBeCloseTo(
            differences.reduce((sum, value) => sum + value, 0) / differences.length,
            12,
          );
        },
      ),
      { seed: 5, numRuns: 100 },
    );
  });
});
