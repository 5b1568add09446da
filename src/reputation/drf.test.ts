import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import type { Rating } from '../core/rating.js';
import {
  createDrfModel,
  drfAccuracy,
  drfLegacyParameters,
  drfRelativeDistance,
  drfReputationStep,
  drfRoundScores,
  drfTaskAccuracy,
  drfUpdateReputation,
} from './drf.js';
import type { Evidence } from './reputation-model.js';

const rate = (rater: string, ratee: string, score: number): Rating => ({ rater, ratee, taskId: 't', score });
const ratingEvidence = (rater: string, ratee: string, score: number): Evidence => ({
  type: 'rating',
  rating: rate(rater, ratee, score),
});
/** The hand-worked round of the step and model tests: b and c rate a 0.9, a and c rate b 0.1, a and b rate c 0.4. */
const roundOne = (): Rating[] => [
  rate('b', 'a', 0.9),
  rate('c', 'a', 0.9),
  rate('a', 'b', 0.1),
  rate('c', 'b', 0.1),
  rate('a', 'c', 0.4),
  rate('b', 'c', 0.4),
];
const defaults = { w0: 0.5, beta: 0.2, r0: 1 } as const;

describe('DRF Eq. 2 accuracy', () => {
  it('is 1 − d corrected and d as printed', () => {
    // d = 0.2: corrected 1 − 0.2 = 0.8; printed 0.2 (a farther answer would score higher)
    expect(drfAccuracy(0.2)).toBeCloseTo(0.8, 15);
    expect(drfAccuracy(0.2, 'corrected')).toBeCloseTo(0.8, 15);
    expect(drfAccuracy(0.2, 'printed')).toBe(0.2);
    expect(drfAccuracy(0, 'corrected')).toBe(1);
    expect(() => drfAccuracy(1.2)).toThrow(expect.objectContaining({ parameter: 'distance', value: 1.2 }));
    expect(() => drfAccuracy(0.5, 'other' as never)).toThrow(expect.objectContaining({ parameter: 'variant' }));
  });

  it('measures the relative distance |w0 − w| / w0, capped at 1', () => {
    // reference 10, answer 8: |10 − 8| / 10 = 0.2 → corrected accuracy 0.8, printed 0.2
    expect(drfRelativeDistance(10, 8)).toBeCloseTo(0.2, 15);
    expect(drfAccuracy(drfRelativeDistance(10, 8))).toBeCloseTo(0.8, 15);
    expect(drfAccuracy(drfRelativeDistance(10, 8), 'printed')).toBeCloseTo(0.2, 15);
    // reference 4, answer 10: |4 − 10| / 4 = 1.5, capped at 1 → corrected accuracy 0
    expect(drfRelativeDistance(4, 10)).toBe(1);
    // reference −5, answer −4: |−5 + 4| / 5 = 0.2
    expect(drfRelativeDistance(-5, -4)).toBeCloseTo(0.2, 15);
    // reference 0: 0 when exact, else 1
    expect(drfRelativeDistance(0, 0)).toBe(0);
    expect(drfRelativeDistance(0, 0.1)).toBe(1);
    expect(() => drfRelativeDistance(Number.NaN, 1)).toThrow(expect.objectContaining({ parameter: 'reference' }));
  });
});

