import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      /repute drf collusion: InvalidArgumentError: --seeds must be an integer in \[2, 10000\], got "many"; pass e.g. --seeds 20/,
    );
    const noSeeds = runCli('collusion', '--seeds', '0');
    expect(noSeeds.status).toBe(2);
    expect(noSeeds.stderr).toMatch(/--seeds must be an integer in \[2, 10000\], got "0"/);
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

  it('refuses at the flag what the experiments refuse: one seed, delta 0', () => {
    // Every experiment needs 2 seeds for its intervals; the flag said [1, 10000] and the run failed inside.
    for (const command of ['sign', 'collusion', 'capability', 'cost', 'tune']) {
      const oneSeed = runCli(command, '--seeds', '1');
      expect(oneSeed.status).toBe(2);
      expect(oneSeed.stderr).toMatch(
        new RegExp(
          `repute drf ${command}: InvalidArgumentError: --seeds must be an integer in \\[2, 10000\\], got "1"`,
        ),
      );
    }
    const zeroDelta = runCli('sign', '--delta', '0');
    expect(zeroDelta.status).toBe(2);
    expect(zeroDelta.stderr).toMatch(
      /repute drf sign: InvalidArgumentError: --delta must be a number in \(0, 1\], got "0"/,
    );
  }, 120_000);

  it('cost: the --format the undetectable-file message asks for exists and is used', () => {
    const directory = mkdtempSync(join(tmpdir(), 'repute-drf-cost-'));
    try {
      const file = join(directory, 'bad.json');
      writeFileSync(file, '{}\n');
      const detected = runCli('cost', '--data', file);
      expect(detected.status).toBe(3);
      expect(detected.stderr).toMatch(/cannot detect the format of this file; pass --format jsonl/);
      // With the flag the file is read as Repute proposals: the error is now about its content.
      const forced = runCli('cost', '--data', file, '--format', 'jsonl');
      expect(forced.status).toBe(3);
      expect(forced.stderr).toMatch(/bad\.json:1: missing "schemaVersion": 1/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('capability with tasks·k a multiple of the pool reports the times-selected Spearman as undefined', () => {
    // --tasks 5, k = 4, 10 agents: every agent is selected 2 times in every seed.
    const table = runCli('capability', '--tasks', '5', '--seeds', '2');
    expect(table.stderr).toBe('');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/review \(default\) .* undefined in all 2 seeds /);
    const json = runCli('capability', '--tasks', '10', '--seeds', '2', '--json');
    expect(json.status).toBe(0);
    // the paper as printed, the review, each of Eqs. 2, 8, 9 printed alone, our two complement rows, our three options
    const rows = JSON.parse(json.stdout).rows as Array<{ config: string }>;
    expect(rows).toHaveLength(10);
    expect(rows.map((row) => row.config)).toContain('Eq. 8 printed alone');
  }, 120_000);

  it('collusion with fewer tasks than the 10-round window reports one window', () => {
    const result = runCli('collusion', '--seeds', '2', '--tasks', '9', '--json');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const parsed = JSON.parse(result.stdout) as {
      conditions: Array<{ windows: Array<{ fromRound: number; toRound: number }> }>;
    };
    for (const condition of parsed.conditions)
      expect(condition.windows.map((window) => [window.fromRound, window.toRound])).toEqual([[1, 9]]);
  }, 120_000);
});
