import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const runCli = (...args: string[]) =>
  execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

describe('repute CLI', () => {
  it('prints the package version', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(runCli('--version').trim()).toBe(manifest.version);
  });

  it('prints usage with --help', () => {
    expect(runCli('--help')).toMatch(/USAGE/);
  });
});
