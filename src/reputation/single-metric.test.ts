import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { createSingleMetricModel, updateQuality } from './single-metric.js';

describe('single-metric model', () => {
  it('averages outcomes exponentially by hand', () => {
    // η = 0.2, q0 = 0.5, outcomes 1, 0, 1:
    //   q = 0.8·0.5 + 0.2·1 = 0.6;  q = 0.8·0.6 + 0 = 0.48;  q = 0.8·0.48 + 0.2 = 0.584
    // weights: 0.584 / (0.584 + 0.5) = 0.538745..., 0.5 / 1.084 = 0.461254...
    const model = createSingleMetricModel({ agents: ['a1', 'a2'] });
    model.observe([{ type: 'outcome', taskId: 't1', subject: 'a1', success: 1 }]);
    model.observe([
      { type: 'outcome', taskId: 't2', subject: 'a1', success: 0 },
      { type: 'outcome', taskId: 't3', subject: 'a1', success: 1, observer: 'a2' },
    ]);
    expect(model.score('a1')).toBeCloseTo(0.584, 15);
    expect(model.weights().a1).toBeCloseTo(0.5387453874538746, 14);
    expect(model.weights().a2).toBeCloseTo(0.4612546125461255, 14);
    expect(model.explain('a1').evidenceCount).toBe(3);
  });

  it('ignores ratings, behaviour and witness evidence', () => {
    const model = createSingleMetricModel({ agents: ['a1', 'a2'], initialQuality: 0.3 });
    model.observe([
      { type: 'rating', rating: { rater: 'a2', ratee: 'a1', taskId: 't', score: 1 } },
      { type: 'behaviour', taskId: 't', subject: 'a1', valid: true, flagged: false, risk: 0, quality: 1 },
      { type: 'witness', observer: 'a2', witness: 'a1', subject: 'a1', positive: 5, negative: 0 },
    ]);
    expect(model.scores()).toEqual({ a1: 0.3, a2: 0.3 });
  });

  it('refuses η outside (0, 1] and q0 outside [0, 1]', () => {
    expect(() => createSingleMetricModel({ agents: ['a1'], eta: 0 })).toThrow(
      expect.objectContaining({ parameter: 'options.eta', value: 0 }),
    );
    expect(() => createSingleMetricModel({ agents: ['a1'], initialQuality: 2 })).toThrow(InvalidArgumentError);
  });

  it('stays between the old quality and the new outcome (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 1e-6, max: 1, noNaN: true }),
        (quality, success, eta) => {
          const next = updateQuality(quality, success, eta);
          expect(next).toBeGreaterThanOrEqual(Math.min(quality, success) - 1e-15);
          expect(next).toBeLessThanOrEqual(Math.max(quality, success) + 1e-15);
        },
      ),
      { numRuns: 300, seed: 5 },
    );
  });
});
