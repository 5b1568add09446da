// Data suite: issue 9's "paper setting" on the real MATH-L5 answers: the simulated verifier
// (sensitivity 0.85, specificity 0.8) judges every proposal, MiniRep excludes proposals judged wrong
// before aggregation, and every stateful method learns from the same verdicts.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReplay } from '../../src/eval/replay/run-replay.js';

const dataDir = process.env.REPUTE_DATA_DIR ?? fileURLToPath(new URL('../../../shared/data', import.meta.url));

describe('repute replay --verifier simulated --verifier-sensitivity 0.85 --verifier-specificity 0.8 (MATH-L5, default sample)', () => {
  it('gives minirep at least the 84 strict wins of 112 the paper reports, and the best attacked and clean accuracy', async () => {
    const { summary } = await runReplay({
      path: join(dataDir, 'zeroeval-math-l5'),
      verifier: 'simulated',
      verifierSensitivity: 0.85,
      verifierSpecificity: 0.8,
    });
    expect(summary.options.feedback).toBe('verifier');
    const { minirep, ...baselines } = summary.methods;
    // Measured on seed 2027 before the paper's attack schedules landed: 102 wins, attacked 72.5, clean 79.0 (docs/replay.md).
    expect(minirep?.strictWins).toBeGreaterThanOrEqual(84);
    for (const [name, baseline] of Object.entries(baselines)) {
      expect(minirep?.attacked, `attacked minirep vs ${name}`).toBeGreaterThan(baseline.attacked);
      expect(minirep?.clean, `clean minirep vs ${name}`).toBeGreaterThan(baseline.clean);
    }
  });
});
