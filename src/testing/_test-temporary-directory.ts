// Internal test helper: temporary directories that remove themselves. Not re-exported from the
// `repute/testing` barrel and not built into dist (tsconfig.build.json excludes `_test-*`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished, TestRunner } from 'vitest';

/** Set `REPUTE_KEEP_TMP=1` to keep every test directory for debugging; each path is printed. */
const keep = process.env.REPUTE_KEEP_TMP === '1';

/** Directories made outside a running test, removed by `removeTemporaryDirectories` after the file. */
const pending = new Set<string>();

/**
 * Creates a fresh directory `<os.tmpdir()>/<prefix>XXXXXX` and removes it (recursively) once it is
 * no longer used: when the current test finishes if called inside a (non-concurrent) test, after
 * its `afterEach` hooks; otherwise (module or `describe` top level, `beforeAll`, concurrent tests)
 * after the test file's last `afterAll` hook (the vitest configs run `_test-setup.ts`). Child
 * processes writing into it must have exited by then: await their exit in the test or a hook.
 *
 * @example
 * const dir = temporaryDirectory('repute-run-');
 * writeFileSync(join(dir, 'team.yaml'), yaml);
 */
export function temporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  if (keep) {
    console.info(`REPUTE_KEEP_TMP=1: keeping ${directory}`);
    return directory;
  }
  // In concurrent tests the "current test" is whichever started last, so the directory could be
  // removed when a sibling finishes: those wait for the file-level sweep too.
  const test = TestRunner.getCurrentTest();
  if (test === undefined || test.concurrent === true) pending.add(directory);
  else onTestFinished(() => removeDirectory(directory));
  return directory;
}

/** Removes every directory `temporaryDirectory` made outside a test; the setup file's `afterAll`. */
export function removeTemporaryDirectories(): void {
  for (const directory of pending) removeDirectory(directory);
  pending.clear();
}

function removeDirectory(directory: string): void {
  // maxRetries: a killed child's files may still be closing (ENOTEMPTY/EBUSY) for a moment.
  rmSync(directory, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
