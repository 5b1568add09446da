// Calibration of the simulated agents against real recorded LLM answers (ZeroEval MATH level 5):
// the same statistics on the real population and on a simulated population that mirrors it (same
// agents and clone groups, each agent's accuracy and parse-failure rate), using the simulator's
// default settings. docs/agents.md quotes the table this test prints.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { populationStats, readZeroEvalPopulation, simulatePopulation, type PopulationStats } from './_calibration.js';
import { dataDir } from '../../src/testing/_test-data-dir.js';

const dir = join(dataDir, 'zeroeval-math-l5');

describe.skipIf(!existsSync(join(dir, 'proposals.jsonl')))('simulator calibration on zeroeval-math-l5', () => {
  it('reproduces the spread of accuracy, agreement within and across clone groups, and wrong-answer collisions', async () => {
    const realPopulation = readZeroEvalPopulation(dir);
    const real = populationStats(realPopulation);
    const simulated = populationStats(await simulatePopulation(realPopulation));
    const rows: Array<[string, (stats: PopulationStats) => number, number]> = [
      ['accuracy mean', (stats) => stats.accuracy.mean, 0.02],
      ['accuracy sd', (stats) => stats.accuracy.sd, 0.02],
      ['unparseable share', (stats) => stats.parseFailure, 0.01],
      ['agreement, same clone group', (stats) => stats.agreeSame, 0.04],
      ['agreement, different groups', (stats) => stats.agreeCross, 0.03],
      ['both right or both wrong, same group', (stats) => stats.correctnessAgreeSame, 0.04],
      ['both right or both wrong, different groups', (stats) => stats.correctnessAgreeCross, 0.03],
      ['wrong answers collide, same group', (stats) => stats.wrongCollideSame, 0.05],
      ['wrong answers collide, different groups', (stats) => stats.wrongCollideCross, 0.02],
      ['distinct wrong answers / wrong answers', (stats) => stats.distinctWrongRatio, 0.05],
      ['share of the most common wrong answer', (stats) => stats.topWrongShare, 0.05],
    ];
    console.log(`\n| statistic | real (${real.agents} agents × ${real.tasks} tasks) | simulated |\n|---|---|---|`);
    for (const [label, pick] of rows)
      console.log(`| ${label} | ${pick(real).toFixed(3)} | ${pick(simulated).toFixed(3)} |`);
    console.log(
      `| accuracy min / max | ${real.accuracy.min.toFixed(3)} / ${real.accuracy.max.toFixed(3)} | ${simulated.accuracy.min.toFixed(3)} / ${simulated.accuracy.max.toFixed(3)} |`,
    );
    for (const [label, pick, tolerance] of rows) {
      expect(Math.abs(pick(simulated) - pick(real)), label).toBeLessThanOrEqual(tolerance);
    }
    // The qualitative facts robust methods rely on hold in both: clones agree more than strangers,
    // and their wrong answers collide more often.
    for (const stats of [real, simulated]) {
      expect(stats.agreeSame).toBeGreaterThan(stats.agreeCross + 0.1);
      expect(stats.wrongCollideSame).toBeGreaterThan(2 * stats.wrongCollideCross);
    }
  });
});
