import { describe, expect, it } from 'vitest';
import { feedbackSuccess } from './run-condition.js';

const base = { seed: 1, conditionId: 'c', taskIndex: 0, agentId: 'a', verifierAccuracy: 0.8 };

describe('feedbackSuccess', () => {
  it('consensus: 1 exactly when the agent gave the decided answer', () => {
    expect(feedbackSuccess('consensus', { ...base, key: '4', decided: '4', truth: 0 })).toBe(1);
    expect(feedbackSuccess('consensus', { ...base, key: '5', decided: '4', truth: 1 })).toBe(0);
    expect(feedbackSuccess('consensus', { ...base, key: null, decided: null, truth: 0 })).toBe(0);
  });

  it('truth: the proposal’s correctness', () => {
    expect(feedbackSuccess('truth', { ...base, key: '5', decided: '4', truth: 1 })).toBe(1);
  });

  it('verifier: right with the stated accuracy, seeded per (seed, condition, task, agent)', () => {
    expect(feedbackSuccess('verifier', { ...base, verifierAccuracy: 1, key: 'x', decided: 'y', truth: 1 })).toBe(1);
    expect(feedbackSuccess('verifier', { ...base, verifierAccuracy: 0, key: 'x', decided: 'y', truth: 1 })).toBe(0);
    let agree = 0;
    for (let task = 0; task < 4000; task++) agree += feedbackSuccess('verifier', { ...base, taskIndex: task, key: 'x', decided: 'y', truth: 1 });
    // Binomial(4000, 0.8): sd = sqrt(4000·0.8·0.2) ≈ 25.3; 5 sd ≈ 127 around 3200.
    expect(Math.abs(agree - 3200)).toBeLessThan(127);
    expect(feedbackSuccess('verifier', { ...base, taskIndex: 7, key: 'x', decided: 'y', truth: 1 })).toBe(feedbackSuccess('verifier', { ...base, taskIndex: 7, key: 'z', decided: 'z', truth: 1 }));
  });
});
