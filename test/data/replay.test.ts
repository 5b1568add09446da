// Data suite: the headline replay numbers on the real recorded answers (default command settings:
// 100 held-out tasks, seed 2027, consensus feedback, the paper's four compositions).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReplay } from '../../src/eval/replay/run-replay.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

// Skipped, not failed, where the data directory (or one of the three datasets) is absent.
const hasData = ['zeroeval-math-l5', 'zeroeval-gsm8k', 'mmlu-pro'].every((name) => existsSync(join(dataDir, name)));

describe.skipIf(!hasData)(
  'repute replay on the real data (defaults: 100 held-out tasks, seed 2027, consensus feedback)',
  () => {
    it('zeroeval-math-l5: paper metrics; minirep has the best attacked accuracy, the lowest loss and the most strict wins', async () => {
      const { summary, rows } = await runReplay({ path: join(dataDir, 'zeroeval-math-l5') });
      expect(summary.schemaVersion).toBe(2);
      expect(summary.grid).toMatchObject({ conditions: 116, clean: 4, attacked: 112 });
      // 721 tasks, 147 of them on the tuning side of FNV-1a(id) % 5 (counted with a separate node one-liner over proposals.jsonl ids).
      expect(summary.data).toMatchObject({ datasetTasks: 721, agents: 40, splitTasks: 574, sampledTasks: 100 });
      const { minirep, ...baselines } = summary.methods;
      expect(Object.keys(baselines).sort()).toEqual([
        'beta',
        'drf',
        'eigentrust',
        'majority',
        'random-k',
        'single-metric',
      ]);
      for (const [name, baseline] of Object.entries(baselines)) {
        expect(minirep?.attacked, `minirep vs ${name}`).toBeGreaterThan(baseline.attacked);
        expect(minirep?.strictWins, `strict wins minirep vs ${name}`).toBeGreaterThan(baseline.strictWins);
        // R_b > 0: MiniRep loses fewer points than every baseline, and R_b is the loss difference.
        expect(summary.retention[name], `R_${name}`).toBeGreaterThan(0);
        expect(summary.retention[name]).toBeCloseTo(baseline.loss - (minirep?.loss ?? 0), 12);
      }
      // Definitional anchor, exact by construction: majority pools every parseable proposal and every
      // payload parses, so a payload enters its pool on every active task (PoolExp = 1).
      expect(summary.methods.majority?.poolExp).toBe(1);
      // PayloadHit can only be counted where a payload entered the pool: PoolExp 0 ⇒ PayloadHit undefined.
      for (const row of rows) if (row.attack !== 'clean' && row.poolExp === 0) expect(row.payloadHit).toBeNull();
      // One seed: 116 conditions × 7 methods.
      expect(rows.length).toBe(116 * 7);
      // The limits bound every method on clean data from above (coverage) and frame the table.
      expect(summary.limits.coverage).toBeGreaterThanOrEqual(summary.limits.bestSingle);
    }, 600_000);

    it('zeroeval-math-l5 over seeds 1..3: minirep’s paired attacked advantage over majority is positive with its interval', async () => {
      const { summary } = await runReplay({ path: join(dataDir, 'zeroeval-math-l5'), seeds: [1, 2, 3] });
      const paired = summary.intervals.paired.majority;
      // Tolerance: none needed for the mean (an exact mean of the per-seed figures); the claim is the
      // sign of the interval's lower end, which held by a wide margin on seed 2027 (7.8 points [6.3, 9.5]).
      expect(paired?.attacked.low).toBeGreaterThan(0);
      expect(paired?.retention.low).toBeGreaterThan(0);
      const attacked = summary.perSeed.reduce((sum, entry) => sum + (entry.methods.minirep?.attacked ?? 0), 0) / 3;
      expect(summary.methods.minirep?.attacked).toBeCloseTo(attacked, 12);
    }, 900_000);

    it('runs unchanged on zeroeval-gsm8k and mmlu-pro, where minirep has the best attacked accuracy on MMLU-Pro and is within 0.5 points of it on GSM8K', async () => {
      for (const name of ['zeroeval-gsm8k', 'mmlu-pro']) {
        const { summary, rows } = await runReplay({ path: join(dataDir, name) });
        expect(summary.grid.conditions).toBe(116);
        expect(rows.every((row) => row.seed === 2027)).toBe(true);
        const attacked = Object.values(summary.methods).map((method) => method.attacked);
        // MMLU-Pro: minirep has the best attacked accuracy. GSM8K (held-out default sample): beta is
        // ahead by 0.11 points (96.09 vs 95.98 with the declared number-zeroeval kind; it was 96.14 vs 96.05
        // with number), so there minirep is only held within 0.5 points of the best.
        const best = Math.max(...attacked);
        if (name === 'mmlu-pro') expect(summary.methods.minirep?.attacked, name).toBe(best);
        else expect(summary.methods.minirep?.attacked, name).toBeGreaterThanOrEqual(best - 0.005);
      }
    }, 900_000);
  },
);
