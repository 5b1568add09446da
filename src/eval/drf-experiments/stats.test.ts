import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { averageRanks, spearman, studentTQuantile, tInterval, unitRange } from './stats.js';

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

  it("clips an interval to the measure's range: two seeds of an accuracy", () => {
    // Accuracies 0.9 and 1.0: mean 0.95, sd 0.0707, half width 12.7062·0.0707/√2 = 0.6353, so the
    // unclipped interval is [0.3147, 1.5853]; an accuracy cannot exceed 1.
    const unclipped = tInterval([0.9, 1]);
    expect(unclipped.high).toBeCloseTo(0.95 + 0.6353, 3);
    const clipped = tInterval([0.9, 1], 0.95, unitRange);
    expect(clipped.mean).toBeCloseTo(0.95, 12);
    expect(clipped.low).toBeCloseTo(0.95 - 0.6353, 3);
    expect(clipped.high).toBe(1);
  });

  it('keeps a clipped interval inside [0, 1] around its mean (generated accuracies)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 12 }), (values) => {
        const interval = tInterval(values, 0.95, unitRange);
        expect(interval.low).toBeGreaterThanOrEqual(0);
        expect(interval.high).toBeLessThanOrEqual(1);
        expect(interval.low).toBeLessThanOrEqual(interval.mean + 1e-12);
        expect(interval.high).toBeGreaterThanOrEqual(interval.mean - 1e-12);
      }),
    );
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
