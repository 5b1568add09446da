import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simulateTeamDataset } from './simulated-team.js';

describe('simulateTeamDataset', () => {
  it('gives each agent its accuracy, shared errors and copies (2000 tasks)', () => {
    const dataset = simulateTeamDataset({
      name: 'check',
      tasks: 2000,
      seed: 3,
      profiles: [
        { id: 'a', accuracy: 0.8 },
        { id: 'b', accuracy: 0.35, sharedWrong: 0.5 },
        { id: 'w', accuracy: 0, sharedWrong: 1 },
        { id: 'c', accuracy: 0.5, copies: { agent: 'a', rate: 0.9 } },
      ],
    });
    expect(dataset.agents.map((agent) => agent.id)).toEqual(['a', 'b', 'w', 'c']);
    const rate = (test: (record: (typeof dataset.tasks)[number]) => boolean) =>
      dataset.tasks.filter(test).length / dataset.tasks.length;
    const right = (id: string) => (record: (typeof dataset.tasks)[number]) => record.proposals[id]?.correct === true;
    // Binomial standard error at n = 2000 is at most 0.0112; 4 of them is 0.045.
    expect(rate(right('a'))).toBeCloseTo(0.8, 1);
    expect(rate(right('b'))).toBeCloseTo(0.35, 1);
    expect(rate(right('w'))).toBe(0);
    // b's wrong answers equal w's (the common wrong answer) half of the time: 0.65 · 0.5 = 0.325.
    expect(Math.abs(rate((record) => record.proposals.b?.answer === record.proposals.w?.answer) - 0.325)).toBeLessThan(
      0.045,
    );
    // c copies a 90% of the time, and otherwise matches a when both are right: 0.9 + 0.1 · 0.5 · 0.8 = 0.94.
    expect(Math.abs(rate((record) => record.proposals.c?.answer === record.proposals.a?.answer) - 0.94)).toBeLessThan(
      0.03,
    );
    // Every flag agrees with the reference.
    for (const record of dataset.tasks)
      for (const proposal of Object.values(record.proposals))
        expect(proposal.correct).toBe(proposal.answer === record.reference);
  });

  it('is a pure function of its options, and refuses bad profiles', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), (seed) => {
        const options = { name: 'p', tasks: 5, seed, profiles: [{ id: 'a', accuracy: 0.5 }] };
        expect(simulateTeamDataset(options)).toEqual(simulateTeamDataset(options));
      }),
      { numRuns: 20, seed: 36 },
    );
    expect(() => simulateTeamDataset({ name: 'p', tasks: 0, seed: 1, profiles: [] })).toThrow(
      /tasks must be a positive integer/,
    );
    expect(() => simulateTeamDataset({ name: 'p', tasks: 1, seed: 1, profiles: [{ id: 'a', accuracy: 1.2 }] })).toThrow(
      /profiles\[0\]\.accuracy must be in \[0, 1\]/,
    );
    expect(() =>
      simulateTeamDataset({
        name: 'p',
        tasks: 1,
        seed: 1,
        profiles: [
          { id: 'a', accuracy: 1, copies: { agent: 'b', rate: 1 } },
          { id: 'b', accuracy: 1 },
        ],
      }),
    ).toThrow(/not listed before it/);
  });
});
