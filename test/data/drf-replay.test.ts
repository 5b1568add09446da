// Real-data check of `repute drf replay`: DRF's quality/efficiency claim on replayed GSM8K answers.
// Run: npm run test:data
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/eval/proposals/load-dataset.js';
import { runCostExperiment, type CostExperimentResult } from '../../src/eval/drf-experiments/cost.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

const directory = join(dataDir, 'zeroeval-gsm8k');

// FNV-1a, 32 bit, written out again here as a second method for the declared split.
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

describe.skipIf(!existsSync(directory))('repute drf replay gsm8k', () => {
  let result: CostExperimentResult;
  const ids = () =>
    readFileSync(join(directory, 'proposals.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);

  beforeAll(async () => {
    result = await runCostExperiment(await loadDataset(directory), { seeds: 2, teamSizes: [2, 3] });
  }, 600_000);

  it('runs on the held-out tasks only: FNV-1a(id) % 5 != 0, counted here from the raw file', () => {
    const heldout = ids().filter((id) => fnv1a(id) % 5 !== 0).length;
    expect(result.settings.taskCount).toBe(heldout);
    expect(heldout).toBeGreaterThan(0.7 * ids().length);
  });

  it('states accuracy relative to the full team and the share of its 10 calls', () => {
    const full = result.rows.find((row) => row.method === 'full team, plurality');
    const k2 = result.rows.find((row) => row.method === 'DRF k=2, review (default)');
    const k3 = result.rows.find((row) => row.method === 'DRF k=3, review (default)');
    expect(full?.callShare).toBe(1);
    // k = 2: 2 proposals + 2 ratings = 4 of 10 calls; k = 3: 3 + 6 = 9 of 10; batched k = 3: 3 + 3 = 6
    expect(k2?.callShare).toBeCloseTo(0.4, 12);
    expect(k3?.callShare).toBeCloseTo(0.9, 12);
    expect(k3?.batchedCallShare).toBeCloseTo(0.6, 12);
    // relative accuracy is the per-seed ratio. The full team sees the same tasks on every seed and
    // differs only in how its (seeded) ties fall (about a point across seeds), so the mean of the ratios
    // stays within 1e-4 of the ratio of the means.
    expect(k2?.relativeAccuracy.mean).toBeCloseTo((k2?.accuracy.mean ?? 0) / (full?.accuracy.mean ?? 1), 4);
    // the verdict lists exactly the k ≤ 5 rows with ≥ 98% relative accuracy at ≤ 50% of the calls
    const expected = result.rows
      .filter(
        (row) =>
          row.method.startsWith('DRF') &&
          row.teamSize <= 5 &&
          row.relativeAccuracy.mean >= 0.98 &&
          row.callShare <= 0.5,
      )
      .map((row) => row.method);
    expect(result.claim.rows).toEqual(expected);
    expect(result.claim.holds).toBe(expected.length > 0);
  });
});
