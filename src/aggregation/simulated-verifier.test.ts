import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import { createSimulatedVerifier, simulatedVerdict, simulatedVerifierDefaults } from './simulated-verifier.js';
import { verifyProposals } from './verifier.js';

const task = (index: number): Task => ({ id: `t${index}`, kind: 'number', prompt: '' });
const propose = (taskId: string, agentId: string, answer: string | null): Proposal => ({
  agentId,
  taskId,
  round: 0,
  text: String(answer),
  answer,
});
// The truth the harness knows: '4' is right on every task.
const isCorrect = (_task: Task, proposal: Proposal) => proposal.answer === '4';

describe('simulatedVerdict', () => {
  it('judges by the draw against sensitivity (wrong answers) and specificity (right answers)', () => {
    expect(simulatedVerdict({ correct: true, sensitivity: 0.85, specificity: 0.8, draw: 0.79 })).toBe(1);
    expect(simulatedVerdict({ correct: true, sensitivity: 0.85, specificity: 0.8, draw: 0.8 })).toBe(0);
    expect(simulatedVerdict({ correct: false, sensitivity: 0.85, specificity: 0.8, draw: 0.84 })).toBe(0);
    expect(simulatedVerdict({ correct: false, sensitivity: 0.85, specificity: 0.8, draw: 0.85 })).toBe(1);
  });

  it('is a perfect judge at 1/1 and always wrong at 0/0', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (correct, draw) => {
        expect(simulatedVerdict({ correct, sensitivity: 1, specificity: 1, draw })).toBe(correct ? 1 : 0);
        expect(simulatedVerdict({ correct, sensitivity: 0, specificity: 0, draw })).toBe(correct ? 0 : 1);
      }),
    );
  });
});

describe('createSimulatedVerifier', () => {
  it('defaults to sensitivity 0.85 and specificity 0.8', () => {
    const verifier = createSimulatedVerifier({ seed: 1, isCorrect });
    expect([verifier.sensitivity, verifier.specificity]).toEqual([0.85, 0.8]);
    expect(simulatedVerifierDefaults).toEqual({ sensitivity: 0.85, specificity: 0.8 });
    expect(verifier.name).toBe('simulated(0.85/0.8)');
  });

  it('meets its stated rates over many seeded draws', () => {
    const verifier = createSimulatedVerifier({ seed: 7, isCorrect, sensitivity: 0.9, specificity: 0.7 });
    let rightJudgedRight = 0;
    let wrongJudgedWrong = 0;
    for (let index = 0; index < 4000; index++) {
      rightJudgedRight += verifier.verify({ task: task(index), proposal: propose(`t${index}`, 'a', '4') }) as number;
      wrongJudgedWrong +=
        1 - (verifier.verify({ task: task(index), proposal: propose(`t${index}`, 'a', '5') }) as number);
    }
    // Binomial(4000, 0.7): mean 2800, sd = sqrt(4000·0.7·0.3) ≈ 29.0, 5 sd ≈ 145.
    expect(Math.abs(rightJudgedRight - 2800)).toBeLessThan(145);
    // Binomial(4000, 0.9): mean 3600, sd = sqrt(4000·0.9·0.1) ≈ 19.0, 5 sd ≈ 95.
    expect(Math.abs(wrongJudgedWrong - 3600)).toBeLessThan(95);
  });

  it('gives the same verdict for the same (seed, task, agent, answer), judges unparseable answers 0, and pins seed 3', () => {
    const verifier = createSimulatedVerifier({ seed: 3, isCorrect });
    const proposal = propose('t1', 'a', '5');
    expect(verifier.verify({ task: task(1), proposal })).toBe(verifier.verify({ task: task(1), proposal }));
    expect(verifier.verify({ task: task(1), proposal: propose('t1', 'a', null) })).toBe(0);
    // Pinned output of seed 3 on ten right answers t0..t9 (specificity 0.8: about 8 ones expected).
    const pinned = Array.from({ length: 10 }, (_, index) =>
      verifier.verify({ task: task(index), proposal: propose(`t${index}`, 'a', '4') }),
    );
    expect(pinned).toEqual([1, 1, 0, 1, 1, 0, 1, 1, 1, 1]);
  });

  it('refuses rates outside [0, 1] at construction', () => {
    expect(() => createSimulatedVerifier({ seed: 1, isCorrect, sensitivity: 1.2 })).toThrow(
      /sensitivity must be in \[0, 1\]/,
    );
    expect(() => createSimulatedVerifier({ seed: 1, isCorrect, specificity: -0.1 })).toThrow(/specificity/);
  });
});

describe('verifyProposals', () => {
  it('collects synchronous and asynchronous verdicts, leaves out "no opinion", and refuses values outside [0, 1]', async () => {
    const proposals = [propose('t', 'a', '4'), propose('t', 'b', '5'), propose('t', 'c', null)];
    const verdicts = await verifyProposals({
      verifier: {
        name: 'async',
        verify: async ({ proposal }) => (proposal.answer === null ? undefined : proposal.answer === '4' ? 0.9 : 0.1),
      },
      task: task(0),
      proposals,
    });
    expect(verdicts).toEqual({ a: 0.9, b: 0.1 });
    await expect(
      verifyProposals({ verifier: { name: 'bad', verify: () => Number.NaN }, task: task(0), proposals }),
    ).rejects.toThrow(/verifier bad returned NaN for agent a/);
  });
});
