import { describe, expect, it } from 'vitest';
import { createRapsScenario, logScaledTopK } from './scenarios.js';

describe('RAPS scenarios', () => {
  it('scales k with log2 n, at least 3 (hand-computed)', () => {
    // log2 4 = 2 -> 3; log2 8 = 3 -> 3; log2 9 = 3.17 -> 4; log2 10 = 3.32 -> 4; log2 20 = 4.32 -> 5; log2 50 = 5.64 -> 6; log2 1000 = 9.97 -> 10.
    expect([4, 8, 9, 10, 20, 50, 1000].map(logScaledTopK)).toEqual([3, 3, 4, 4, 5, 6, 10]);
    expect(() => logScaledTopK(0)).toThrow(/size/);
  });

  it('switches our additions on by default and off with additions: false', () => {
    const scaling = createRapsScenario('scaling', { seed: 1, agentCount: 20, taskCount: 2 }).runOptions;
    // k = 5 -> floor(5 / 3) = 1 coverage slot; the broadcast run (k = n - 1) has none.
    expect(scaling).toMatchObject({ topK: 5, attention: 'trusted', teamView: 'informed', coverageSlots: 1 });
    expect(createRapsScenario('scaling', { seed: 1, agentCount: 50, taskCount: 2 }).runOptions).toMatchObject({
      topK: 6,
      coverageSlots: 2,
    });
    expect(createRapsScenario('scaling', { seed: 1, agentCount: 20, taskCount: 2, topK: 19 }).runOptions).toMatchObject(
      { topK: 19, coverageSlots: 0 },
    );
    const plain = createRapsScenario('scaling', { seed: 1, agentCount: 20, taskCount: 2, additions: false }).runOptions;
    expect(plain.topK).toBe(3);
    expect(plain.attention).toBeUndefined();
    expect(plain.teamView).toBeUndefined();
    expect(plain.coverageSlots).toBeUndefined();
    expect(createRapsScenario('adversarial', { seed: 1, taskCount: 2 }).runOptions).toMatchObject({
      witnessMinDirectEvidence: 2,
      attention: 'trusted',
      decider: 'agent-1',
    });
    expect(
      createRapsScenario('adversarial', { seed: 1, taskCount: 2, additions: false }).runOptions
        .witnessMinDirectEvidence,
    ).toBeUndefined();
  });

  it('builds the honest-only ceiling from the same team: the honest agents alone, same tasks, skills and decider', () => {
    const full = createRapsScenario('adversarial', { seed: 3, taskCount: 4 });
    const honest = createRapsScenario('adversarial', {
      seed: 3,
      taskCount: 4,
      honestOnly: true,
      witnessCredibility: 'shared',
      recovery: 0.9,
    });
    expect(honest.runOptions.agents.map((agent) => agent.id)).toEqual(['agent-1', 'agent-2']);
    expect(honest.runOptions.decider).toBe('agent-1');
    expect(honest.runOptions.tasks).toEqual(full.runOptions.tasks);
    expect(honest.agents[0]).toBe(honest.agents[0]);
    expect(honest.qaTeam?.adversaries).toEqual([]);
    expect(honest.runOptions.beta).toEqual({ witnessCredibility: 'shared' });
    expect(honest.runOptions.recovery).toBe(0.9);
    expect(full.runOptions.beta).toBeUndefined();
  });
});
