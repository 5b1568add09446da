// Real-data checks of issue 41's experiments: the GPT-4o-mini-class teams of `repute raps adversarial
// --setting paper` and DRF against the baselines at equal budgets (`repute drf replay`). Run: npm run test:data
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBudgetExperiment } from '../../src/eval/drf-experiments/budget.js';
import { loadDataset } from '../../src/eval/proposals/load-dataset.js';
import { rapsPaperModels, runRapsPaperSetting } from '../../src/eval/raps-scenarios/paper-setting.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

const gsm8k = join(dataDir, 'zeroeval-gsm8k');
const mmluPro = join(dataDir, 'mmlu-pro');

/** Accuracy per model from the dataset's own models.json (a second source beside the replay). */
function accuracies(directory: string): Map<string, number> {
  const parsed = JSON.parse(readFileSync(join(directory, 'models.json'), 'utf8')) as unknown;
  const list = (Array.isArray(parsed) ? parsed : ((parsed as { models?: unknown }).models ?? parsed)) as
    | Array<{ model?: string; name?: string; accuracy: number }>
    | Record<string, { accuracy: number }>;
  const entries = Array.isArray(list)
    ? list.map((entry) => [entry.model ?? entry.name ?? '', entry.accuracy] as const)
    : Object.entries(list).map(([name, entry]) => [name, entry.accuracy] as const);
  return new Map(entries);
}

describe.skipIf(!existsSync(gsm8k))('RAPS paper setting on GSM8K', () => {
  it('the team is gpt-4o-mini and models within 1 point of it (models.json)', () => {
    const table = accuracies(gsm8k);
    const mini = table.get('gpt-4o-mini-2024-07-18') as number;
    expect(mini).toBeCloseTo(0.942, 3);
    for (const model of rapsPaperModels.gsm8k) expect(Math.abs((table.get(model) as number) - mini)).toBeLessThan(0.01);
  });

  it('runs 3 of 5 adversarial on replayed agents: the clean team is above the attacked majority', async () => {
    const result = await runRapsPaperSetting(await loadDataset(gsm8k), {
      models: rapsPaperModels.gsm8k,
      seeds: 2,
      taskCount: 8,
    });
    expect(result.average.majority.mean).toBe(0);
    expect(result.average.clean.mean).toBeGreaterThan(0.8);
  }, 600_000);
});

describe.skipIf(!existsSync(mmluPro))('RAPS paper setting on MMLU-Pro', () => {
  it('the team models are recorded and the honest pair is within 0.63–0.64 (models.json)', () => {
    const table = accuracies(mmluPro);
    for (const model of rapsPaperModels['mmlu-pro']) expect(table.has(model)).toBe(true);
    for (const model of rapsPaperModels['mmlu-pro'].slice(0, 2)) {
      expect(table.get(model)).toBeGreaterThan(0.62);
      expect(table.get(model)).toBeLessThan(0.65);
    }
  });
});

describe.skipIf(!existsSync(gsm8k))('DRF against the baselines at equal budgets on GSM8K', () => {
  it('fits k = 2 to a budget of 4 calls and no DRF team to 3; the full-team majority is the reference', async () => {
    const result = await runBudgetExperiment(await loadDataset(gsm8k), { seeds: 2, budgets: [3, 4, 10], tasks: 60 });
    const drf = (budget: number) => result.rows.find((row) => row.method === 'drf' && row.budget === budget);
    expect(drf(3)?.accuracy).toBeNull();
    expect(drf(4)?.agents).toBe(2);
    expect(result.rows.find((row) => row.method === 'majority' && row.budget === 10)?.accuracyRatio?.mean).toBe(1);
  }, 600_000);
});
