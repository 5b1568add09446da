import { describe, expect, it } from 'vitest';
import { runZoo, seedInterval, type ZooSummary } from './run-zoo.js';
import { formatZooTable, summariseZoo } from './summarise-zoo.js';
import { formatZooHtml } from './report-zoo-html.js';

describe('runZoo', () => {
  it('runs the issue teams and every profile, clean and attacked, with the best member', async () => {
    const progress: number[] = [];
    const summary = await runZoo({
      sizes: [3, 5],
      profiles: ['flat', 'always-wrong'],
      seeds: [1, 2],
      tasks: 30,
      methods: ['majority', 'minirep'],
      onProgress: (done, total) => progress.push(done / total),
    });
    // 3 issue teams + 2 profiles × 2 sizes = 7 teams, each on both seeds.
    expect(summary.rows).toHaveLength(7);
    expect(progress).toHaveLength(14);
    expect(progress.at(-1)).toBe(1);
    for (const row of summary.rows) {
      expect(row.seeds).toEqual([1, 2]);
      for (const method of ['majority', 'minirep']) {
        for (const value of [...(row.clean[method] ?? []), ...(row.attacked[method] ?? [])]) {
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
        }
      }
    }
    // The issue teams hold an agent that is always right.
    const issue = summary.rows.filter((row) => row.shape.startsWith('issue-'));
    expect(issue.map((row) => row.bestMember)).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    const table = formatZooTable(summary);
    expect(table).toContain('simulated issue-4 n=4');
    expect(formatZooHtml(summary)).toContain('<td>simulated flat n=5</td>');
  }, 60_000);

  it('gives the same figures for the same seed, and runs with no attack', async () => {
    const options = {
      sizes: [4],
      profiles: ['flat' as const],
      seeds: [7],
      tasks: 20,
      methods: ['majority', 'beta', 'minirep'],
      attacks: [] as [],
    };
    const first = await runZoo(options);
    expect(await runZoo(options)).toEqual(first);
    const row = first.rows.find((entry) => entry.shape === 'issue-3-weak');
    // issue-3-weak: right 100%, 80%, 35%: the best member is 100%; no attack, so no attacked figure.
    expect(row?.bestMember).toEqual([1]);
    expect(row?.attacked.minirep).toEqual([0]);
  }, 60_000);

  it('refuses unknown sizes, shapes, attacks and feedback before any work', async () => {
    await expect(runZoo({ sizes: [2] })).rejects.toThrow(/team sizes must be integers >= 3/);
    await expect(runZoo({ attacks: ['NOPE' as 'RAND'] })).rejects.toThrow(/unknown attack "NOPE"/);
    await expect(runZoo({ profiles: ['odd' as 'flat'] })).rejects.toThrow(/unknown simulated profile/);
    await expect(runZoo({ feedback: 'verifier' as 'truth' })).rejects.toThrow(/consensus or truth/);
    await expect(runZoo({ bogus: 1 } as object)).rejects.toThrow(/bogus/);
  });
});

