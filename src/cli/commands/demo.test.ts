import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sparkline } from './_shared.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

describe('sparkline', () => {
  it('maps [0, 1] onto eight blocks and samples long series', () => {
    // floor(v · 8) picks the block: 0 → ▁, 0.5 → ▅ (index 4), 1 → █ (clamped to index 7).
    expect(sparkline([0, 0.5, 1])).toBe('▁▅█');
    // 100 values sampled to 4 points: indices round(k · 100 / 4) − 1 = 24, 49, 74, 99.
    const values = Array.from({ length: 100 }, (_, index) => index / 99);
    expect(sparkline(values, 4)).toBe(['▂', '▄', '▆', '█'].join(''));
  });
});

describe('repute demo', () => {
  it('prints the JSON summary on stdout and writes a self-contained HTML report', async () => {
    const out = join(temporaryDirectory('repute-demo-'), 'nested', 'report.html');
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/run-cli.ts',
        'demo',
        '--json',
        '--tasks',
        '30',
        '--methods',
        'majority,minirep',
        '--seed',
        '3',
        '--out',
        out,
      ],
      { cwd: root },
    );
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      schemaVersion: 1,
      seed: 3,
      tasks: 30,
      rounds: 2,
      methodOrder: ['majority', 'minirep'],
    });
    // Pinned for seed 3 on 30 tasks (tasks correct out of 30, clean / attacked): majority 26 / 17, minirep 26 / 24.
    expect(
      [summary.methods.majority, summary.methods.minirep].map((result) =>
        [result.clean * 30, result.attacked * 30].map((value) => Math.round(value * 1e9) / 1e9),
      ),
    ).toEqual([
      [26, 17],
      [26, 24],
    ]);
    expect(Object.keys(summary.methods.minirep.finalReputation.attacked)).toHaveLength(10);
    expect(stderr).toMatch(/report written to/);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|<link|src="|href="/);
  }, 60_000);

  it('says which flags to change when the store holds the demo of this seed with other settings', async () => {
    const store = join(temporaryDirectory('repute-demo-'), 'demo.db');
    const demo = (rounds: string) =>
      run(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/run-cli.ts',
          'demo',
          ...['--json', '--tasks', '5', '--methods', 'majority', '--seed', '4', '--rounds', rounds],
          ...['--store', store, '--out', join(store, '..', 'report.html')],
        ],
        { cwd: root },
      );
    await demo('1');
    // The store's own advice ("choose a new run id") names no flag of repute demo.
    await expect(demo('0')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /already holds the demo of seed 4 with other --tasks or --rounds; pass the same ones to resume it, or another --store/,
      ),
    });
  }, 60_000);

  it('names a bad flag', async () => {
    await expect(
      run(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', 'demo', '--methods', 'majority,nope'], {
        cwd: root,
      }),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/--methods has unknown entry "nope"/) });
  });
});
