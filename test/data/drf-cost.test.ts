import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/eval/proposals/load-dataset.js';
import { runCostExperiment, type CostExperimentResult } from '../../src/eval/drf-experiments/cost.js';
import { drfReviewConfig } from '../../src/eval/drf-experiments/drf-config.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

const directory = join(dataDir, 'zeroeval-math-l5');

describe.skipIf(!existsSync(directory))('repute drf cost on zeroeval-math-l5', () => {
  let result: CostExperimentResult;
  const models = () =>
    (
      JSON.parse(readFileSync(join(directory, 'models.json'), 'utf8')) as {
        models: Array<{ model: string; n_items: number; n_correct: number }>;
      }
    ).models;

  beforeAll(async () => {
    result = await runCostExperiment(await loadDataset(directory), {
      seeds: 2,
      split: 'all',
      strict: true,
      configs: [drfReviewConfig],
      teamSizes: [3, 4, 5],
    });
  });

  it('picks the 10 agents at evenly spaced accuracy ranks among agents with all 721 answers (second method: models.json counts)', () => {
    // models.json lists n_items and n_correct per agent; rank full-coverage agents by n_correct and take
    // ranks round(i·(n − 1)/9), i = 0..9, as the experiment states.
    const full = models()
      .filter((entry) => entry.n_items === 721)
      .sort((left, right) => right.n_correct - left.n_correct || (left.model < right.model ? -1 : 1));
    const expected = Array.from({ length: 10 }, (_, index) => full[Math.round((index * (full.length - 1)) / 9)]?.model);
    expect(result.pool.map((entry) => entry.agentId)).toEqual(expected);
    // o1-mini: 644 of 721 correct in models.json.
    expect(result.bestSingle.agentId).toBe('o1-mini-2024-09-12');
    expect(result.bestSingle.accuracy).toBeCloseTo(644 / 721, 3);
  });

  it('full-team plurality agrees with a raw-string plurality computed here within 2 points', () => {
    // Ties among the most-voted answers are broken in a seeded order that knows no labels (issue 41;
    // before, the pool order handed them to the better-ranked agent), so each tied answer wins with
    // equal chance: a task counts (correct tied answers) / (tied answers).
    const ids = result.pool.map((entry) => entry.agentId);
    const lines = readFileSync(join(directory, 'proposals.jsonl'), 'utf8').trim().split('\n');
    let correct = 0;
    for (const line of lines) {
      const row = JSON.parse(line) as { proposals: Record<string, { answer: string | null; correct: boolean }> };
      const counts = new Map<string, { votes: number; correct: boolean }>();
      for (const agentId of ids) {
        const proposal = row.proposals[agentId];
        if (!proposal || proposal.answer === null) continue;
        const entry = counts.get(proposal.answer) ?? { votes: 0, correct: false };
        counts.set(proposal.answer, { votes: entry.votes + 1, correct: entry.correct || proposal.correct });
      }
      const most = Math.max(0, ...[...counts.values()].map((entry) => entry.votes));
      const top = [...counts.values()].filter((entry) => entry.votes === most);
      if (top.length > 0) correct += top.filter((entry) => entry.correct).length / top.length;
    }
    const fullTeam = result.rows.find((row) => row.method === 'full team, plurality');
    expect(Math.abs((fullTeam?.accuracy.mean ?? 0) - correct / lines.length)).toBeLessThan(0.02);
  });

  it('counts k + k(k − 1) calls per task for DRF and fewer agents under the strict filter', () => {
    const row = (method: string) => result.rows.find((item) => item.method === method);
    expect(row('DRF k=3, review (default)')?.callsPerTask).toBe(9);
    expect(row('DRF k=4, review (default)')?.callsPerTask).toBe(16);
    expect(row('DRF k=5, review (default)')?.callsPerTask).toBe(25);
    expect(row('full team, plurality')?.callsPerTask).toBe(10);
    // share of the full team's 10 calls: 9/10, 16/10
    expect(row('DRF k=3, review (default)')?.callShare).toBeCloseTo(0.9, 12);
    expect(row('DRF k=4, review (default)')?.callShare).toBeCloseTo(1.6, 12);
    // Before issue 14 (β in Eq. 7, ÷ w0) the strict filter shrank the team to about one agent; with
    // the review's equations the δ = 0.7 increment outweighs the β = 0.2 decay and the team of 3 stays.
    expect(row('DRF k=3, strict filter, review (default)')?.meanTeamSize).toBeLessThanOrEqual(3);
    expect(row('DRF k=3, strict filter, review (default)')?.meanTeamSize).toBeGreaterThan(2.5);
  });
});