describe('seedInterval and summariseZoo', () => {
  it('takes means over seeds and teams, and the worst gap to majority', () => {
    expect(seedInterval([0.5])).toEqual({ mean: 0.5, low: 0.5, high: 0.5 });
    const constant = seedInterval([0.25, 0.25, 0.25]);
    expect(constant).toEqual({ mean: 0.25, low: 0.25, high: 0.25 });
    const spread = seedInterval([0, 1]);
    expect(spread.mean).toBe(0.5);
    expect(spread.low).toBeGreaterThanOrEqual(0);
    expect(spread.high).toBeLessThanOrEqual(1);
    const summary: ZooSummary = {
      schemaVersion: 1,
      seeds: [1, 2],
      split: 'heldout',
      tasks: 10,
      feedback: 'consensus',
      attacks: ['STRONG'],
      methods: ['majority', 'minirep'],
      rows: [
        {
          source: 's',
          shape: 'a',
          size: 3,
          seeds: [1, 2],
          clean: { majority: [0.8, 0.6], minirep: [0.7, 0.6] },
          attacked: { majority: [0.2, 0.4], minirep: [0.6, 0.8] },
          bestMember: [0.9, 0.9],
        },
        {
          source: 's',
          shape: 'b',
          size: 4,
          seeds: [1, 2],
          clean: { majority: [0.5, 0.5], minirep: [0.6, 0.6] },
          attacked: { majority: [0, 0], minirep: [0.4, 0.2] },
          bestMember: [0.7, 0.7],
        },
      ],
    };
    const headline = summariseZoo(summary);
    // clean per seed: majority (0.8 + 0.5)/2 = 0.65, (0.6 + 0.5)/2 = 0.55 → 0.6; minirep 0.65, 0.6 → 0.625.
    expect(headline.clean.majority?.mean).toBeCloseTo(0.6, 12);
    expect(headline.clean.minirep?.mean).toBeCloseTo(0.625, 12);
    // attacked: majority 0.1, 0.2 → 0.15; minirep 0.5, 0.5 → 0.5; paired differences 0.4 and 0.3, mean
    // 0.35; resamples of two seeds draw both from one seed a quarter of the time each, so the 2.5% and
    // 97.5% quantiles are 0.3 and 0.4.
    expect(headline.attacked.minirep?.mean).toBeCloseTo(0.5, 12);
    expect(headline.attackedVsBestOther.minirep).toEqual({
      against: 'majority',
      difference: { mean: expect.closeTo(0.35, 12), low: expect.closeTo(0.3, 12), high: expect.closeTo(0.4, 12) },
    });
    // Team a: minirep 0.65 vs majority 0.7: −0.05, more than 1 point below; team b: +0.1.
    expect(headline.worstVsMajority.minirep).toEqual({ gap: expect.closeTo(-0.05, 12), team: 's a n=3' });
    expect(headline.belowMajority).toEqual({ majority: 0, minirep: 1 });
  });

  it('counts the teams below majority and below the better learner, by the mean and beyond seed noise', () => {
    const team = (shape: string, clean: Record<string, number[]>) => ({
      source: 's',
      shape,
      size: 3,
      seeds: [1, 2],
      clean,
      attacked: Object.fromEntries(Object.keys(clean).map((method) => [method, [0, 0]])),
      bestMember: [1, 1],
    });
    const summary: ZooSummary = {
      schemaVersion: 1,
      seeds: [1, 2],
      split: 'heldout',
      tasks: 10,
      feedback: 'consensus',
      attacks: ['STRONG'],
      methods: ['majority', 'single-metric', 'beta', 'minirep'],
      rows: [
        // Team a: single-metric (0.8) is the better learner (beta 0.75). minirep − single-metric per
        // seed is −0.04 and 0: mean −0.02, below; a resample of two seeds is (−0.04, −0.02, 0) with
        // probability (¼, ½, ¼), so the interval's upper end is 0: not clearly below.
        team('a', {
          majority: [0.7, 0.7],
          'single-metric': [0.8, 0.8],
          beta: [0.6, 0.9],
          minirep: [0.76, 0.8],
        }),
        // Team b: minirep is 0.03 below majority and 0.13 below beta on both seeds: clearly below both.
        team('b', { majority: [0.5, 0.5], 'single-metric': [0.4, 0.4], beta: [0.6, 0.6], minirep: [0.47, 0.47] }),
      ],
    };
    const headline = summariseZoo(summary);
    expect(headline.belowMajority).toEqual({ majority: 0, 'single-metric': 1, beta: 0, minirep: 1 });
    expect(headline.clearlyBelowMajority).toEqual({ majority: 0, 'single-metric': 1, beta: 0, minirep: 1 });
    // beta on team a: −0.2 and +0.1 against single-metric, mean −0.05 (below), upper end +0.1 (not clearly).
    expect(headline.belowLearners).toEqual({
      majority: { teams: 2, clearly: 2 },
      'single-metric': { teams: 1, clearly: 1 },
      beta: { teams: 1, clearly: 0 },
      minirep: { teams: 2, clearly: 1 },
    });
    expect(formatZooTable(summary)).toContain('2 > 1 point below max(single-metric, beta) (1 clearly)');
    const withoutLearners = summariseZoo({
      ...summary,
      methods: ['majority', 'minirep'],
    });
    expect(withoutLearners.belowLearners).toBeUndefined();
  });
});
