import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const runCli = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', 'drf', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

describe('repute drf', () => {
  it('prints the sign experiment as JSON with --json and as a table without', () => {
    const json = runCli('sign', '--seeds', '2', '--json');
    expect(json.status).toBe(0);
    const result = JSON.parse(json.stdout) as {
      schemaVersion: number;
      experiment: string;
      rows: Array<{ rule: string }>;
    };
    expect(result.schemaVersion).toBe(1);
    expect(result.experiment).toBe('sign');
    expect(result.rows.map((row) => row.rule)).toEqual(['printed', 'corrected', 'random', 'all-printed']);
    const table = runCli('capability', '--seeds', '2', '--tasks', '20');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/Spearman\(reputation, true acc\.\)/);
  }, 120_000);

  it('exits non-zero with a typed message on bad flags and a missing dataset', () => {
    const badSeeds = runCli('collusion', '--seeds', 'many');
    expect(badSeeds.status).toBe(2);
    expect(badSeeds.stderr).toMatch(
      /repute drf collusion: InvalidArgumentError: --seeds must be an integer in \[1, 10000\], got "many"; pass e.g. --seeds 20/,
    );
    const noSeeds = runCli('collusion', '--seeds', '0');
    expect(noSeeds.status).toBe(2);
    expect(noSeeds.stderr).toMatch(/--seeds must be an integer in \[1, 10000\], got "0"/);
    const costTasks = runCli('cost', '--tasks', '-1');
    expect(costTasks.status).toBe(2);
    expect(costTasks.stderr).toMatch(/--tasks must be an integer in \[0, 10000\], got "-1"; pass e.g. --tasks 100/);
    const missing = runCli('cost', '--data', '/nonexistent/zeroeval');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/dataset not found at \/nonexistent\/zeroeval/);
    const unknown = runCli('replay', 'mmlu');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown dataset "mmlu"; choose one of math-l5, gsm8k/);
    const noData = runCli('replay', 'gsm8k', '--data', '/nonexistent');
    expect(noData.status).toBe(2);
    expect(noData.stderr).toMatch(/dataset not found at \/nonexistent\/zeroeval-gsm8k/);
  }, 120_000);
});
