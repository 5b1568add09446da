import { describe, expect, it } from 'vitest';
import { drfTeamForBudget, dylanTeamForBudget, ratedTeamCalls, runBudgetExperiment } from './budget.js';
import { runCostExperiment, type ReplayData } from './cost.js';
import { formatBudgetTable } from './format.js';

// Generated fixture: a and c always answer 1 (right), b answers 1 on even tasks and 2 on odd ones,
// d always answers 9 (wrong). The full team's plurality is 1 on every task.
const fixture: ReplayData = {
  name: 'fixture',
  agents: ['a', 'b', 'c', 'd'].map((id) => ({ id, model: id })),
  tasks: Array.from({ length: 20 }, (_, index) => ({
    id: `t${index}`,
    kind: 'number' as const,
    proposals: {
      a: { answer: '1', correct: true },
      b: { answer: index % 2 === 0 ? '1' : '2', correct: index % 2 === 0 },
      c: { answer: '1', correct: true },
      d: { answer: '9', correct: false },
    },
  })),
};

describe('call budgets', () => {
  it('counts a rated team batched (2k) or per rating (k²) and fits teams to budgets (by hand)', () => {
    expect(ratedTeamCalls(3, 'batched')).toBe(6);
    expect(ratedTeamCalls(3, 'every')).toBe(9);
    expect(ratedTeamCalls(1, 'every')).toBe(1);
    // batched: 2k ≤ B → B = 3: none, B = 4: 2, B = 9: 4; every: k² ≤ B → B = 8: 2, B = 9: 3
    expect(drfTeamForBudget(3, 10, 'batched')).toBe(0);
    expect(drfTeamForBudget(4, 10, 'batched')).toBe(2);
    expect(drfTeamForBudget(9, 10, 'batched')).toBe(4);
    expect(drfTeamForBudget(8, 10, 'every')).toBe(2);
    expect(drfTeamForBudget(9, 10, 'every')).toBe(3);
    // DyLAN-style: (W·2n + (T − W)·m) / T ≤ B; n = 4, W = 2, T = 20: (16 + 18m)/20 ≤ 3 → m ≤ 2.44 → 2
    expect(dylanTeamForBudget(3, { poolSize: 4, warmup: 2, taskCount: 20, counting: 'batched' })).toBe(2);
    // n = 10, W = 20, T = 574, B = 4: (400 + 554m)/574 ≤ 4 → m ≤ 3.42 → 3
    expect(dylanTeamForBudget(4, { poolSize: 10, warmup: 20, taskCount: 574, counting: 'batched' })).toBe(3);
    // the warm-up alone over budget: nothing fits
    expect(dylanTeamForBudget(1, { poolSize: 4, warmup: 20, taskCount: 20, counting: 'batched' })).toBe(0);
  });

  it('compares DRF with majority, debate-style and DyLAN-style at equal budgets on a generated fixture', async () => {
    const result = await runBudgetExperiment(fixture, {
      seeds: 3,
      poolSize: 4,
      budgets: [3, 4],
      warmup: 2,
      split: 'all',
    });
    expect(result.fullTeam.mean).toBe(1);
    const row = (budget: number, method: string, rating: string) =>
      result.rows.find((entry) => entry.budget === budget && entry.method === method && entry.rating === rating);
    // DyLAN-style at B = 3: the warm-up ranks a and c first (d is rated 0 by all, b 0 by three on odd
    // tasks), so m = 2 answers 1 everywhere: accuracy 1, calls (16 + 18·2)/20 = 2.6
    const dylan = row(3, 'dylan', 'agreement');
    expect(dylan?.agents).toBe(2);
    expect(dylan?.callsPerTask).toBeCloseTo(2.6, 12);
    expect(dylan?.accuracyRatio?.mean).toBe(1);
    expect(dylan?.meetsOurClaim).toBe(false); // 2.6 / 4 = 65% of the calls
    // DRF: no team of 2 fits 3 calls; at B = 4 k = 2 with 4 calls per round
    expect(row(3, 'drf', 'judge')?.accuracy).toBeNull();
    expect(row(3, 'drf', 'judge')?.agents).toBe(0);
    expect(row(4, 'drf', 'agreement')?.callsPerTask).toBe(4);
    // majority with m = n is the full team exactly; debate-style spends two calls per agent
    expect(row(4, 'majority', 'none')?.accuracyRatio?.mean).toBe(1);
    expect(row(4, 'llm-debate', 'none')?.agents).toBe(2);
    expect(row(4, 'llm-debate', 'none')?.callsPerTask).toBe(4);
    expect(formatBudgetTable(result)).toMatch(/none fits/);
    await expect(runBudgetExperiment(fixture, { seeds: 2, poolSize: 4, budgets: [0] })).rejects.toThrow(/budgets\[0\]/);
  });

  it('does not hand a plurality tie to the agent ranked better by dataset accuracy', async () => {
    // Generated fixture: two agents that never agree; r is right on every task, w on none. The pool
    // ranks r first (accuracy 1). Every plurality of both is a 1-1 tie, so a tie order that does not
    // know the labels makes the full team right on about half of the 40 tasks (binomial sd 3.2
    // tasks, so 0.3..0.7 is ±6 sd); the pool order (before issue 41) made it right on all 40.
    const ties: ReplayData = {
      name: 'ties',
      agents: ['w', 'r'].map((id) => ({ id, model: id })),
      tasks: Array.from({ length: 40 }, (_, index) => ({
        id: `t${index}`,
        kind: 'number' as const,
        proposals: { r: { answer: '1', correct: true }, w: { answer: '2', correct: false } },
      })),
    };
    const budget = await runBudgetExperiment(ties, { seeds: 2, poolSize: 2, budgets: [2], warmup: 0, split: 'all' });
    expect(budget.fullTeam.mean).toBeGreaterThan(0.3);
    expect(budget.fullTeam.mean).toBeLessThan(0.7);
    // majority of m = 2 = the full team, with the same tie order
    expect(budget.rows.find((row) => row.method === 'majority')?.accuracyRatio?.mean).toBe(1);
    const cost = await runCostExperiment(ties, { seeds: 2, poolSize: 2, teamSizes: [2], split: 'all' });
    const full = cost.rows.find((row) => row.method === 'full team, plurality');
    expect(full?.accuracy.mean).toBeGreaterThan(0.3);
    expect(full?.accuracy.mean).toBeLessThan(0.7);
  });
});
