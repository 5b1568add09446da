import { describe, expect, it } from 'vitest';
import { averageRanks, spearman, studentTQuantile, tInterval } from './stats.js';

describe('Student-t quantiles', () => {
  it('match published table values', () => {
    // Standard t tables: t(0.975, 1) = 12.7062, t(0.975, 4) = 2.7764, t(0.975, 19) = 2.0930, t(0.975, 29) = 2.0452.
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 4)).toBeCloseTo(2.7764, 4);
    expect(studentTQuantile(0.975, 19)).toBeCloseTo(2.093, 4);
    expect(studentTQuantile(0.975, 29)).toBeCloseTo(2.0452, 4);
    expect(studentTQuantile(0.025, 19)).toBeCloseTo(-2.093, 4);
  });

  it('gives a hand-computed interval', () => {
    // Values 1, 2, 3, 4, 5: mean 3, sd sqrt(2.5) = 1.5811, half width 2.7764·1.5811/√5 = 1.9632.
    const interval = tInterval([1, 2, 3, 4, 5]);
    expect(interval.mean).toBe(3);
    expect(interval.low).toBeCloseTo(3 - 1.9632, 3);
    expect(interval.high).toBeCloseTo(3 + 1.9632, 3);
  });
});

describe('spearman', () => {
  it('averages tied ranks and matches a hand computation', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    // x ranks 1..5, y = 5, 6, 7, 8, 7 -> ranks 1, 2, 3.5, 5, 3.5.
    // Pearson of (1..5) with (1, 2, 3.5, 5, 3.5): d = (-2, -1, 0, 1, 2) · (-2, -1, 0.5, 2, 0.5) = 4 + 1 + 0 + 2 + 1 = 8;
    // sum sq x = 10, sum sq y = 4 + 1 + 0.25 + 4 + 0.25 = 9.5 -> 8 / sqrt(95) = 0.82078.
    expect(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(8 / Math.sqrt(95), 10);
    expect(spearman([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    expect(spearman([1, 2, 3], [1, 1, 1])).toBeNaN();
  });
});
