import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import {
  betaBelief,
  betaExpectation,
  betaVariance,
  checkWitnessReport,
  createBetaModel,
  mergeWitnessCounts,
  updateBetaCounts,
  witnessDeviation,
} from './beta.js';
import type { Evidence, WitnessEvidence } from './reputation-model.js';

const outcome = (subject: string, success: number, observer?: string): Evidence => ({
  type: 'outcome',
  taskId: 't',
  subject,
  success,
  ...(observer === undefined ? {} : { observer }),
});

describe('Beta belief (Jøsang & Ismail 2002)', () => {
  it('scores 7 good and 2 bad outcomes as 8/11', () => {
    // (7 + 1) / (7 + 2 + 2) = 8 / 11 = 0.727272...
    expect(betaBelief({ positive: 7, negative: 2 }).expectation).toBeCloseTo(8 / 11, 12);
    expect(betaExpectation(8, 3)).toBeCloseTo(0.7272727272727273, 12);
  });

  it('has the Beta variance αβ / ((α+β)²(α+β+1))', () => {
    // Beta(1, 1): 1 / (4 · 3) = 1/12 = 0.083333...; Beta(9, 1): 9 / (100 · 11) = 0.0081818...
    expect(betaVariance(1, 1)).toBeCloseTo(0.0833333333333333, 14);
    expect(betaBelief({ positive: 8, negative: 0 }).variance).toBeCloseTo(0.00818181818181818, 14);
  });

  it('forgets with λ on the counts above the prior, not on the prior', () => {
    // λ = 0.9, outcomes 1, 1, 0 from (r, s) = (0, 0):
    //   r = 0.9·0 + 1 = 1,      s = 0.9·0 + 0 = 0
    //   r = 0.9·1 + 1 = 1.9,    s = 0
    //   r = 0.9·1.9 + 0 = 1.71, s = 0.9·0 + 1 = 1
    // α = 2.71, β = 2, E = 2.71 / 4.71 = 0.575371549893843,
    // Var = 2.71·2 / (4.71² · 5.71) = 5.42 / (22.1841 · 5.71) = 5.42 / 126.671211 = 0.0427879386106
    const model = createBetaModel({ agents: ['a1', 'a2'] });
    model.observe([outcome('a1', 1), outcome('a1', 1)]);
    model.observe([outcome('a1', 0)]);
    const belief = model.belief(null, 'a1');
    expect(belief.alpha).toBeCloseTo(2.71, 12);
    expect(belief.beta).toBeCloseTo(2, 12);
    expect(belief.expectation).toBeCloseTo(0.575371549893843, 12);
    expect(belief.variance).toBeCloseTo(0.0427879386106, 12);
    expect(model.score('a1')).toBeCloseTo(0.575371549893843, 12);
    expect(model.explain('a1').evidenceCount).toBe(3);
  });

  it('fades an unrefreshed belief back towards the Beta(1, 1) prior, never below α = 1', () => {
    // From (r, s) = (4, 0), 20 updates with success 0.5 and λ = 0.5 give r = 4·0.5^20 + Σ 0.5·0.5^k ≈ 1
    let counts = { positive: 4, negative: 0 };
    for (let step = 0; step < 20; step++) counts = updateBetaCounts(counts, 0.5, 0.5);
    // Fixed point r* = 0.5 / (1 − 0.5) = 1 = s*, so E → 2/4 = 0.5
    expect(counts.positive).toBeCloseTo(1, 5);
    expect(counts.negative).toBeCloseTo(1, 5);
    expect(betaBelief(counts).alpha).toBeGreaterThanOrEqual(1);
  });

  it('counts partial success as fractional evidence and does not change its input', () => {
    const counts = Object.freeze({ positive: 2, negative: 1 });
    // r = 0.9·2 + 0.75 = 2.55, s = 0.9·1 + 0.25 = 1.15
    const next = updateBetaCounts(counts, 0.75, 0.9);
    expect(next.positive).toBeCloseTo(2.55, 12);
    expect(next.negative).toBeCloseTo(1.15, 12);
    expect(counts).toEqual({ positive: 2, negative: 1 });
  });

  it('keeps the team view apart from an observer’s first-hand view, and reads ratings as first-hand', () => {
    const model = createBetaModel({ agents: ['a1', 'a2', 'a3'] });
    model.observe([
      outcome('a2', 1, 'a1'),
      { type: 'rating', rating: { rater: 'a3', ratee: 'a2', taskId: 't', score: 0 } },
    ]);
    // Team belief untouched: Beta(1, 1), E = 0.5
    expect(model.score('a2')).toBe(0.5);
    // a1 saw one success: Beta(2, 1), E = 2/3; a3 rated 0: Beta(1, 2), E = 1/3
    expect(model.belief('a1', 'a2').expectation).toBeCloseTo(2 / 3, 12);
    expect(model.belief('a3', 'a2').expectation).toBeCloseTo(1 / 3, 12);
    // τ = 0.4: 2/3 ≥ 0.4 trusted, 1/3 < 0.4 not; no evidence gives 0.5 ≥ 0.4
    expect(model.isTrusted('a1', 'a2')).toBe(true);
    expect(model.isTrusted('a3', 'a2')).toBe(false);
    expect(model.isTrusted('a2', 'a3')).toBe(true);
    expect(() => model.belief('nobody', 'a2')).toThrow(NotFoundError);
  });

  it('refuses out-of-range parameters naming the field', () => {
    expect(() => createBetaModel({ agents: ['a1'], lambda: 1.5 })).toThrow(
      expect.objectContaining({ parameter: 'options.lambda', value: 1.5 }),
    );
    expect(() => createBetaModel({ agents: ['a1'], delta: 0 })).toThrow(InvalidArgumentError);
    expect(() => createBetaModel({ agents: ['a1'], omega: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => createBetaModel({ agents: ['a1'], tau: -0.1 })).toThrow(InvalidArgumentError);
  });

  it('moves the mean towards new evidence (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (positive, negative, success, lambda) => {
          const counts = { positive, negative };
          const decayed = betaBelief({ positive: lambda * positive, negative: lambda * negative }).expectation;
          const updated = betaBelief(updateBetaCounts(counts, success, lambda)).expectation;
          // E' = E_d + (x − E_d) / (T_d + 1): between the decayed mean and the evidence x
          expect(Math.abs(updated - success)).toBeLessThanOrEqual(Math.abs(decayed - success) + 1e-12);
          // Without forgetting the decayed mean is the old mean: a success never lowers E, a failure never raises it
          const before = betaBelief(counts).expectation;
          expect(betaBelief(updateBetaCounts(counts, 1, 1)).expectation).toBeGreaterThan(before);
          expect(betaBelief(updateBetaCounts(counts, 0, 1)).expectation).toBeLessThan(before);
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe('RAPS witness check', () => {
  it('computes the deviation on both sides of δ = 1.5 by hand', () => {
    // Local (8, 0): Beta(9, 1), E = 0.9, Var = 9 / (100·11) = 0.0081818
    // Witness (6, 2): Beta(7, 3), E = 0.7, Var = 21 / 1100 = 0.0190909
    //   D = 0.2 / sqrt(0.0272727) = 0.2 / 0.1651446 = 1.2110601 < 1.5 → accepted
    // Witness (5, 3): Beta(6, 4), E = 0.6, Var = 24 / 1100 = 0.0218182
    //   D = 0.3 / sqrt(0.03) = 0.3 / 0.1732051 = 1.7320508 ≥ 1.5 → refused
    const local = { positive: 8, negative: 0 };
    expect(witnessDeviation(local, { positive: 6, negative: 2 })).toBeCloseTo(1.2110601416, 9);
    expect(witnessDeviation(local, { positive: 5, negative: 3 })).toBeCloseTo(Math.sqrt(3), 12);
    expect(checkWitnessReport({ local, witness: { positive: 6, negative: 2 }, delta: 1.5 }).accepted).toBe(true);
    expect(checkWitnessReport({ local, witness: { positive: 5, negative: 3 }, delta: 1.5 }).accepted).toBe(false);
    // D exactly at δ is refused (D ≥ δ); just above δ it is accepted
    const atDelta = witnessDeviation(local, { positive: 5, negative: 3 });
    expect(checkWitnessReport({ local, witness: { positive: 5, negative: 3 }, delta: atDelta }).accepted).toBe(false);
    expect(
      checkWitnessReport({ local, witness: { positive: 5, negative: 3 }, delta: atDelta * (1 + 1e-12) }).accepted,
    ).toBe(true);
  });

  it('merges an accepted report with discount ω after subtracting the prior', () => {
    // (8, 0) + 0.3·(6, 2) = (9.8, 0.6); the prior-included witness belief Beta(7, 3) contributes ω·(7 − 1), ω·(3 − 1)
    const merged = mergeWitnessCounts({ positive: 8, negative: 0 }, { positive: 6, negative: 2 }, 0.3);
    expect(merged.positive).toBeCloseTo(9.8, 12);
    expect(merged.negative).toBeCloseTo(0.6, 12);
  });

  it('keeps witness credibility in trust_of, apart from reputation_of (separate, default)', () => {
    // λ = 1: a1 sees a3 succeed 8 times → reputation_of(a1, a3) = (8, 0)
    const model = createBetaModel({ agents: ['a1', 'a2', 'a3', 'a4'], lambda: 1 });
    model.observe(Array.from({ length: 8 }, () => outcome('a3', 1, 'a1')));
    // a4 reports (5, 3) about a3: D = sqrt(3) ≥ 1.5 → refused. trust_of(a1, a4) = (0, 1), E = 1/3 < τ;
    // reputation_of(a1, a4) stays at the prior (0, 0), E = 0.5: a bad witness is not a bad worker.
    model.observe([{ type: 'witness', observer: 'a1', witness: 'a4', subject: 'a3', positive: 5, negative: 3 }]);
    expect(model.trustOf('a1', 'a4').expectation).toBeCloseTo(1 / 3, 12);
    expect(model.isCredible('a1', 'a4')).toBe(false);
    expect(model.reputationOf('a1', 'a4').expectation).toBe(0.5);
    expect(model.isTrusted('a1', 'a4')).toBe(true);
    expect(model.counts('a1', 'a3')).toEqual({ positive: 8, negative: 0 });
    // a2 reports (6, 2): D = 1.2111 < 1.5 → accepted: trust_of(a1, a2) = (1, 0), E = 2/3; the report
    // merges into reputation_of(a1, a3) = (8 + 0.3·6, 0.3·2) = (9.8, 0.6); reputation_of(a1, a2) unchanged.
    model.observe([{ type: 'witness', observer: 'a1', witness: 'a2', subject: 'a3', positive: 6, negative: 2 }]);
    expect(model.trustOf('a1', 'a2').expectation).toBeCloseTo(2 / 3, 12);
    expect(model.reputationOf('a1', 'a2').expectation).toBe(0.5);
    expect(model.counts('a1', 'a3').positive).toBeCloseTo(9.8, 12);
    expect(model.counts('a1', 'a3').negative).toBeCloseTo(0.6, 12);
    // trust_of survives a JSON snapshot round trip
    const copy = createBetaModel({ agents: ['a1', 'a2', 'a3', 'a4'] });
    copy.restore(JSON.parse(JSON.stringify(model.snapshot())));
    expect(copy.trustOf('a1', 'a4').expectation).toBeCloseTo(1 / 3, 12);
    expect(copy.parameters.witnessCredibility).toBe('separate');
    expect(() => createBetaModel({ agents: ['a1'], witnessCredibility: 'both' as never })).toThrow(
      expect.objectContaining({ parameter: 'options.witnessCredibility' }),
    );
  });

  it('refuses a deviating witness, distrusts it, and merges a consistent one (shared belief, the old behaviour)', () => {
    // λ = 1 keeps the counts whole: a1 sees a3 succeed 8 times → (8, 0)
    const model = createBetaModel({ agents: ['a1', 'a2', 'a3', 'a4'], lambda: 1, witnessCredibility: 'shared' });
    model.observe(Array.from({ length: 8 }, () => outcome('a3', 1, 'a1')));
    const deviating: WitnessEvidence = {
      type: 'witness',
      observer: 'a1',
      witness: 'a4',
      subject: 'a3',
      positive: 5,
      negative: 3,
    };
    const consistent: WitnessEvidence = {
      type: 'witness',
      observer: 'a1',
      witness: 'a2',
      subject: 'a3',
      positive: 6,
      negative: 2,
    };
    expect(model.assessWitness(deviating).deviation).toBeCloseTo(Math.sqrt(3), 12);
    expect(model.assessWitness(consistent).accepted).toBe(true);

    model.observe([deviating]);
    // Refused: a1's belief about a3 unchanged; a1's trust in a4 takes a failure: (0, 1), E = 1/3 < τ = 0.4
    expect(model.counts('a1', 'a3')).toEqual({ positive: 8, negative: 0 });
    expect(model.belief('a1', 'a4').expectation).toBeCloseTo(1 / 3, 12);
    expect(model.isTrusted('a1', 'a4')).toBe(false);

    model.observe([consistent]);
    // Accepted: (8 + 0.3·6, 0 + 0.3·2) = (9.8, 0.6); a1's trust in a2: (1, 0), E = 2/3
    expect(model.counts('a1', 'a3').positive).toBeCloseTo(9.8, 12);
    expect(model.counts('a1', 'a3').negative).toBeCloseTo(0.6, 12);
    expect(model.belief('a1', 'a2').expectation).toBeCloseTo(2 / 3, 12);
    expect(model.isTrusted('a1', 'a2')).toBe(true);
    // Witness reports never touch the team view
    expect(model.score('a3')).toBe(0.5);
  });

  it('forgets the witness trust belief with λ like any other belief', () => {
    // λ = 0.9, a2 reports twice about a3 with no local evidence (Beta(1, 1)):
    // report (0, 4): D = (0.5 − 1/6) / sqrt(1/12 + 5/252) = 0.33333 / 0.32121 = 1.03775 < 1.5 → accepted
    //   trust (0, 0) → (0.9·0 + 1, 0) = (1, 0); local → (0 + 0.3·0, 0 + 0.3·4) = (0, 1.2)
    // report (0, 4) again: local Beta(1, 2.2): E = 0.3125, Var = 2.2 / (3.2²·4.2) = 0.0511533
    //   D = (0.3125 − 0.1666667) / sqrt(0.0511533 + 0.0198413) = 0.1458333 / 0.2664481 = 0.547324 → accepted
    //   trust → (0.9·1 + 1, 0) = (1.9, 0)
    const model = createBetaModel({ agents: ['a1', 'a2', 'a3'], witnessCredibility: 'shared' });
    const report: WitnessEvidence = {
      type: 'witness',
      observer: 'a1',
      witness: 'a2',
      subject: 'a3',
      positive: 0,
      negative: 4,
    };
    expect(model.assessWitness(report).deviation).toBeCloseTo(1.0377490433, 9);
    model.observe([report]);
    expect(model.assessWitness(report).deviation).toBeCloseTo(0.547324, 5);
    model.observe([report]);
    expect(model.counts('a1', 'a2').positive).toBeCloseTo(1.9, 12);
    expect(model.counts('a1', 'a3').negative).toBeCloseTo(2.4, 12);
    // the same with separate credibility: trust_of (1.9, 0), reputation_of(a1, a2) untouched
    const separate = createBetaModel({ agents: ['a1', 'a2', 'a3'] });
    separate.observe([report]);
    separate.observe([report]);
    expect(separate.trustOf('a1', 'a2').expectation).toBeCloseTo(2.9 / 3.9, 12);
    expect(separate.counts('a1', 'a2')).toEqual({ positive: 0, negative: 0 });
  });
});

describe('relaxTowardPrior (ours: ageing a belief without evidence)', () => {
  it('scales both counts by rho, touching only the named belief (hand-computed)', () => {
    const model = createBetaModel({ agents: ['a', 'b', 'c'] });
    model.observe([
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'b', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'c', success: 0 },
    ]);
    // (0, 1): E = 1/3 < tau = 0.4. rho = 0.5 -> (0, 0.5): E = 1 / 2.5 = 0.4, trusted again (E >= tau).
    model.relaxTowardPrior('a', 'b', 0.5);
    expect(model.counts('a', 'b')).toEqual({ positive: 0, negative: 0.5 });
    expect(model.belief('a', 'b').expectation).toBeCloseTo(0.4, 12);
    expect(model.isTrusted('a', 'b')).toBe(true);
    expect(model.belief('a', 'c').expectation).toBeCloseTo(1 / 3, 12);
    // rho = 1 changes nothing; rho = 0 returns to the Beta(1, 1) prior.
    model.relaxTowardPrior('a', 'c', 1);
    expect(model.counts('a', 'c')).toEqual({ positive: 0, negative: 1 });
    model.relaxTowardPrior('a', 'c', 0);
    expect(model.belief('a', 'c').expectation).toBe(0.5);
  });

  it('refuses a factor outside [0, 1] and unknown agents', () => {
    const model = createBetaModel({ agents: ['a', 'b'] });
    expect(() => model.relaxTowardPrior('a', 'b', 1.5)).toThrow(/factor/);
    expect(() => model.relaxTowardPrior('a', 'zz', 0.5)).toThrow();
  });
});
