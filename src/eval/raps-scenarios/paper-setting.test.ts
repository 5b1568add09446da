import { describe, expect, it } from 'vitest';
import type { ReplayData } from '../drf-experiments/cost.js';
import { runRapsPaperSetting } from './paper-setting.js';

// Generated fixture: five team models m1..m5 always answer 1 (right); an outside model x answers 7
// (wrong), so 7 is every task's most common wrong answer and the adversaries' coordinated payload.
const models = ['m1', 'm2', 'm3', 'm4', 'm5'];
const fixture: ReplayData = {
  name: 'fixture',
  agents: [...models, 'x'].map((id) => ({ id, model: id })),
  tasks: Array.from({ length: 12 }, (_, index) => ({
    id: `t${index}`,
    kind: 'number' as const,
    prompt: `what is ${index} + 1 - ${index}?`,
    proposals: {
      ...Object.fromEntries(models.map((model) => [model, { answer: '1', correct: true }])),
      x: { answer: '7', correct: false },
    },
  })),
};

describe('RAPS in the paper setting (replayed agents)', () => {
  it('runs the attacked team, the clean team and the honest agents alone on a generated fixture', async () => {
    const result = await runRapsPaperSetting(fixture, { models, seeds: 2, taskCount: 4, split: 'all' });
    expect(result.team.map((agent) => [agent.id, agent.adversarial])).toEqual([
      ['agent-1', false],
      ['agent-2', false],
      ['adv-3', true],
      ['adv-4', true],
      ['adv-5', true],
    ]);
    // every model is right on every task, so a clean team can only decide 1 and the first model alone is right
    expect(result.average.clean.mean).toBe(1);
    expect(result.average.firstHonestAlone.mean).toBe(1);
    expect(result.team.every((agent) => agent.accuracy === 1)).toBe(true);
    // three adversaries publish the same wrong payload (7): plain majority of five is 7 on every task
    expect(result.average.majority.mean).toBe(0);
    for (const row of result.perSeed) {
      expect(row.accuracy).toBeGreaterThanOrEqual(0);
      expect(row.accuracy).toBeLessThanOrEqual(1);
    }
    expect(result.seeds).toEqual([1, 2]);
  });

  it('refuses a model the data does not hold and more tasks than the split has', async () => {
    await expect(
      runRapsPaperSetting(fixture, { models: ['m1', 'm2', 'm3', 'm4', 'nobody'], split: 'all' }),
    ).rejects.toThrow(/nobody/);
    await expect(runRapsPaperSetting(fixture, { models, taskCount: 13, split: 'all' })).rejects.toThrow(
      /taskCount of at most 12/,
    );
  });
});
