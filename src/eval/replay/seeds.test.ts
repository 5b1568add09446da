import { describe, expect, it } from 'vitest';
import { summarise } from './metrics.js';
import { combineSeeds } from './seeds.js';
import type { Condition, ConditionResult, MethodRun } from './types.js';
import { methodRun } from '../../testing/_test-replay-grid.js';

const team = ['a', 'b', 'c'];
const conditions: Condition[] = [
  { index: 0, id: 'all-strong/clean', composition: 'all-strong', placement: null, attack: null, team, attackers: [] },
  {
    index: 1,
    id: 'all-strong/B/RAND',
    composition: 'all-strong',
    placement: 'B',
    attack: 'RAND',
    team,
    attackers: ['a'],
  },
];
const run = (f1: number[], extra: Parameters<typeof methodRun>[2] = {}) =>
  methodRun('majority', f1, { active: f1.map(() => 1), ...extra });
const seed = (attacked: MethodRun): ReturnType<typeof summarise> => {
  const results: ConditionResult[] = [
    { index: 0, missing: 0, runs: [run([1, 1])] },
    { index: 1, missing: 0, runs: [attacked] },
  ];
  return summarise({ conditions, results, descriptions: {} });
};

describe('combineSeeds', () => {
  it('averages a metric over the seeds that define it, and leaves it null when none does', () => {
    // Seed 1: payloads entered the pool on 2 tasks and one decision matched: PayloadHit 1/2.
    // Seed 2: no payload entered the pool: PayloadHit undefined (null), left out, not a 0.
    const first = seed(run([1, 0], { poolExpTasks: 2, payloadHitTasks: 1 }));
    const second = seed(run([1, 1]));
    expect(second.methods.majority?.payloadHit).toBeNull();
    const combined = combineSeeds([first, second]);
    expect(combined.methods.majority?.payloadHit).toBe(0.5);
    // PoolExp is defined on both (2/2 = 1 and 0/2 = 0): (1 + 0) / 2.
    expect(combined.methods.majority?.poolExp).toBe(0.5);
    // NextExcl: no eligible task in either seed.
    expect(combined.methods.majority?.nextExcl).toBeNull();
    // Accuracy is always defined: attacked (0.5 + 1) / 2 = 0.75.
    expect(combined.methods.majority?.attacked).toBe(0.75);
  });
});
