// Data suite: issue 9's label-free setting on the real MATH-L5 answers (consensus feedback, no
// verifier, held-out tasks, seeds 1..10), with the paper's MiniRep and our MiniRep-DS side by side.
// Strict wins are recounted here from the per-condition rows against the six baselines only, so the
// two MiniReps do not compete with each other (a second computation of the summary's figure).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReplay } from '../../src/eval/replay/run-replay.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

const baselines = ['majority', 'random-k', 'single-metric', 'beta', 'eigentrust', 'drf'];

describe('repute replay --seeds 1..10 (MATH-L5, held-out, label-free) with minirep and minirep-ds', () => {
  it('MiniRep-DS wins more conditions than MiniRep and stays within a point of the best baseline clean outside all-strong', async () => {
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const { summary, rows } = await runReplay({
      path: join(dataDir, 'zeroeval-math-l5'),
      seeds,
      methods: [...baselines, 'minirep', 'minirep-ds'],
    });
    expect(summary.options.feedback).toBe('consensus');
    expect(summary.options.split).toBe('heldout');
    // accuracy[seed/condition][method]
    const byCondition = new Map<string, Map<string, number>>();
    for (const row of rows) {
      const key = `${row.seed}/${row.condition}`;
      let methods = byCondition.get(key);
      if (methods === undefined) byCondition.set(key, (methods = new Map()));
      methods.set(row.method, row.accuracy);
    }
    const winsOverBaselines = (method: string): number => {
      let wins = 0;
      for (const [key, methods] of byCondition) {
        if (key.endsWith('/clean')) continue;
        const mine = methods.get(method) as number;
        if (baselines.every((name) => mine > (methods.get(name) as number) + 1e-12)) wins++;
      }
      return wins / seeds.length;
    };
    const ds = winsOverBaselines('minirep-ds');
    const paper = winsOverBaselines('minirep');
    // docs/minirep.md: 47.1 for minirep-ds (48.2 before its bloc-size rule) and 41.3 for minirep
    // (issue 9's label-free target of 70 is not met).
    expect(ds).toBeGreaterThanOrEqual(45);
    expect(ds - paper).toBeGreaterThanOrEqual(4);
    const clean = (composition: string, method: string): number =>
      summary.byComposition[composition]?.[method]?.clean as number;
    // Measured: all-weak −0.3, 7s3w −0.2, random +1.0 points against the best baseline; all-strong −2.3 (a shortfall).
    for (const composition of ['all-weak', '7s3w', 'random']) {
      const best = Math.max(...baselines.map((name) => clean(composition, name)));
      expect(clean(composition, 'minirep-ds'), composition).toBeGreaterThanOrEqual(best - 0.01);
    }
    for (const name of baselines)
      expect(summary.methods['minirep-ds']?.attacked, `attacked minirep-ds vs ${name}`).toBeGreaterThan(
        summary.methods[name]?.attacked as number,
      );
  }, 1_800_000);

  it('in the 40-agent pool (seeds 1..3) MiniRep-DS has clean >= 80 and the best attacked accuracy', async () => {
    const { summary } = await runReplay({
      path: join(dataDir, 'zeroeval-math-l5'),
      seeds: [1, 2, 3],
      compositions: ['pool'],
      methods: [...baselines, 'minirep-ds'],
    });
    const ds = summary.methods['minirep-ds'];
    // docs/minirep.md, "The whole pool (item 6)": clean 80.7 (75.3 before the bloc-size rule), attacked 69.5.
    expect(ds?.clean).toBeGreaterThanOrEqual(0.8);
    expect(ds?.attacked).toBeGreaterThanOrEqual(0.69);
    for (const name of baselines)
      expect(ds?.attacked, `attacked minirep-ds vs ${name}`).toBeGreaterThan(summary.methods[name]?.attacked as number);
  }, 1_800_000);
});
