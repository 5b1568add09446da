// One process per run: `repute run` holds `<store>.<runId>.lock` (its pid) while it runs, so a
// second invocation of the same run on the same store refuses instead of racing it for tasks.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { RunFailedError } from '../../core/errors.js';
import { openStore, type Store } from '../../store/store.js';

/** A held run lock; `release` removes the file (idempotent). */
export interface RunLock {
  readonly path: string;
  release(): void;
}

/**
 * Takes the lock of a run on a file store (`:memory:` needs none). A lock left by a process that
 * no longer exists (SIGKILL, power loss) is taken over; one held by a live process throws
 * {@link RunFailedError} naming the pid.
 */
export function acquireRunLock(storePath: string, runId: string): RunLock {
  if (storePath === ':memory:') return { path: '', release() {} };
  const path = `${storePath}.${runId}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(path);
          } catch {
            // Already gone.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readText(path), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new RunFailedError({
          runId,
          failedTasks: 0,
          message: `run ${runId} is already running on store ${storePath} (process ${holder}); wait for it to finish, stop it, or pass another --run-id`,
        });
      }
      // Stale: its process is gone.
      try {
        unlinkSync(path);
      } catch {
        // Another process took it over first; the next attempt decides.
      }
    }
  }
  throw new RunFailedError({
    runId,
    failedTasks: 0,
    message: `could not take the lock ${path} of run ${runId}; another process keeps creating it`,
  });
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the run's lock, then opens its store; the lock is released again when the store cannot be
 * opened, so a failed start never leaves a lock behind.
 */
export function openLockedStore(storePath: string, runId: string): { lock: RunLock; store: Store } {
  const lock = acquireRunLock(storePath, runId);
  try {
    return { lock, store: openStore({ path: storePath }) };
  } catch (error) {
    lock.release();
    throw error;
  }
}