describe('drfTaskAccuracy (Eq. 2, Definition 3)', () => {
  it('is |w0 − w| / w0 as printed and 1 − |w0 − w| / w0 corrected (by hand)', () => {
    // w = 0.8, w0 = 0.5: |0.5 − 0.8| / 0.5 = 0.6; corrected 0.4
    expect(drfTaskAccuracy({ taskScore: 0.8, threshold: 0.5, variant: 'printed' })).toBeCloseTo(0.6, 15);
    expect(drfTaskAccuracy({ taskScore: 0.8, threshold: 0.5 })).toBeCloseTo(0.4, 15);
    // w = 0.2, w0 = 0.5: 0.3 / 0.5 = 0.6 (same distance below the threshold)
    expect(drfTaskAccuracy({ taskScore: 0.2, threshold: 0.5, variant: 'printed' })).toBeCloseTo(0.6, 15);
    // at the threshold the distance is 0: printed 0, corrected 1
    expect(drfTaskAccuracy({ taskScore: 0.5, threshold: 0.5, variant: 'printed' })).toBe(0);
    expect(drfTaskAccuracy({ taskScore: 0.5, threshold: 0.5 })).toBe(1);
    // w = 0.9, w0 = 0.3: |0.3 − 0.9| / 0.3 = 2, capped at 1: printed 1, corrected 0
    expect(drfTaskAccuracy({ taskScore: 0.9, threshold: 0.3, variant: 'printed' })).toBe(1);
    expect(drfTaskAccuracy({ taskScore: 0.9, threshold: 0.3 })).toBe(0);
    // w0 = 1 (a full-score threshold): corrected A = 1 − (1 − w) = w
    expect(drfTaskAccuracy({ taskScore: 0.7, threshold: 1 })).toBeCloseTo(0.7, 15);
  });

  it('refuses a task score outside [0, 1] and a threshold outside (0, 1]', () => {
    expect(() => drfTaskAccuracy({ taskScore: 1.2, threshold: 0.5 })).toThrow(
      expect.objectContaining({ parameter: 'taskScore' }),
    );
    expect(() => drfTaskAccuracy({ taskScore: 0.5, threshold: 0 })).toThrow(
      expect.objectContaining({ parameter: 'threshold' }),
    );
  });

  it('printed and corrected always sum to 1 (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (w, w0) => {
          const printed = drfTaskAccuracy({ taskScore: w, threshold: w0, variant: 'printed' });
          const corrected = drfTaskAccuracy({ taskScore: w, threshold: w0 });
          return printed >= 0 && printed <= 1 && Math.abs(printed + corrected - 1) < 1e-12;
        },
      ),
      { seed: 41 },
    );
  });
});

describe('DRF Eq. 6 round score', () => {
  it('is the reputation-weighted mean of ratings from other agents', () => {
    // w_c = (0.8·1 + 0.2·0) / (0.8 + 0.2) = 0.8 (c's self-rating is left out)
    // w_a = (0.2·0.5 + 0.5·0.9) / (0.2 + 0.5) = 0.55 / 0.7 = 0.785714...
    const scores = drfRoundScores({
      reputations: { a: 0.8, b: 0.2, c: 0.5 },
      ratings: [rate('a', 'c', 1), rate('b', 'c', 0), rate('c', 'c', 1), rate('b', 'a', 0.5), rate('c', 'a', 0.9)],
    });
    expect(scores.c).toBeCloseTo(0.8, 15);
    expect(scores.a).toBeCloseTo(0.7857142857142857, 15);
    expect(scores.b).toBeUndefined();
  });

  it('falls back to the plain mean when every rater has reputation 0', () => {
    // (0.4 + 0.8) / 2 = 0.6
    expect(
      drfRoundScores({ reputations: { a: 0, b: 0, c: 0.5 }, ratings: [rate('a', 'c', 0.4), rate('b', 'c', 0.8)] }).c,
    ).toBeCloseTo(0.6, 15);
  });
});

