import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { removeTemporaryDirectories, temporaryDirectory } from './_test-temporary-directory.js';

describe('temporaryDirectory', () => {
  // Made while collecting (outside any test): kept for every test of the file.
  const shared = temporaryDirectory('repute-helper-shared-');
  let made = '';

  it('makes a fresh directory named by the prefix', () => {
    made = temporaryDirectory('repute-helper-test-');
    expect(existsSync(made)).toBe(true);
    expect(basename(made)).toMatch(/^repute-helper-test-.{6}$/);
    writeFileSync(join(made, 'nested.txt'), 'x');
  });

  it('removes a directory made in a test once that test finishes, with its contents', () => {
    expect(made).not.toBe('');
    expect(existsSync(made)).toBe(false);
  });

  it('keeps a directory made outside a test until the file-level sweep', () => {
    expect(existsSync(shared)).toBe(true);
    removeTemporaryDirectories();
    expect(existsSync(shared)).toBe(false);
  });

  it('keeps the directory and prints its path when REPUTE_KEEP_TMP=1', async () => {
    vi.stubEnv('REPUTE_KEEP_TMP', '1');
    vi.resetModules();
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    let kept = '';
    try {
      const fresh = await import('./_test-temporary-directory.js');
      kept = fresh.temporaryDirectory('repute-helper-keep-');
      fresh.removeTemporaryDirectories();
      expect(existsSync(kept)).toBe(true);
      expect(info).toHaveBeenCalledWith(`REPUTE_KEEP_TMP=1: keeping ${kept}`);
    } finally {
      info.mockRestore();
      vi.unstubAllEnvs();
      if (kept !== '') rmSync(kept, { recursive: true, force: true });
    }
  });
});

// run-faults.test.ts runs its tests concurrently: vitest's "current test" is then whichever started
// last, so a directory tied to it was removed while the test that made it still used it.
describe.concurrent('temporaryDirectory in concurrent tests', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps the directory until its own test is done, although a sibling finishes first', async () => {
    await sleep(0); // the sibling starts meanwhile and becomes the "current test"
    const dir = temporaryDirectory('repute-helper-concurrent-');
    await sleep(150); // the sibling finishes meanwhile
    expect(existsSync(dir)).toBe(true);
  });

  it('is the sibling that finishes first', async () => {
    await sleep(50);
  });
});
