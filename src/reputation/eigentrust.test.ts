import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConvergenceError, InvalidArgumentError, NotFoundError } from '../core/errors.js';
import {
  computeEigentrust,
  createEigenTrustModel,
  eigentrust,
  normalizeLocalTrust,
  normalizePreTrust,
} from './eigentrust.js';

/** Second method: solve (I − (1 − a)Cᵀ) t = a·p by Gaussian elimination with partial pivoting. */
function solveByElimination(localTrust: number[][], preTrust: number[], alpha: number): number[] {
  const p = normalizePreTrust(preTrust);
  const c = normalizeLocalTrust(localTrust, p);
  const n = p.length;
  const rows = Array.from({ length: n }, (_, i) => [
    ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0) - (1 - alpha) * c[j]![i]!),
    alpha * p[i]!,
  ]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(rows[row]![col]!) > Math.abs(rows[pivot]![col]!)) pivot = row;
    [rows[col], rows[pivot]] = [rows[pivot]!, rows[col]!];
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = rows[row]![col]! / rows[col]![col]!;
      for (let k = col; k <= n; k++) rows[row]![k]! -= factor * rows[col]![k]!;
    }
  }
  return rows.map((row, i) => row[n]! / row[i]!);
}

// Local trust in steps of 0.1 (net interaction counts): arbitrary doubles include subnormals such
// as 5e-324, which underflow to 0 when a row is scaled and so change the matrix itself.
const localTrustEntry = fc.integer({ min: -50, max: 50 }).map((value) => value / 10);
const squareMatrix = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc.record({
    localTrust: fc.array(fc.array(localTrustEntry, { minLength: n, maxLength: n }), { minLength: n, maxLength: n }),
    preTrust: fc
      .array(fc.double({ min: 0, max: 3, noNaN: true }), { minLength: n, maxLength: n })
      .filter((p) => p.reduce((a, b) => a + b, 0) > 1e-3),
    alpha: fc.double({ min: 0.1, max: 1, noNaN: true }),
  }),
);