describe('DRF Eqs. 7–8 reputation update', () => {
  it('Eq. 7 increments towards R0 with δ at or above w0 (β with increment: beta)', () => {
    // R = 0.5, w = 0.8, δ = 0.7: 0.5 + 0.7·(0.8 − 0.5)·(1 − 0.5) = 0.5 + 0.105 = 0.605
    expect(drfUpdateReputation({ reputation: 0.5, roundScore: 0.8, ...defaults, variant: 'corrected' })).toBeCloseTo(
      0.605,
      15,
    );
    // increment 'beta' (ours): 0.5 + 0.2·0.3·0.5 = 0.53
    expect(
      drfUpdateReputation({ reputation: 0.5, roundScore: 0.8, ...defaults, variant: 'corrected', increment: 'beta' }),
    ).toBeCloseTo(0.53, 15);
    // δ = 0.4 given explicitly: 0.5 + 0.4·0.3·0.5 = 0.56
    expect(
      drfUpdateReputation({ reputation: 0.5, roundScore: 0.8, ...defaults, variant: 'printed', delta: 0.4 }),
    ).toBeCloseTo(0.56, 15);
    // w = w0 is "at or above": 0.5 + 0.7·0·0.5 = 0.5
    expect(drfUpdateReputation({ reputation: 0.5, roundScore: 0.5, ...defaults, variant: 'printed' })).toBe(0.5);
    // Bounded by R0: R = 0.99, w = 1, δ = 1: 0.99 + 1·0.5·0.01 = 0.995 ≤ 1
    expect(
      drfUpdateReputation({ reputation: 0.99, roundScore: 1, w0: 0.5, beta: 1, delta: 1, r0: 1, variant: 'corrected' }),
    ).toBeCloseTo(0.995, 15);
  });

  it('Eq. 8 corrected is R − β·(w0 − w)·R, printed R − w·R·β, each ÷ w0 only with decayNormalization w0', () => {
    // corrected: w = 0.1: 0.5 − 0.2·(0.5 − 0.1)·0.5 = 0.5 − 0.04 = 0.46; w = 0.4: 0.5 − 0.2·0.1·0.5 = 0.49
    // printed:   w = 0.1: 0.5 − 0.1·0.5·0.2         = 0.5 − 0.01 = 0.49; w = 0.4: 0.5 − 0.4·0.5·0.2 = 0.46
    // ÷ w0 = 0.5 doubles each decay term: corrected 0.42 / 0.48, printed 0.48 / 0.42
    const update = (roundScore: number, variant: 'corrected' | 'printed', decayNormalization: 'none' | 'w0' = 'none') =>
      drfUpdateReputation({ reputation: 0.5, roundScore, ...defaults, variant, decayNormalization });
    expect(update(0.1, 'corrected')).toBeCloseTo(0.46, 15);
    expect(update(0.4, 'corrected')).toBeCloseTo(0.49, 15);
    expect(update(0.1, 'printed')).toBeCloseTo(0.49, 15);
    expect(update(0.4, 'printed')).toBeCloseTo(0.46, 15);
    expect(update(0.1, 'corrected', 'w0')).toBeCloseTo(0.42, 15);
    expect(update(0.4, 'corrected', 'w0')).toBeCloseTo(0.48, 15);
    expect(update(0.1, 'printed', 'w0')).toBeCloseTo(0.48, 15);
    expect(update(0.4, 'printed', 'w0')).toBeCloseTo(0.42, 15);
    // The printed rule's sign error: the worse score (0.1) keeps MORE reputation than the better one (0.4)
    expect(update(0.1, 'printed')).toBeGreaterThan(update(0.4, 'printed'));
    expect(update(0.1, 'corrected')).toBeLessThan(update(0.4, 'corrected'));
    // printed at w = 0: no decay at all (0.5 − 0·0.5·0.2 = 0.5)
    expect(update(0, 'printed')).toBe(0.5);
  });

  it('reproduces the pre-issue-14 rules with drfLegacyParameters', () => {
    // increment β and ÷ w0: w = 0.9: 0.5 + 0.2·0.4·0.5 = 0.54; w = 0.1: 0.5·(1 − 0.2·0.4/0.5) = 0.42
    expect(
      drfUpdateReputation({
        reputation: 0.5,
        roundScore: 0.9,
        ...defaults,
        variant: 'corrected',
        ...drfLegacyParameters,
      }),
    ).toBeCloseTo(0.54, 15);
    expect(
      drfUpdateReputation({
        reputation: 0.5,
        roundScore: 0.1,
        ...defaults,
        variant: 'corrected',
        ...drfLegacyParameters,
      }),
    ).toBeCloseTo(0.42, 15);
  });

  it('orders decays by score in opposite directions for the two variants (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (w0, beta, reputation, first, second) => {
          const [worse, better] = [Math.min(first, second) * w0, Math.max(first, second) * w0];
          fc.pre(better < w0);
          const update = (roundScore: number, variant: 'corrected' | 'printed') =>
            drfUpdateReputation({ reputation, roundScore, w0, beta, r0: 1, variant });
          expect(update(worse, 'corrected')).toBeLessThanOrEqual(update(better, 'corrected') + 1e-15);
          expect(update(worse, 'printed')).toBeGreaterThanOrEqual(update(better, 'printed') - 1e-15);
        },
      ),
      { numRuns: 300, seed: 3 },
    );
  });

  it('keeps reputations in [0, R0] and scores in [0, 1] (property)', () => {
    const agents = ['a', 'b', 'c', 'd'];
    const rating = fc.record({
      rater: fc.constantFrom(...agents),
      ratee: fc.constantFrom(...agents),
      score: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(rating, { maxLength: 8 }), { maxLength: 10 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        // β = 1 with decayNormalization 'w0' takes the whole reputation off for a round score of 0,
        // where rounding once left R at −1.1e-16.
        fc.oneof(fc.double({ min: 0.05, max: 1, noNaN: true }), fc.constant(1)),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        fc.constantFrom('corrected' as const, 'printed' as const),
        fc.constantFrom('none' as const, 'w0' as const),
        fc.constantFrom('delta' as const, 'beta' as const),
        (rounds, w0, beta, r0, variant, decayNormalization, increment) => {
          let reputations: Record<string, number> = Object.fromEntries(agents.map((agent) => [agent, r0 / 2]));
          for (const round of rounds) {
            reputations = drfReputationStep({
              reputations,
              ratings: round.map((item) => ({ ...item, taskId: 't' })),
              w0,
              beta,
              r0,
              variant,
              decayNormalization,
              increment,
            }).reputations;
            for (const value of Object.values(reputations)) {
              expect(value).toBeGreaterThanOrEqual(0);
              expect(value).toBeLessThanOrEqual(r0);
            }
          }
        },
      ),
      { numRuns: 200, seed: 4 },
    );
  });
});

