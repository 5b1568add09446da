import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  calibrateCorrelatedVerifier,
  correlatedVerdict,
  createCorrelatedVerifier,
  falseAcceptRate,
  falseRejectRate,
  logistic,
  solveIntercept,
} from './correlated-verifier.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';

describe('solveIntercept', () => {
  it('solves a flat curve and a two-point curve by hand', () => {
    // slope 0: σ(c) = 0.2 ⇔ c = ln(0.2/0.8) = −1.386294...
    expect(solveIntercept({ covariates: [0.3, 0.9], slope: 0, target: 0.2 })).toBeCloseTo(Math.log(0.25), 9);
    // x ∈ {0, 1}, slope 2, target 0.5: by symmetry σ(c) + σ(c + 2) = 1 ⇔ c = −1
    expect(solveIntercept({ covariates: [0, 1], slope: 2, target: 0.5 })).toBeCloseTo(-1, 9);
  });

  it('gives ±∞ for the rates 0 and 1', () => {
    expect(solveIntercept({ covariates: [0.5], slope: 3, target: 0 })).toBe(Number.NEGATIVE_INFINITY);
    expect(solveIntercept({ covariates: [0.5], slope: 3, target: 1 })).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('calibrateCorrelatedVerifier', () => {
  it('makes the mean rates equal the flags (checked by summing the curves directly)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (wrongShares, rightDifficulties, sensitivity, specificity) => {
          const calibration = calibrateCorrelatedVerifier({ wrongShares, rightDifficulties, sensitivity, specificity });
          // An independent evaluation: the plain means of σ over the lists.
          const meanAccept =
            wrongShares.reduce(
              (sum, s) => sum + logistic(calibration.acceptIntercept + calibration.shareSlope * s),
              0,
            ) / wrongShares.length;
          const meanReject =
            rightDifficulties.reduce(
              (sum, d) => sum + logistic(calibration.rejectIntercept + calibration.difficultySlope * d),
              0,
            ) / rightDifficulties.length;
          expect(1 - meanAccept).toBeCloseTo(sensitivity, 9);
          expect(1 - meanReject).toBeCloseTo(specificity, 9);
        },
      ),
      { seed: 37, numRuns: 100 },
    );
  });

  it('draws verdicts whose frequencies match the flags (Monte Carlo over many tasks)', () => {
    // 2000 tasks; wrong keys with shares cycling 0.05..0.5, right keys with difficulties cycling 0..0.9.
    const wrongShares = Array.from({ length: 2000 }, (_, index) => 0.05 + 0.05 * (index % 10));
    const rightDifficulties = Array.from({ length: 2000 }, (_, index) => 0.1 * (index % 10));
    const calibration = calibrateCorrelatedVerifier({
      wrongShares,
      rightDifficulties,
      sensitivity: 0.85,
      specificity: 0.8,
    });
    const shareOf = new Map(wrongShares.map((share, index) => [`t${index}`, share]));
    const verifier = createCorrelatedVerifier({
      calibration,
      seed: 5,
      isCorrect: (_task, proposal) => proposal.answer === 'right',
      share: (task, answer) => (answer === 'right' ? undefined : shareOf.get(task.id)),
      difficulty: (task) => rightDifficulties[Number(task.id.slice(1))] ?? 0,
    });
    let caught = 0;
    let accepted = 0;
    for (let index = 0; index < 2000; index++) {
      const task: Task = { id: `t${index}`, kind: 'number', prompt: '' };
      const proposal = (answer: string): Proposal => ({
        agentId: 'a',
        taskId: task.id,
        round: 0,
        text: answer,
        answer,
      });
      caught += 1 - (verifier.verify({ task, proposal: proposal('wrong') }) as number);
      accepted += verifier.verify({ task, proposal: proposal('right') }) as number;
    }
    // Binomial standard errors: √(0.85·0.15/2000) = 0.008, √(0.8·0.2/2000) = 0.009; allow 4 of them.
    expect(Math.abs(caught / 2000 - 0.85)).toBeLessThan(0.032);
    expect(Math.abs(accepted / 2000 - 0.8)).toBeLessThan(0.036);
  });
});

describe('correlated verdicts', () => {
  const calibration = calibrateCorrelatedVerifier({
    wrongShares: [0.1, 0.2, 0.6],
    rightDifficulties: [0.1, 0.5, 0.9],
    sensitivity: 0.85,
    specificity: 0.8,
  });

  it('raise false accepts with the share of a wrong answer and false rejects with difficulty (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(falseAcceptRate(calibration, low)).toBeLessThanOrEqual(falseAcceptRate(calibration, high));
        expect(falseRejectRate(calibration, low)).toBeLessThanOrEqual(falseRejectRate(calibration, high));
      }),
      { seed: 11, numRuns: 200 },
    );
    // Strictly: a wrong answer half the pool shares fools the judge more than one nobody else gives.
    expect(falseAcceptRate(calibration, 0.5)).toBeGreaterThan(falseAcceptRate(calibration, 0.02));
  });

  it('judges the same (task, answer) alike for every agent, with any draw order', () => {
    const verifier = createCorrelatedVerifier({
      calibration,
      seed: 9,
      isCorrect: () => false,
      share: () => 0.3,
      difficulty: () => 0.5,
    });
    const task: Task = { id: 'q', kind: 'number', prompt: '' };
    const verdicts = ['a', 'b', 'c', 'd', 'e'].map((agentId) =>
      verifier.verify({ task, proposal: { agentId, taskId: 'q', round: 0, text: '7', answer: '7' } }),
    );
    expect(new Set(verdicts).size).toBe(1);
    expect(verifier.verify({ task, proposal: { agentId: 'a', taskId: 'q', round: 0, text: '', answer: null } })).toBe(
      0,
    );
  });

  it('judges an answer no pool agent gives at the mean false-accept rate', () => {
    // draw 0.149 < 1 − 0.85 = 0.15: accepted; draw 0.151: rejected
    expect(correlatedVerdict({ calibration, correct: false, share: undefined, difficulty: 0, draw: 0.149 })).toBe(1);
    expect(correlatedVerdict({ calibration, correct: false, share: undefined, difficulty: 0, draw: 0.151 })).toBe(0);
  });
});
