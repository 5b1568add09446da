import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rating } from '../../core/rating.js';
import { credibilityWeight, discountRatings, updateCredibility } from './rater-credibility.js';

const rating = (rater: string, ratee: string, score: number): Rating => ({ rater, ratee, taskId: 't', score });

describe('updateCredibility and credibilityWeight', () => {
  it('scores agreement with outcomes by 1 - |score - outcome| and smooths the rate', () => {
    // c rates a (outcome 1) 1.0 -> agreement 1, rates b (outcome 0) 0.25 -> agreement 0.75.
    const state = updateCredibility({}, [rating('c', 'a', 1), rating('c', 'b', 0.25)], { a: 1, b: 0 });
    expect(state.c).toEqual({ agreement: 1.75, ratings: 2 });
    // a = (1 + 1.75) / (2 + 2) = 0.6875; kappa = 2a - 1 = 0.375.
    expect(credibilityWeight(state.c)).toBeCloseTo(0.375, 12);
  });

  it('gives a colluder who contradicts every outcome the floor and no record the floor', () => {
    const state = updateCredibility({}, [rating('x', 'honest', 0), rating('x', 'partner', 1)], {
      honest: 1,
      partner: 0,
    });
    // a = (1 + 0) / (2 + 2) = 0.25 -> 2a - 1 < 0 -> floor.
    expect(credibilityWeight(state.x, 0.05)).toBe(0.05);
    expect(credibilityWeight(undefined, 0.05)).toBe(0.05);
  });

  it('skips ratings of ratees without an outcome and does not mutate the input state', () => {
    const before = { c: { agreement: 1, ratings: 1 } };
    const after = updateCredibility(before, [rating('c', 'unknown', 1)], {});
    expect(after).toEqual(before);
    expect(after).not.toBe(before);
  });
});

describe('discountRatings', () => {
  it('matches a hand-computed credibility-weighted Eq. 6', () => {
    // Ratee j, raters a (w 0.8, kappa 1, s 1), b (w 0.4, kappa 0.5, s 0), c (w 0.5, kappa 0, s 1).
    // p̂ = (0.8·1·1 + 0.4·0.5·0 + 0.5·0·1) / (0.8·1 + 0.4·0.5 + 0) = 0.8 / 1.0 = 0.8.
    // s'_a = 1·1 + 0·0.8 = 1; s'_b = 0.5·0 + 0.5·0.8 = 0.4; s'_c = 0·1 + 1·0.8 = 0.8.
    // Eq. 6 on rewritten ratings: (0.8·1 + 0.4·0.4 + 0.5·0.8) / 1.7 = (0.8 + 0.16 + 0.4) / 1.7 = 0.8.
    const out = discountRatings(
      [rating('a', 'j', 1), rating('b', 'j', 0), rating('c', 'j', 1)],
      { a: 0.8, b: 0.4, c: 0.5 },
      { a: 1, b: 0.5, c: 0 },
    );
    expect(out.map((item) => item.score)).toEqual([1, expect.closeTo(0.4, 12), expect.closeTo(0.8, 12)]);
  });

  it('makes the reputation-weighted mean of the rewritten ratings equal the credibility-weighted mean (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            score: fc.double({ min: 0, max: 1, noNaN: true }),
            weight: fc.double({ min: 0.01, max: 1, noNaN: true }),
            kappa: fc.double({ min: 0.01, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        (raters) => {
          const ratings = raters.map((rater, index) => rating(`r${index}`, 'j', rater.score));
          const weights = Object.fromEntries(raters.map((rater, index) => [`r${index}`, rater.weight]));
          const kappas = Object.fromEntries(raters.map((rater, index) => [`r${index}`, rater.kappa]));
          const out = discountRatings(ratings, weights, kappas);
          // Second method: the credibility-weighted mean computed directly.
          const expected =
            raters.reduce((sum, rater) => sum + rater.weight * rater.kappa * rater.score, 0) /
            raters.reduce((sum, rater) => sum + rater.weight * rater.kappa, 0);
          const viaModel =
            out.reduce((sum, item, index) => sum + (raters[index]?.weight ?? 0) * item.score, 0) /
            raters.reduce((sum, rater) => sum + rater.weight, 0);
          expect(viaModel).toBeCloseTo(expected, 9);
          for (const item of out) {
            expect(item.score).toBeGreaterThanOrEqual(0);
            expect(item.score).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });

  it('leaves ratings unchanged when every rater has credibility 1', () => {
    const ratings = [rating('a', 'j', 0.3), rating('b', 'j', 0.9)];
    expect(discountRatings(ratings, { a: 1, b: 1 }, { a: 1, b: 1 }).map((item) => item.score)).toEqual([0.3, 0.9]);
  });

  it('refuses a credibility outside [0, 1] with a typed error naming the rater', () => {
    expect(() => discountRatings([rating('a', 'j', 1)], { a: 1 }, { a: 1.5 })).toThrow(
      /credibility\.a must be in \[0, 1\], got 1.5/,
    );
  });
});
