// Data suite: issue 9's "paper setting" on the real MATH-L5 answers: the simulated verifier
// (sensitivity 0.85, specificity 0.8) judges every proposal, MiniRep excludes proposals judged wrong
// before aggregation, and every stateful method learns from the same verdicts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReplay } from '../../src/eval/replay/run-replay.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

describe('repute replay --seeds 1..10 --verifier simulated --verifier-sensitivity 0.85 --verifier-specificity 0.8 (MATH-L5, held-out)', () => {
  it('meets issue 9 in the paper setting (≥ 84 strict wins, all-strong ≥ 24 and 7s3w ≥ 26 of 28, paired loss ≤ 4.8 points)', async () => {
    const { summary } = await runReplay({
      path: join(dataDir, 'zeroeval-math-l5'),
      seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      verifier: 'simulated',
      verifierSensitivity: 0.85,
      verifierSpecificity: 0.8,
    });
    expect(summary.options.feedback).toBe('verifier');
    expect(summary.options.split).toBe('heldout');
    const { minirep, ...baselines } = summary.methods;
    // The targets are issue 9's (the paper reports 84 strict wins and a loss of 4.80 points); the run
    // behind docs/minirep.md (commit 0859c21, the bloc check exempting verified agreement) measured
    // 108.2 wins, all-strong 26.8, 7s3w 26.2 and a loss of 4.632, with EigenTrust and DRF learning
    // from the verdicts too. 7s3w is pinned at the 26, just below the measured 26.2 (25.5
    // before the exemption).
    expect(minirep?.strictWins).toBeGreaterThanOrEqual(84);
    expect(summary.byComposition['all-strong']?.minirep?.strictWins).toBeGreaterThanOrEqual(24);
    expect(summary.byComposition['7s3w']?.minirep?.strictWins).toBeGreaterThanOrEqual(26);
    // EigenTrust and DRF receive the verdicts: with agreement ratings alone EigenTrust's clean accuracy was 65.9.
    expect(baselines.eigentrust?.clean).toBeGreaterThan(0.66);
    // Measured 0.04632; the bound is 0.048.
    expect(minirep?.loss).toBeLessThanOrEqual(0.047);
    for (const [name, baseline] of Object.entries(baselines)) {
      expect(minirep?.attacked, `attacked minirep vs ${name}`).toBeGreaterThan(baseline.attacked);
      expect(minirep?.clean, `clean minirep vs ${name}`).toBeGreaterThan(baseline.clean);
    }
  }, 1_800_000);
});