describe('drfReputationStep', () => {
  it('applies one round by hand and leaves its inputs alone', () => {
    // Equal reputations 0.5, so Eq. 6 is the plain mean of ratings from others:
    //   w_a = 0.9 → Eq. 7: 0.5 + 0.7·0.4·0.5 = 0.64
    //   w_b = 0.1 → Eq. 8 corrected: 0.5 − 0.2·0.4·0.5 = 0.46;  w_c = 0.4 → 0.5 − 0.2·0.1·0.5 = 0.49
    const reputations = Object.freeze({ a: 0.5, b: 0.5, c: 0.5 });
    const ratings = Object.freeze(roundOne());
    const result = drfReputationStep({ reputations, ratings });
    expect(result.reputations.a).toBeCloseTo(0.64, 15);
    expect(result.reputations.b).toBeCloseTo(0.46, 15);
    expect(result.reputations.c).toBeCloseTo(0.49, 15);
    expect(result.roundScores).toEqual({ a: 0.9, b: expect.closeTo(0.1, 15), c: expect.closeTo(0.4, 15) });
    expect(reputations).toEqual({ a: 0.5, b: 0.5, c: 0.5 });
    // printed Eq. 8: b (w = 0.1) → 0.5 − 0.1·0.5·0.2 = 0.49, c (w = 0.4) → 0.5 − 0.4·0.5·0.2 = 0.46
    const printed = drfReputationStep({ reputations, ratings, variant: 'printed' });
    expect(printed.reputations.b).toBeCloseTo(0.49, 15);
    expect(printed.reputations.c).toBeCloseTo(0.46, 15);
  });

  it('refuses bad parameters, reputations and ratings, naming the field', () => {
    const reputations = { a: 0.5, b: 0.5 };
    expect(() => drfReputationStep({ reputations, ratings: [], beta: 0 })).toThrow(
      expect.objectContaining({ parameter: 'beta', value: 0 }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [], w0: 0 })).toThrow(
      expect.objectContaining({ parameter: 'w0' }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [], r0: -1 })).toThrow(
      expect.objectContaining({ parameter: 'r0' }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [], variant: 'as-printed' as never })).toThrow(
      expect.objectContaining({ parameter: 'variant' }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [], delta: 0 })).toThrow(
      expect.objectContaining({ parameter: 'delta', value: 0 }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [], increment: 'gamma' as never })).toThrow(
      expect.objectContaining({ parameter: 'increment' }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [], decayNormalization: 'r0' as never })).toThrow(
      expect.objectContaining({ parameter: 'decayNormalization' }),
    );
    expect(() => drfReputationStep({ reputations: { a: 1.5 }, ratings: [] })).toThrow(
      expect.objectContaining({ parameter: 'reputations.a', value: 1.5 }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [rate('a', 'b', 1.1)] })).toThrow(
      expect.objectContaining({ parameter: 'ratings[0].score', value: 1.1 }),
    );
    expect(() => drfReputationStep({ reputations, ratings: [rate('a', 'z', 1)] })).toThrow(NotFoundError);
  });
});

