import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
    expect(result.status).toBe(0);
    // 3 issue teams + flat at n = 3.
    expect(result.stdout).toContain('simulated flat n=3');
    expect(result.stdout).toContain('simulated issue-4 n=4');
    const summary = JSON.parse(readFileSync(join(out, 'zoo.json'), 'utf8'));
    expect(summary).toMatchObject({ schemaVersion: 1, seeds: [1], tasks: 20, methods: ['majority', 'minirep'] });
    expect(summary.rows).toHaveLength(4);
    expect(existsSync(join(out, 'zoo.html'))).toBe(true);
  }, 60_000);

  it('refuses an unknown method or attack with exit code 2', () => {
    const method = runCli('--methods', 'majority,nope');
    expect(method.status).toBe(2);
    expect(method.stderr).toMatch(/--methods has unknown entry "nope"/);
    expect(runCli('--attacks', 'BAD').status).toBe(2);
  });
});
