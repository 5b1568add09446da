import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunFailedError } from '../../core/errors.js';
import { acquireRunLock } from './_run-lock.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

describe('acquireRunLock', () => {
  it('refuses a run held by a live process, takes over one left by a dead process, and releases', () => {
    const store = join(temporaryDirectory('repute-lock-'), 'repute.db');
    const path = `${store}.r1.lock`;
    // A live holder: this test's parent process.
    writeFileSync(path, `${process.ppid}\n`);
    expect(() => acquireRunLock(store, 'r1')).toThrow(RunFailedError);
    expect(() => acquireRunLock(store, 'r1')).toThrow(
      new RegExp(`run r1 is already running on store .* \\(process ${process.ppid}\\)`),
    );
    // A dead holder: a process that has exited.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    writeFileSync(path, `${dead}\n`);
    const lock = acquireRunLock(store, 'r1');
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
    expect(existsSync(path)).toBe(false);
    expect(acquireRunLock(':memory:', 'r1').path).toBe('');
  });
});
