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

  it('refuses flags the scenario or transport would ignore, naming the flag as typed', async () => {
    for (const [args, pattern] of [
      [
        ['code-review', '--seeds', '5'],
        /UsageError: --seeds changes the number of seeds averaged and applies to raps adversarial only, not raps code-review; leave --seeds out/,
      ],
      [
        ['code-review', '--recovery', '0.5'],
        /UsageError: --recovery .* applies to raps adversarial only, not raps code-review/,
      ],
      [['scaling', '--seeds', '3'], /UsageError: --seeds .* applies to raps adversarial only, not raps scaling/],
      [
        ['scaling', '--recovery', '0.5'],
        /UsageError: --recovery .* applies to raps adversarial only, not raps scaling/,
      ],
      [
        ['code-review', '--no-additions'],
        /UsageError: --no-additions .* applies to raps adversarial and raps scaling only, not raps code-review; leave --no-additions out/,
      ],
      [['code-review', '--witness-credibility', 'shared'], /UsageError: --witness-credibility .* not raps code-review/],
      [['code-review', '--seed', '3'], /UsageError: --seed .* not raps code-review/],
      [['code-review', '--tasks', '3'], /UsageError: --tasks .* not raps code-review/],
      [
        ['adversarial', '--nats-url', 'nats://127.0.0.1:4222'],
        /UsageError: --nats-url names the server of --transport nats, but the transport is inproc; add --transport nats/,
      ],
      [['adversarial', '--no-processes'], /UsageError: --no-processes applies with --transport nats only/],
      [
        ['scaling', '--transport', 'nats', '--no-processes'],
        /UsageError: --no-processes .* raps scaling always hosts its nodes in the CLI process/,
      ],
    ] as const) {
      await expect(cli(...args), args.join(' ')).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringMatching(pattern),
      });
    }
  }, 120_000);

  it('adversarial accepts a negative --seed like every other command (seeds -3, -2)', async () => {
    const { stdout } = await cli('adversarial', '--seed', '-3', '--seeds', '2', '--tasks', '1', '--json');
    const summary = JSON.parse(stdout);
    expect(summary.seed).toBe(-3);
    expect(summary.seeds).toEqual([-3, -2]);
    expect(summary.perSeed.map((row: { seed: number }) => row.seed)).toEqual([-3, -2]);
  }, 60_000);

  it('scaling passes --witness-credibility to the run and names it in the output', async () => {
    const { stdout } = await cli('scaling', '--tasks', '2', '--witness-credibility', 'shared', '--json');
    expect(JSON.parse(stdout).witnessCredibility).toBe('shared');
    const table = await cli('scaling', '--tasks', '2', '--witness-credibility', 'shared');
    expect(table.stdout).toMatch(/seed 2027, witness credibility shared, transport inproc/);
  }, 120_000);
});
