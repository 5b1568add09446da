import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', 'raps', ...args], { cwd: root });

describe('repute raps', () => {
  it('code-review --json isolates the hallucinating reviewer and keeps only grounded consensus findings', async () => {
    const { stdout } = await cli('code-review', '--json');
    const review = JSON.parse(stdout);
    expect(Object.keys(review)).toEqual(['reviews', 'consensus_findings']);
    expect(review.reviews.map((entry: { agent: string; status: string }) => `${entry.agent}:${entry.status}`)).toEqual([
      'security:trusted',
      'performance:isolated',
      'style:trusted',
      'test-coverage:trusted',
      'architecture:trusted',
    ]);
    for (const entry of review.reviews)
      expect(Object.keys(entry)).toEqual(['agent', 'reputation', 'findings', 'status']);
    // 2 security + 2 style + 3 test-coverage + 2 architecture findings, none from performance.
    expect(review.consensus_findings).toHaveLength(9);
    expect(review.consensus_findings.some((finding: { category: string }) => finding.category === 'performance')).toBe(
      false,
    );
    expect(
      review.consensus_findings.find(
        (finding: { category: string; line: number }) => finding.category === 'security' && finding.line === 5,
      ).message,
    ).toMatch(/SQL injection/);
  }, 60_000);

  it('adversarial --json reports accuracy, the honest-only ceiling and the team view per seed and on average', async () => {
    const { stdout } = await cli('adversarial', '--json', '--tasks', '8', '--seed', '11', '--seeds', '2');
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      scenario: 'adversarial',
      seed: 11,
      seeds: [11, 12],
      tasks: 8,
      tau: 0.4,
      transport: 'inproc',
      witnessCredibility: 'separate',
    });
    expect(typeof summary.accuracy).toBe('number');
    expect(typeof summary.honestOnly).toBe('number');
    expect(summary.perSeed).toHaveLength(2);
    // the averages are the means of the per-seed rows
    expect(summary.accuracy).toBeCloseTo((summary.perSeed[0].accuracy + summary.perSeed[1].accuracy) / 2, 12);
    expect(summary.honestOnly).toBeCloseTo(
      (summary.perSeed[0].honestOnlyAccuracy + summary.perSeed[1].honestOnlyAccuracy) / 2,
      12,
    );
    for (const row of summary.perSeed) {
      expect(row.accuracy).toBeGreaterThan(row.majorityAccuracy);
      for (const key of ['teamViewAccuracy', 'cleanAccuracy', 'honestOnlyAccuracy', 'deciderAloneAccuracy'])
        expect(row[key]).toBeGreaterThanOrEqual(0);
    }
    const first = summary.first;
    expect(first.adversariesBelowTauFromRound).toBeLessThanOrEqual(4);
    const last = first.reputationPerRound.at(-1).reputation;
    for (const agent of first.agents.filter((entry: { adversarial: boolean }) => entry.adversarial))
      expect(last[agent.id]).toBeLessThan(0.4);
    expect(first.routed).toBeLessThan(first.broadcast);
  }, 120_000);

  it('refuses an unknown scenario and transport with a clear message', async () => {
    await expect(cli('chess')).rejects.toMatchObject({
      stderr: expect.stringMatching(/unknown RAPS scenario "chess"; choose one of adversarial, scaling, code-review/),
    });
    await expect(cli('adversarial', '--transport', 'kafka')).rejects.toMatchObject({
      stderr: expect.stringMatching(/--transport must be inproc or nats, got "kafka"/),
    });
  }, 60_000);
});
