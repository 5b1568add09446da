import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Byte-for-byte outputs of `repute raps ... --json`. The golden files in _golden/ were produced by the code
// BEFORE runRaps was split into step files (commit 2347c6c, one 1000-line run-raps.ts), with exactly these
// arguments, so they pin that the refactor, and any later one, changes no decision, count or float.
// If a deliberate behaviour change moves them, regenerate with the command in each case and say why.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const golden = (name: string) => readFileSync(new URL(`./_golden/${name}.golden`, import.meta.url), 'utf8');

describe('repute raps --json against outputs of the pre-refactor code', () => {
  for (const [name, args] of [
    ['raps-code-review', ['code-review']],
    [
      'raps-adversarial-shared-recovery',
      ['adversarial', '--witness-credibility', 'shared', '--recovery', '0.5', '--seeds', '5'],
    ],
    ['raps-adversarial-no-additions', ['adversarial', '--no-additions', '--seeds', '5']],
  ] as const) {
    it(`repute raps ${args.join(' ')} --json`, async () => {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'src/cli/run-cli.ts', 'raps', ...args, '--json'],
        { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      );
      expect(stdout === golden(name), `output differs from _golden/${name}.golden`).toBe(true);
    }, 120_000);
  }
});