describe('eigentrust (Kamvar et al. 2003)', () => {
  it('solves a 3-agent case by hand', () => {
    // s = [[0, 3, 1], [2, 0, 2], [-1, -2, 0]], p = [1, 1, 2] / 4 = [1/4, 1/4, 1/2], a = 0.2
    // C rows: [0, 3/4, 1/4], [1/2, 0, 1/2], row 3 has no positive trust → p = [1/4, 1/4, 1/2]
    // t = 0.8·Cᵀt + 0.2·p:
    //   t0 = 0.4 t1 + 0.2 t2 + 0.05
    //   t1 = 0.6 t0 + 0.2 t2 + 0.05
    //   t2 = 0.2 t0 + 0.4 t1 + 0.4 t2 + 0.1  →  t2 = (t0 + 2 t1 + 0.5) / 3
    // Substituting: 2.8 t0 = 1.6 t1 + 0.25 and 2.6 t1 = 2 t0 + 0.25  →  4.08 t1 = 1.2
    //   t1 = 5/17 = 40/136, t0 = (8/17 + 1/4) / 2.8 = 35/136, t2 = (183/136) / 3 = 61/136 (sum 136/136)
    const localTrust = [
      [0, 3, 1],
      [2, 0, 2],
      [-1, -2, 0],
    ];
    const expected = [35 / 136, 40 / 136, 61 / 136];
    const trust = eigentrust({ localTrust, preTrust: [1, 1, 2], alpha: 0.2, epsilon: 1e-12 });
    trust.forEach((value, index) => expect(Math.abs(value - expected[index]!)).toBeLessThan(1e-9));
    // The second method agrees with the hand solution
    solveByElimination(localTrust, [1, 1, 2], 0.2).forEach((value, index) =>
      expect(Math.abs(value - expected[index]!)).toBeLessThan(1e-12),
    );
    // Default ε = 1e-9 stops within (1 − a)/a · ε = 4e-9 of the fixed point
    eigentrust({ localTrust, preTrust: [1, 1, 2], alpha: 0.2 }).forEach((value, index) =>
      expect(Math.abs(value - expected[index]!)).toBeLessThan(4e-9),
    );
  });

  it('needs 132 iterations on a 2-cycle at a = 0.15, ε = 1e-9: 100 would not converge, so the default is 1000', () => {
    // s = [[0, 1], [1, 0]], p = [1, 0]. Fixed point: t0 = 0.85 t1 + 0.15, t1 = 0.85 t0 → t0 = 0.15 / (1 − 0.7225) = 20/37, t1 = 17/37.
    // The error flips sign and shrinks by 0.85 per step, so the L1 change at step k is 1.7·0.85^(k−1);
    // 1.7·0.85^(k−1) < 1e-9 first holds at k − 1 > ln(1e-9 / 1.7) / ln(0.85) = 130.8, i.e. k = 132.
    const input = {
      localTrust: [
        [0, 1],
        [1, 0],
      ],
      preTrust: [1, 0],
    };
    const result = computeEigentrust(input);
    expect(result.iterations).toBe(132);
    expect(result.trust[0]).toBeCloseTo(20 / 37, 9);
    expect(result.trust[1]).toBeCloseTo(17 / 37, 9);
    expect(() => eigentrust({ ...input, maxIterations: 100 })).toThrow(ConvergenceError);
    try {
      eigentrust({ ...input, maxIterations: 100 });
    } catch (error) {
      // L1 change after 100 steps: 1.7·0.85^99 = 1.75e-7
      expect((error as ConvergenceError).iterations).toBe(100);
      expect((error as ConvergenceError).residual).toBeCloseTo(1.7 * 0.85 ** 99, 15);
    }
  });

  it('returns the pre-trust vector for a = 1', () => {
    // t = 0·Cᵀt + 1·p = p = [1, 3] / 4
    expect(
      eigentrust({
        localTrust: [
          [0, 1],
          [1, 0],
        ],
        preTrust: [1, 3],
        alpha: 1,
      }),
    ).toEqual([0.25, 0.75]);
  });

  it('refuses a outside (0, 1] and malformed inputs, naming the field', () => {
    const localTrust = [
      [0, 1],
      [1, 0],
    ];
    expect(() => eigentrust({ localTrust, preTrust: [1, 1], alpha: 0 })).toThrow(
      expect.objectContaining({ parameter: 'alpha', value: 0 }),
    );
    expect(() => eigentrust({ localTrust, preTrust: [1, 1], alpha: 1.2 })).toThrow(InvalidArgumentError);
    expect(() => eigentrust({ localTrust, preTrust: [1, 1], alpha: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => eigentrust({ localTrust, preTrust: [0, 0] })).toThrow(
      expect.objectContaining({ parameter: 'preTrust' }),
    );
    expect(() => eigentrust({ localTrust, preTrust: [1, -1] })).toThrow(
      expect.objectContaining({ parameter: 'preTrust[1]', value: -1 }),
    );
    expect(() => eigentrust({ localTrust, preTrust: [1] })).toThrow(InvalidArgumentError);
    expect(() => eigentrust({ localTrust: [[0, 1], [1]], preTrust: [1, 1] })).toThrow(
      expect.objectContaining({ parameter: 'localTrust[1]' }),
    );
    expect(() =>
      eigentrust({
        localTrust: [
          [0, Number.NaN],
          [1, 0],
        ],
        preTrust: [1, 1],
      }),
    ).toThrow(expect.objectContaining({ parameter: 'localTrust[0][1]' }));
    expect(() => eigentrust({ localTrust: [], preTrust: [] })).toThrow(InvalidArgumentError);
    expect(() => eigentrust({ localTrust, preTrust: [1, 1], maxIterations: 0 })).toThrow(
      expect.objectContaining({ parameter: 'maxIterations' }),
    );
    expect(() => eigentrust({ localTrust, preTrust: [1, 1], epsilon: 0 })).toThrow(
      expect.objectContaining({ parameter: 'epsilon' }),
    );
  });

  it('does not change its inputs', () => {
    const localTrust = Object.freeze([Object.freeze([0, 2]), Object.freeze([-1, 0])]);
    const preTrust = Object.freeze([2, 2]);
    eigentrust({ localTrust, preTrust });
    expect(localTrust).toEqual([
      [0, 2],
      [-1, 0],
    ]);
    expect(preTrust).toEqual([2, 2]);
  });

  it('sums to 1, is non-negative and matches Gaussian elimination (property)', () => {
    fc.assert(
      fc.property(squareMatrix, ({ localTrust, preTrust, alpha }) => {
        const trust = eigentrust({ localTrust, preTrust, alpha, epsilon: 1e-13 });
        expect(trust.reduce((sum, value) => sum + value, 0)).toBeCloseTo(1, 12);
        for (const value of trust) expect(value).toBeGreaterThanOrEqual(0);
        const exact = solveByElimination(localTrust, preTrust, alpha);
        trust.forEach((value, index) => expect(Math.abs(value - exact[index]!)).toBeLessThan(1e-10));
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  it('does not change when one agent’s whole row of local trust is scaled by a positive factor (property)', () => {
    fc.assert(
      fc.property(
        squareMatrix,
        fc.nat(),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        ({ localTrust, preTrust, alpha }, rowSeed, factor) => {
          const row = rowSeed % localTrust.length;
          const scaled = localTrust.map((values, index) =>
            index === row ? values.map((value) => value * factor) : values,
          );
          const before = eigentrust({ localTrust, preTrust, alpha, epsilon: 1e-13 });
          const after = eigentrust({ localTrust: scaled, preTrust, alpha, epsilon: 1e-13 });
          before.forEach((value, index) => expect(Math.abs(value - after[index]!)).toBeLessThan(1e-10));
        },
      ),
      { numRuns: 200, seed: 12 },
    );
  });
});

describe('EigenTrust reputation model', () => {
  it('builds local trust from ratings and observed outcomes, solved by hand', () => {
    // Ratings: a→b 1 (s_ab = 2·1 − 1 = +1), b→a 1 (s_ba = +1), c→a 0 (s_ca = −1); outcome c observes a, success 1: s_ca = −1 + 1 = 0.
    // C: a row [0, 1, 0], b row [1, 0, 0], c row has no positive trust → p = [1/3, 1/3, 1/3]; a = 0.25.
    //   t_c = 0.75·(t_c / 3) + 1/12 → 0.75 t_c = 1/12 → t_c = 1/9; by symmetry t_a = t_b = (1 − 1/9) / 2 = 4/9
    //   check: 0.75·(4/9 + 1/27) + 1/12 = 13/36 + 3/36 = 4/9
    // Scores t / max t: a = b = 1, c = (1/9) / (4/9) = 0.25; weights = t.
    const model = createEigenTrustModel({ agents: ['a', 'b', 'c'], alpha: 0.25, epsilon: 1e-13 });
    model.observe([
      { type: 'rating', rating: { rater: 'a', ratee: 'b', taskId: 't', score: 1 } },
      { type: 'rating', rating: { rater: 'b', ratee: 'a', taskId: 't', score: 1 } },
      { type: 'rating', rating: { rater: 'c', ratee: 'a', taskId: 't', score: 0 } },
      { type: 'rating', rating: { rater: 'c', ratee: 'c', taskId: 't', score: 1 } },
      { type: 'outcome', taskId: 't', subject: 'a', observer: 'c', success: 1 },
      { type: 'outcome', taskId: 't', subject: 'c', success: 1 },
    ]);
    expect(model.localTrustMatrix()).toEqual([
      [0, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
    expect(model.score('a')).toBeCloseTo(1, 10);
    expect(model.score('b')).toBeCloseTo(1, 10);
    expect(model.score('c')).toBeCloseTo(0.25, 10);
    const weights = model.weights();
    expect(weights.a).toBeCloseTo(4 / 9, 10);
    expect(weights.c).toBeCloseTo(1 / 9, 10);
    // Restricted to {a, c}: (4/9, 1/9) renormalised = (0.8, 0.2)
    expect(model.weights(['a', 'c']).c).toBeCloseTo(0.2, 10);
  });

  it('pre-trusts only the listed agents', () => {
    // No local trust: every row falls back to p = [1, 0, 0], so t = p: scores [1, 0, 0]
    const model = createEigenTrustModel({ agents: ['a', 'b', 'c'], preTrusted: ['a'] });
    expect(model.scores()).toEqual({ a: 1, b: 0, c: 0 });
    // All-zero weights over {b, c} fall back to uniform
    expect(model.weights(['b', 'c'])).toEqual({ b: 0.5, c: 0.5 });
    expect(() => createEigenTrustModel({ agents: ['a'], preTrusted: ['z'] })).toThrow(NotFoundError);
    expect(() => createEigenTrustModel({ agents: ['a'], preTrusted: [] })).toThrow(InvalidArgumentError);
    expect(() => createEigenTrustModel({ agents: ['a'], alpha: 0 })).toThrow(
      expect.objectContaining({ parameter: 'options.alpha' }),
    );
  });

  it('gives bit-identical global trust to the textbook iteration over nested arrays, after every batch, an added agent and a restore (property)', () => {
    // Second method: the plain Kamvar et al. loop on number[][] (as eigentrust.ts read before its
    // typed-array storage), with its own local-trust bookkeeping; every iterate must match bit for bit.
    const textbook = (localTrust: number[][], preTrust: number[], alpha: number, epsilon: number) => {
      const total = preTrust.reduce((sum, value) => sum + value, 0);
      const p = preTrust.map((value) => value / total);
      const c = localTrust.map((row) => {
        const positive = row.map((value) => Math.max(value, 0));
        const rowTotal = positive.reduce((sum, value) => sum + value, 0);
        return rowTotal > 0 ? positive.map((value) => value / rowTotal) : [...p];
      });
      let trust = [...p];
      for (let iteration = 1; iteration <= 1000; iteration++) {
        const next: number[] = [];
        for (let j = 0; j < p.length; j++) {
          let incoming = 0;
          for (let i = 0; i < p.length; i++) incoming += c[i]![j]! * trust[i]!;
          next.push((1 - alpha) * incoming + alpha * p[j]!);
        }
        let residual = 0;
        for (let k = 0; k < p.length; k++) residual += Math.abs(next[k]! - trust[k]!);
        trust = next;
        if (residual < epsilon) return trust;
      }
      throw new Error('textbook iteration did not converge');
    };
    const agents = ['a', 'b', 'c', 'd'];
    const rating = fc.record({
      rater: fc.integer({ min: 0, max: 4 }),
      ratee: fc.integer({ min: 0, max: 4 }),
      score: fc.constantFrom(0, 0.25, 0.5, 1),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(rating, { maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom(0.15, 0.3),
        (batches, addAt, alpha) => {
          const ids = [...agents];
          let model = createEigenTrustModel({ agents: ids, alpha });
          const s = new Map<string, number>();
          batches.forEach((batch, index) => {
            if (index === addAt) {
              model.addAgent('e');
              ids.push('e');
            }
            const evidence = batch
              .filter((item) => item.rater < ids.length && item.ratee < ids.length)
              .map((item) => ({
                type: 'rating' as const,
                rating: { rater: ids[item.rater]!, ratee: ids[item.ratee]!, taskId: `t${index}`, score: item.score },
              }));
            model.observe(evidence);
            for (const { rating: r } of evidence) {
              if (r.rater === r.ratee) continue;
              const key = `${r.rater}>${r.ratee}`;
              s.set(key, (s.get(key) ?? 0) + (2 * r.score - 1));
            }
            const matrix = ids.map((i) => ids.map((j) => s.get(`${i}>${j}`) ?? 0));
            expect(model.localTrustMatrix()).toEqual(matrix);
            const expected = textbook(
              matrix,
              ids.map(() => 1 / ids.length),
              alpha,
              1e-9,
            );
            ids.forEach((id, k) => expect(Object.is(model.globalTrust(id), expected[k])).toBe(true));
            // A snapshot lists exactly the pairs evidence touched, and restores to the same solve.
            const snapshot = model.snapshot();
            expect((snapshot.state as { localTrust: unknown[] }).localTrust).toHaveLength(s.size);
            const restored = createEigenTrustModel({ agents: ['x'] });
            restored.restore(snapshot);
            ids.forEach((id, k) => expect(Object.is(restored.globalTrust(id), expected[k])).toBe(true));
            model = restored;
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
