import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RunFailedError, StoreError } from '../../core/errors.js';
import { acquireRunLock } from './_run-lock.js';
import { newPostgresStoreUrl, postgresAvailable } from '../../store/_test-postgres.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

describe('acquireRunLock', () => {
  it.skipIf(!postgresAvailable())(
    'holds a run on a PostgreSQL store in the server: one holder, free again on release',
    () => {
      const url = newPostgresStoreUrl();
      const lock = acquireRunLock(url, 'r1');
      // A second holder (its own connection, as another process would have) is refused; another run is not.
      expect(() => acquireRunLock(url, 'r1')).toThrow(
        /run r1 is already running on store postgres:.*another process holds its lock/,
      );
      const other = acquireRunLock(url, 'r2');
      other.release();
      lock.release();
      acquireRunLock(url, 'r1').release();
    },
  );

  it('names the store when its folder cannot be made (a path under a file), as a StoreError', () => {
    const file = join(temporaryDirectory('repute-lock-'), 'afile');
    writeFileSync(file, 'not a folder');
    expect(() => acquireRunLock(join(file, 'x.db'), 'r1')).toThrow(StoreError);
    expect(() => acquireRunLock(join(file, 'x.db'), 'r1')).toThrow(
      /cannot create the folder of store .*x\.db: .*; pass --store/,
    );
  });

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

  it('gives the lock to one of several processes started at the same instant, fresh or over a stale lock', async () => {
    // Each child waits for a common start instant, tries the lock, holds it 300 ms and reports its interval.
    // Before the fix, a child that found the lock file created but its pid not yet written took it for stale
    // and deleted it, and two children ran the same run at once (2 of 15 pairs, 3 of 15 over a stale lock).
    const dir = temporaryDirectory('repute-lock-race-');
    const worker = join(dir, 'worker.mjs');
    const lockModule = pathToFileURL(fileURLToPath(new URL('./_run-lock.ts', import.meta.url))).href;
    writeFileSync(
      worker,
      `const { acquireRunLock } = await import(${JSON.stringify(lockModule)});
const [store, start] = process.argv.slice(2);
while (Date.now() < Number(start)) {}
try {
  const lock = acquireRunLock(store, 'same');
  const from = Date.now();
  setTimeout(() => { const to = Date.now(); lock.release(); console.log(JSON.stringify({ ran: [from, to] })); }, 300);
} catch (error) {
  console.log(JSON.stringify({ refused: error.name + ': ' + error.message }));
}
`,
    );
    const runChild = (store: string, start: number) =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', worker, store, String(start)], {
          cwd: process.cwd(),
        });
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (out += chunk));
        child.on('close', () => resolve(out.trim()));
      });
    const deadPid = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
    );
    for (const [round, stale] of [
      [1, false],
      [2, true],
      [3, false],
      [4, true],
    ] as const) {
      const store = join(dir, `round-${round}.db`);
      if (stale) writeFileSync(`${store}.same.lock`, `${deadPid}\n`);
      const start = Date.now() + 4000; // after every child has started, even on a loaded machine
      const outputs = await Promise.all([1, 2, 3].map(() => runChild(store, start)));
      const detail = `round ${round}${stale ? ' (stale lock)' : ''}:\n${outputs.join('\n')}`;
      const reports = outputs.map((output) => JSON.parse(output) as { ran?: [number, number]; refused?: string });
      const ran = reports.flatMap((report) => (report.ran ? [report.ran] : []));
      expect(ran.length, detail).toBeGreaterThanOrEqual(1);
      for (const report of reports)
        if (report.refused !== undefined)
          expect(report.refused, detail).toMatch(
            /^RunFailedError: run same is already running on store .* \(process \d+\)/,
          );
      // No two holders at once: the intervals, sorted by start, do not overlap.
      ran.sort((left, right) => left[0] - right[0]);
      for (let index = 1; index < ran.length; index++)
        expect((ran[index] as [number, number])[0], detail).toBeGreaterThanOrEqual(
          (ran[index - 1] as [number, number])[1],
        );
      expect(existsSync(`${store}.same.lock`), detail).toBe(false);
    }
  }, 120_000);
});
