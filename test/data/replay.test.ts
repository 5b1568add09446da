// Data suite: the headline replay numbers on the real recorded answers (default command settings).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReplay } from '../../src/eval/replay/run-replay.js';

const dataDir = process.env.REPUTE_DATA_DIR ?? fileURLToPath(new URL('../../../shared/data', import.meta.url));
// Skipped, not failed, where the data directory (or one of the three datasets) is absent.
const hasData = ['zeroeval-math-l5', 'zeroeval-gsm8k', 'mmlu-pro'].every((name) => existsSync(join(dataDir, name)));

describe.skipIf(!hasData)('repute replay on the real data (defaults: 100 tasks, seed 2027, consensus feedback)', () => {
  it('zeroeval-math-l5: minirep has the best attacked accuracy and the most strict wins', async () => {
    const { summary } = await runReplay({ path: join(dataDir, 'zeroeval-math-l5') });
    expect(summary.grid).toMatchObject({ conditions: 116, clean: 4, attacked: 112 });
    expect(summary.data).toMatchObject({ datasetTasks: 721, agents: 40, sampledTasks: 100 });
    const { minirep, ...baselines } = summary.methods;
    expect(Object.keys(baselines).sort()).toEqual(['beta', 'drf', 'eigentrust', 'majority', 'random-k', 'single-metric']);
    for (const [name, baseline] of Object.entries(baselines)) {
      expect(minirep?.attacked, `minirep vs ${name}`).toBeGreaterThan(baseline.attacked);
      expect(minirep?.strictWins, `strict wins minirep vs ${name}`).toBeGreaterThan(baseline.strictWins);
    }
    // The limits bound every method on clean data from above (coverage) and frame the table.
    expect(summary.limits.coverage).toBeGreaterThanOrEqual(summary.limits.bestSingle);
  });

  it('runs unchanged on zeroeval-gsm8k and mmlu-pro, where minirep keeps the best attacked accuracy', async () => {
    for (const name of ['zeroeval-gsm8k', 'mmlu-pro']) {
      const { summary } = await runReplay({ path: join(dataDir, name) });
      expect(summary.grid.conditions).toBe(116);
      const attacked = Object.values(summary.methods).map((method) => method.attacked);
      expect(summary.methods.minirep?.attacked, name).toBe(Math.max(...attacked));
    }
  });
});
