import { describe, expect, it } from 'vitest';
import { runAdversarialSeeds } from './adversarial-seeds.js';
import { createRapsScenario, logScaledTopK, runScaling } from './scenarios.js';

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

  it('scaling runs the witness credibility it is given (n = 10, seed 2027, 30 tasks)', async () => {
    const separate = await runScaling({ sizes: [10] });
    const shared = await runScaling({ sizes: [10], witnessCredibility: 'shared' });
    expect(separate.witnessCredibility).toBe('separate');
    expect(shared.witnessCredibility).toBe('shared');
    // docs/raps.md, from the runs before and after issue 14 (shared belief, then trust_of): routed
    // 24 and 25 of 30 tasks right (80.0%, 83.3%), broadcast 23 and 24 of 30 (76.7%, 80.0%).
    expect(Math.round((separate.rows[0]?.accuracy as number) * 30)).toBe(24);
    expect(Math.round((shared.rows[0]?.accuracy as number) * 30)).toBe(25);
    expect(Math.round((separate.rows[0]?.broadcastAccuracy as number) * 30)).toBe(23);
    expect(Math.round((shared.rows[0]?.broadcastAccuracy as number) * 30)).toBe(24);
  }, 60_000);

  it('adversarial takes a negative first seed: seed i = seed + i', async () => {
    const from = await runAdversarialSeeds({ seed: -3, seeds: 2, taskCount: 2 });
    expect(from.seeds).toEqual([-3, -2]);
    // Seed -2 alone gives the same row as the second seed of the run from -3.
    const alone = await runAdversarialSeeds({ seed: -2, seeds: 1, taskCount: 2 });
    expect(alone.perSeed[0]).toEqual(from.perSeed[1]);
  }, 60_000);
});
