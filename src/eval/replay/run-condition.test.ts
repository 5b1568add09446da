import { describe, expect, it } from 'vitest';
import { feedbackSuccess } from './run-condition.js';

describe('feedbackSuccess', () => {
  it('consensus: 1 exactly when the agent gave the decided answer', () => {
    expect(feedbackSuccess('consensus', { key: '4', decided: '4', truth: 0, verdict: undefined })).toBe(1);
    expect(feedbackSuccess('consensus', { key: '5', decided: '4', truth: 1, verdict: 1 })).toBe(0);
    expect(feedbackSuccess('consensus', { key: null, decided: null, truth: 0, verdict: undefined })).toBe(0);
  });

  it('truth: the proposal’s correctness', () => {
    expect(feedbackSuccess('truth', { key: '5', decided: '4', truth: 1, verdict: 0 })).toBe(1);
  });

  it('verifier: the verdict the proposal got before aggregation, and an internal error without one', () => {
    expect(feedbackSuccess('verifier', { key: 'x', decided: 'y', truth: 1, verdict: 0 })).toBe(0);
    expect(feedbackSuccess('verifier', { key: 'x', decided: 'y', truth: 0, verdict: 1 })).toBe(1);
    expect(() => feedbackSuccess('verifier', { key: 'x', decided: 'y', truth: 0, verdict: undefined })).toThrow(/verifier\.kind simulated/);
  });
});
