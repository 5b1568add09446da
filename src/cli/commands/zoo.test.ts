import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeProposalsJsonl } from '../../eval/proposals/proposals-jsonl.js';
import { generateReplayFixture } from '../../eval/replay/fixture.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const runCli = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', 'zoo', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

describe('repute zoo', () => {
  it('prints the table, writes zoo.json and zoo.html, and shows progress', () => {
    const out = temporaryDirectory('repute-zoo-cli-');
    const result = runCli(
      '--sizes',
      '3',
      '--seeds',
      '1',
      '--tasks',
      '20',
      '--profiles',
      'flat',
      '--methods',
      'majority,minirep',
      '--out',
      out,
    );
    expect(result.stderr).toContain('zoo teams');
    // Off a terminal: a line per 5 % of the teams (4 teams: after each of the first 3, then the bar).
    expect(result.stderr).toMatch(/zoo: 1\/4 teams \(simulated issue-4 n=4 seed 1\)/);
    expect(result.status).toBe(0);
    // 3 issue teams + flat at n = 3.
    expect(result.stdout).toContain('simulated flat n=3');
    expect(result.stdout).toContain('simulated issue-4 n=4');
    const summary = JSON.parse(readFileSync(join(out, 'zoo.json'), 'utf8'));
    expect(summary).toMatchObject({ schemaVersion: 1, seeds: [1], tasks: 20, methods: ['majority', 'minirep'] });
    expect(summary.rows).toHaveLength(4);
    expect(existsSync(join(out, 'zoo.html'))).toBe(true);
  }, 60_000);

  it('replays recorded datasets given as a comma-separated list', async () => {
    const out = temporaryDirectory('repute-zoo-data-');
    const first = join(out, 'first.jsonl');
    const second = join(out, 'second.jsonl');
    await writeProposalsJsonl(first, { ...generateReplayFixture({ seed: 5, tasks: 40 }), name: 'first' });
    await writeProposalsJsonl(second, { ...generateReplayFixture({ seed: 6, tasks: 40 }), name: 'second' });
    const result = runCli(
      `${first},${second}`,
      '--no-simulated',
      '--sizes',
      '3,5',
      '--shapes',
      'random',
      '--seeds',
      '1',
      '--split',
      'all',
      '--tasks',
      '20',
      '--methods',
      'majority,minirep',
      '--out',
      out,
    );
    expect(result.status).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'zoo.json'), 'utf8'));
    // One random team per size and dataset: 2 × 2 rows, no simulated team.
    expect(summary.rows.map((row: { shape: string; size: number }) => `${row.shape}/${row.size}`)).toEqual([
      'random/3',
      'random/5',
      'random/3',
      'random/5',
    ]);
    expect(new Set(summary.rows.map((row: { source: string }) => row.source)).size).toBe(2);
  }, 60_000);

  it('refuses an unknown method or attack with exit code 2', () => {
    const method = runCli('--methods', 'majority,nope');
    expect(method.status).toBe(2);
    expect(method.stderr).toMatch(/--methods has unknown entry "nope"/);
    expect(runCli('--attacks', 'BAD').status).toBe(2);
  });
});