describe('DRF reputation model', () => {
  it('runs two rounds by hand, with reputations weighting the second round', () => {
    // Round 1 as in the step test: a 0.64, b 0.46, c 0.49.
    // Round 2: a→c 1, b→c 0: w_c = (0.64·1 + 0.46·0) / (0.64 + 0.46) = 0.64 / 1.1 = 0.581818... ≥ 0.5
    //   c: 0.49 + 0.7·(0.581818... − 0.5)·(1 − 0.49) = 0.49 + 0.7·0.0818181...·0.51 = 0.49 + 0.0292090... = 0.5192090...
    const model = createDrfModel({ agents: ['a', 'b', 'c'] });
    model.observe(roundOne().map((rating) => ({ type: 'rating', rating })));
    model.observe([ratingEvidence('a', 'c', 1), ratingEvidence('b', 'c', 0)]);
    expect(model.score('a')).toBeCloseTo(0.64, 15);
    expect(model.score('b')).toBeCloseTo(0.46, 15);
    expect(model.score('c')).toBeCloseTo(0.49 + 0.7 * (0.64 / 1.1 - 0.5) * 0.51, 15);
    expect(model.score('c')).toBeCloseTo(0.519209090909, 11);
    expect(model.lastRoundScore('c')).toBeCloseTo(0.64 / 1.1, 15);
    expect(model.rounds).toBe(2);
    expect(model.explain('c').components.lastRoundScore).toBeCloseTo(0.64 / 1.1, 15);
  });

  it('restores a pre-issue-14 snapshot (no increment field) with the legacy rules', () => {
    // Snapshot without increment/decayNormalization → β for Eq. 7 and ÷ w0 for Eq. 8:
    //   b rated 1 by a: 0.5 + 0.2·0.5·0.5 = 0.55 (not 0.675 as with δ = 0.7)
    const model = createDrfModel({ agents: ['a', 'b'] });
    const snapshot = model.snapshot();
    const state = snapshot.state as { parameters: Record<string, unknown> };
    const { increment: _increment, decayNormalization: _decay, delta: _delta, ...oldParameters } = state.parameters;
    const restored = createDrfModel({ agents: ['a', 'b'] });
    restored.restore({
      ...snapshot,
      state: { ...(snapshot.state as Record<string, unknown>), parameters: oldParameters },
    });
    restored.observe([ratingEvidence('a', 'b', 1)]);
    expect(restored.score('b')).toBeCloseTo(0.55, 15);
    expect(restored.parameters.increment).toBe('beta');
  });

  it('keeps R at exactly 0, restorable, when β = 1 and ÷ w0 take all of it (rounding once left −1.1e-16)', () => {
    // w0 = 0.2, β = 1, ÷ w0. Round 1, b rated 1: 0.5 + 0.7·(1 − 0.2)·(1 − 0.5) = 0.78.
    // Round 2, b rated 0: 0.78 − (1·(0.2 − 0)·0.78)/0.2 = 0.78 − 0.78 = 0, but (0.2·0.78)/0.2 rounds to
    // 0.7800000000000001, so R came out −1.1102230246251565e-16: a negative score and a snapshot that
    // restore refused (snapshot.state.reputations[1][1] must be in [0, 1]).
    const model = createDrfModel({ agents: ['a', 'b'], beta: 1, w0: 0.2, decayNormalization: 'w0' });
    model.observe([ratingEvidence('a', 'b', 1)]);
    expect(model.reputation('b')).toBeCloseTo(0.78, 15);
    model.observe([ratingEvidence('a', 'b', 0)]);
    expect(model.score('b')).toBe(0);
    const copy = createDrfModel({ agents: ['z'] });
    copy.restore(JSON.parse(JSON.stringify(model.snapshot())));
    expect(copy.scores()).toEqual(model.scores());
  });

  it('reads outcomes with an observer as ratings and ignores the rest', () => {
    // Outcome a observes b, success 1 = rating a→b 1: 0.5 + 0.7·0.5·0.5 = 0.675
    const model = createDrfModel({ agents: ['a', 'b'] });
    model.observe([
      { type: 'outcome', taskId: 't', subject: 'b', success: 0 },
      { type: 'behaviour', taskId: 't', subject: 'a', valid: true, flagged: true, risk: 1, quality: 0 },
      ratingEvidence('a', 'a', 0),
    ]);
    expect(model.scores()).toEqual({ a: 0.5, b: 0.5 });
    expect(model.rounds).toBe(0);
    model.observe([{ type: 'outcome', taskId: 't', subject: 'b', observer: 'a', success: 1 }]);
    expect(model.score('b')).toBeCloseTo(0.675, 15);
  });

  it('scores R / R0 when R0 ≠ 1', () => {
    // R0 = 2, R = 1: after w = 1: 1 + 0.7·0.5·(2 − 1) = 1.35 → score 1.35 / 2 = 0.675
    const model = createDrfModel({ agents: ['a', 'b'], r0: 2, initialReputation: 1 });
    expect(model.score('a')).toBe(0.5);
    model.observe([ratingEvidence('b', 'a', 1)]);
    expect(model.reputation('a')).toBeCloseTo(1.35, 15);
    expect(model.score('a')).toBeCloseTo(0.675, 15);
    expect(() => createDrfModel({ agents: ['a'], initialReputation: 3, r0: 2 })).toThrow(
      expect.objectContaining({ parameter: 'options.initialReputation' }),
    );
    expect(() => createDrfModel({ agents: ['a'], beta: 1.5 })).toThrow(InvalidArgumentError);
  });
});
