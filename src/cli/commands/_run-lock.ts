// One process per run: `repute run` holds `<store>.<runId>.lock` (its pid) while it runs, so a
// second invocation of the same run on the same store refuses instead of racing it for tasks.
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { RunFailedError, StoreError } from '../../core/errors.js';
import { connectPostgres } from '../../store/_postgres-connection.js';
import { isPostgresUrl, redactPostgresUrl } from '../../store/_postgres-url.js';
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
 *
 * Two invocations started at the same instant get exactly one lock: the lock file appears with the
 * pid already in it (written to a private file, then hard-linked into place, which fails if the
 * lock exists), so a reader never sees an empty lock and takes it for stale; and a stale lock is
 * taken over by renaming it away first (only one process can rename a given file), so a process
 * that read a stale pid cannot delete the fresh lock another process created meanwhile.
 */
export function acquireRunLock(storePath: string, runId: string): RunLock {
  if (storePath === ':memory:') return { path: '', release() {} };
  if (isPostgresUrl(storePath)) return acquirePostgresRunLock(storePath, runId);
  const path = `${storePath}.${runId}.lock`;
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new StoreError(
      `cannot create the folder of store ${storePath}: ${(error as Error).message}; pass --store <a .db path in a writable folder>`,
      { cause: error },
    );
  }
  const refuse = (holder: number) =>
    new RunFailedError({
      runId,
      failedTasks: 0,
      message: `run ${runId} is already running on store ${storePath} (process ${holder}); wait for it to finish, stop it, or pass another --run-id`,
    });
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path)) return heldLock(path);
    const holder = holderOf(path);
    if (holder === undefined) continue; // released meanwhile: try again
    if (holder !== process.pid && isAlive(holder)) throw refuse(holder);
    // Stale: its process is gone. Move it aside, then check that what was moved is that stale lock.
    const aside = `${path}.stale-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // another process moved or released it first
    }
    const moved = holderOf(aside);
    if (moved !== undefined && moved !== holder && moved !== process.pid && isAlive(moved)) {
      // A live process re-created the lock between our read and the rename: put its lock back.
      try {
        linkSync(aside, path);
      } catch {
        // A third process holds a new lock already; it stays the holder.
      }
      removeQuietly(aside);
      throw refuse(moved);
    }
    removeQuietly(aside);
  }
  throw new RunFailedError({
    runId,
    failedTasks: 0,
    message: `could not take the lock ${path} of run ${runId}; another process keeps creating it`,
  });
}

/**
 * The lock of a run on a PostgreSQL store: a session advisory lock (keyed by the store's schema and
 * the run id) on a connection of its own. The server drops it when that connection ends, so a
 * process killed with SIGKILL, or a lost machine, leaves no stale lock to take over.
 */
function acquirePostgresRunLock(url: string, runId: string): RunLock {
  const label = redactPostgresUrl(url);
  const connection = connectPostgres({ url, label, timeoutMs: 30_000 });
  let held: unknown;
  try {
    held = connection.query(
      "SELECT pg_try_advisory_lock(hashtextextended('repute-run:' || current_schema() || ':' || $1, 0)) AS held",
      [runId],
    ).rows[0]?.held;
  } catch (error) {
    connection.close();
    throw new StoreError(`cannot take the lock of run ${runId} on store ${label}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (held !== true) {
    connection.close();
    throw new RunFailedError({
      runId,
      failedTasks: 0,
      message: `run ${runId} is already running on store ${label} (another process holds its lock); wait for it to finish, stop it, or pass another --run-id`,
    });
  }
  return { path: label, release: () => connection.close() };
}

/** Creates `path` holding this process's pid, atomically; false when it exists. */
function tryCreate(path: string): boolean {
  const draft = `${path}.${process.pid}.tmp`;
  const fd = openSync(draft, 'w', 0o644);
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    removeQuietly(draft);
  }
}

function heldLock(path: string): RunLock {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      removeQuietly(path);
    },
  };
}

/**
 * The pid in a lock file, `undefined` when the file is gone, and 0 when it holds no pid (a lock
 * written by a version that created the file before writing the pid, or damaged): treated as stale.
 */
function holderOf(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : 0;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
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
