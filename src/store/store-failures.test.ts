// How the store fails: every SQLite failure a caller can meet (a lock held too long, a full disk, a
// damaged or foreign file, a read-only folder) comes out of the public API as a StoreError that names
// the store file, says what happened and what to do, and keeps SQLite's error as its cause. And a
// failed write loses nothing the store had already confirmed.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, StoreError } from '../core/errors.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import { makeReadOnly, makeWritable } from '../testing/_test-read-only.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';
import { openStore, type Store } from './store.js';

const snapshot: ReputationSnapshot = { schemaVersion: 1, model: 'beta', agents: ['a1'], state: { a1: 0.5 } };

let directory: string;
beforeEach(() => {
  directory = temporaryDirectory('repute-store-failures-');
});

/** The error `work` throws (a test failure when it throws none). */
function caught(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, none was thrown');
}

/** Every write of the public API, each on fresh ids so that only the lock can stop it. */
function writes(store: Store): Record<string, () => unknown> {
  return {
    createRun: () => store.createRun({ id: 'new-run', kind: 'k', config: null }),
    ensureRun: () => store.ensureRun({ id: 'other-run', kind: 'k', config: null }),
    setRunStatus: () => store.setRunStatus('r', 'completed'),
    recordTaskResult: () => store.recordTaskResult({ runId: 'r', method: 'm', taskId: 't2', result: { ok: true } }),
    recordTaskFailure: () =>
      store.recordTaskFailure({ runId: 'r', method: 'm', taskId: 't3', failure: { status: 500 } }),
    appendEvents: () => store.appendEvents('r', [{ type: 'task', taskId: 't2' }]),
    saveReputation: () => store.saveReputation({ scope: { team: 'team' }, name: 'm', snapshot }),
    saveTeam: () => store.saveTeam('team', [{ id: 'a1', model: 'm1' }] as never),
    putCachedResponse: () => store.putCachedResponse({ key: 'hash-2', value: { text: '5' } }),
    recordUsage: () => store.recordUsage({ inputTokens: 1, outputTokens: 1, cost: 0, cached: true }),
    transaction: () => store.transaction(() => store.createRun({ id: 'in-transaction', kind: 'k', config: null })),
  };
}

/** What the store holds, as one comparable value. */
function contents(store: Store): unknown {
  return {
    runs: store.listRuns().map((run) => [run.id, run.status]),
    results: store.taskResults('r').map((result) => result.taskId),
    failures: store.taskFailures('r').map((failure) => failure.taskId),
    events: store.events('r').map((event) => event.seq),
    reputation: store.loadReputation({ scope: { team: 'team' }, name: 'm' }),
    team: store.loadTeam('team'),
    cache: store.countCachedResponses(),
    usage: store.usageEntries().length,
  };
}

describe('a store whose lock another process holds', () => {
  it('fails every write past busyTimeoutMs with a StoreError naming the file and what to do, and writes nothing', () => {
    const path = join(directory, 'busy.db');
    const setup = openStore({ path });
    setup.createRun({ id: 'r', kind: 'k', config: null });
    setup.recordTaskResult({ runId: 'r', method: 'm', taskId: 't1', result: { ok: true } });
    setup.close();
    const store = openStore({ path, busyTimeoutMs: 10 });
    const before = contents(store);
    // Another connection (in this process here; the lock is SQLite's, per connection) holds the write lock.
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      for (const [operation, write] of Object.entries(writes(store))) {
        // Old: a bare SqliteError (SQLITE_BUSY, "database is locked") naming neither store nor remedy.
        const error = caught(write);
        expect(error, operation).toBeInstanceOf(StoreError);
        expect(error.message, operation).toBe(
          `store ${path}: ${operation} failed and wrote nothing: another connection (usually another process writing to it) kept it locked longer than busyTimeoutMs = 10 ms (SQLITE_BUSY: database is locked); retry once that writer is done, raise openStore({ busyTimeoutMs }), or use another store file (CLI: --store PATH)`,
        );
        expect((error.cause as { code?: string }).code, operation).toBe('SQLITE_BUSY');
      }
      expect(contents(store)).toEqual(before);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // Once the lock is free, the same writes go through.
    for (const write of Object.values(writes(store))) write();
    expect(store.completedTaskIds('r', 'm')).toEqual(['t1', 't2']);
    store.close();
  });

  it('says so at open when it cannot take the lock to set the store up', () => {
    // A new file: the open must switch it to WAL and create the schema, which takes the write lock.
    const path = join(directory, 'new.db');
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      // Old: "cannot initialise store …: database is locked", no remedy.
      const error = caught(() => openStore({ path, busyTimeoutMs: 10 }));
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toBe(
        `store ${path}: openStore failed: another connection (usually another process writing to it) kept it locked longer than busyTimeoutMs = 10 ms (SQLITE_BUSY: database is locked); retry once that writer is done, raise openStore({ busyTimeoutMs }), or use another store file (CLI: --store PATH)`,
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const store = openStore({ path });
    expect(store.schemaVersion).toBe(5);
    store.close();
  });
});

describe('a store opened read-only', () => {
  it('reads a store in a folder it cannot write, or says why it cannot and what to do', (context) => {
    const folder = join(directory, 'shelf');
    mkdirSync(folder);
    const path = join(folder, 'kept.db');
    const writer = openStore({ path });
    writer.createRun({ id: 'r', kind: 'k', config: null });
    writer.close();
    // The writer closed cleanly: SQLite removed the -wal and -shm files.
    expect(readdirSync(folder)).toEqual(['kept.db']);
    if (!makeReadOnly(folder, true)) context.skip();
    try {
      // Old: "cannot initialise store …: unable to open database file".
      const error = caught(() => openStore({ path, readonly: true }));
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toBe(
        `cannot read store ${path} read-only: SQLite must create its shared-memory index ${path}-shm beside it, even to read a store in WAL mode, but the folder ${folder} is not writable; make the folder writable, or copy ${path} to a writable folder and open the copy`,
      );
    } finally {
      makeWritable(folder, true);
    }
  });

  it('says that a missing file does not exist', () => {
    const path = join(directory, 'missing.db');
    // Old: "cannot open store …: unable to open database file; check that the directory exists and is writable".
    expect(caught(() => openStore({ path, readonly: true })).message).toBe(
      `store ${path} does not exist; a read-only open reads an existing store: check the path, or open it without readonly to create it`,
    );
    expect(existsSync(path)).toBe(false);
  });

  it("refuses ':memory:', which would be empty, naming the option", () => {
    // Old: "cannot open store :memory:: In-memory/temporary databases cannot be readonly; check that the directory exists and is writable".
    const error = caught(() => openStore({ path: ':memory:', readonly: true }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error.message).toBe(
      "readonly needs a store file; a new ':memory:' store is empty: drop readonly, or pass the path of a store file",
    );
  });

  it('says to upgrade Repute for a store of a newer schema, not to migrate it', () => {
    const path = join(directory, 'newer.db');
    openStore({ path }).close();
    const raw = new Database(path);
    raw.prepare("INSERT INTO schema_version VALUES (99, 'future', 0)").run();
    raw.close();
    // Old: "has schema version 99, expected 2; open it once without readonly to migrate it", which then refuses.
    expect(caught(() => openStore({ path, readonly: true })).message).toBe(
      `store ${path} has schema version 99, newer than this Repute supports (5); upgrade Repute or open a different store file`,
    );
  });

  it('refuses writes with a StoreError saying the store was opened read-only', () => {
    const path = join(directory, 'reader.db');
    const writer = openStore({ path });
    writer.createRun({ id: 'r', kind: 'k', config: null });
    writer.close();
    const reader = openStore({ path, readonly: true });
    for (const [name, write] of Object.entries(writes(reader))) {
      // Old: a bare SqliteError, "attempt to write a readonly database". A transaction may read, so
      // only the write inside it is refused.
      const operation = name === 'transaction' ? 'createRun' : name;
      const error = caught(write);
      expect(error, name).toBeInstanceOf(StoreError);
      expect(error.message, name).toBe(
        `store ${path} was opened read-only: ${operation} cannot write to it; open it without { readonly: true } to write`,
      );
    }
    expect(reader.listRuns().map((run) => run.id)).toEqual(['r']);
    reader.close();
  });
});

describe('a file that is not a sound Repute store', () => {
  it('says that a folder is not a store file', () => {
    const path = join(directory, 'runs');
    mkdirSync(path);
    // Old: "cannot open store …: unable to open database file; check that the directory exists and is
    // writable" (it exists and is writable), or "disk I/O error" read-only.
    for (const readonly of [false, true]) {
      const error = caught(() => openStore({ path, readonly }));
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toBe(
        `store ${path} is a folder, not a store file; pass the path of a file, e.g. ${join(path, 'repute.db')}`,
      );
    }
  });

  it('refuses a SQLite database of another program instead of adding its tables to it', () => {
    const path = join(directory, 'notes.sqlite');
    const raw = new Database(path);
    raw.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')");
    raw.close();
    const expected = `${path} is a SQLite database but not a Repute store (it has the table notes and no schema_version); pass the path of a Repute store or of a new file`;
    // Old: it opened, and created Repute's eight tables in the other program's database.
    for (const readonly of [false, true]) {
      const error = caught(() => openStore({ path, readonly }));
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toBe(expected);
    }
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'notes' }]);
    check.close();
  });

  it('says that a store damaged on disk is damaged when a read meets the damage', () => {
    const path = join(directory, 'damaged.db');
    const writer = openStore({ path });
    writer.createRun({ id: 'r', kind: 'k', config: null });
    for (let index = 0; index < 100; index++) {
      writer.recordTaskResult({ runId: 'r', method: 'm', taskId: `t${index}`, result: { padding: 'x'.repeat(3000) } });
    }
    writer.close();
    // ~100 pages of 4 KiB hold the results; pages 31 to 50 become garbage (the schema on pages 1-2 stays intact).
    expect(statSync(path).size).toBeGreaterThan(60 * 4096);
    const descriptor = openSync(path, 'r+');
    writeSync(descriptor, Buffer.alloc(20 * 4096, 0x5a), 0, 20 * 4096, 30 * 4096);
    closeSync(descriptor);
    const store = openStore({ path });
    for (const [operation, read] of [
      ['taskResults', () => store.taskResults('r')],
      ['completedTaskIds', () => store.completedTaskIds('r', 'm')],
    ] as const) {
      // Old: a bare SqliteError, "database disk image is malformed".
      const error = caught(read);
      expect(error, operation).toBeInstanceOf(StoreError);
      expect(error.message, operation).toBe(
        `store ${path}: ${operation} failed: the store file is damaged (SQLITE_CORRUPT: database disk image is malformed); restore it from a backup or start a new store file (the sqlite3 shell's .recover command may save what is still readable)`,
      );
    }
    store.close();
  });
});

describe('a full disk', () => {
  it('fails the write with a StoreError saying the disk is full, and keeps every write confirmed before', (context) => {
    // A 1 MiB tmpfs: mounting needs root with CAP_SYS_ADMIN (a container may have it); otherwise skipped.
    const mountPoint = join(directory, 'small');
    mkdirSync(mountPoint);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'ignore' });
    } catch {
      context.skip();
    }
    const path = join(mountPoint, 'full.db');
    const store = openStore({ path });
    try {
      store.createRun({ id: 'r', kind: 'k', config: null });
      const confirmed: string[] = [];
      let error: Error | undefined;
      for (let index = 0; index < 1000 && error === undefined; index++) {
        try {
          store.recordTaskResult({
            runId: 'r',
            method: 'm',
            taskId: `t${index}`,
            result: { padding: 'x'.repeat(3000) },
          });
          confirmed.push(`t${index}`);
        } catch (caughtError) {
          error = caughtError as Error;
        }
      }
      // Old: a bare SqliteError, "database or disk is full".
      expect(error).toBeInstanceOf(StoreError);
      expect(error?.message).toBe(
        `store ${path}: recordTaskResult failed and wrote nothing: the disk or file system holding it is full (SQLITE_FULL: database or disk is full); free space there or move the store to a disk with room, then retry`,
      );
      expect(confirmed.length).toBeGreaterThan(10);
      expect(store.completedTaskIds('r', 'm')).toEqual(confirmed);
      store.close();
      // Every confirmed task is still there after a reopen (the WAL, not yet checkpointed, holds them).
      const reopened = openStore({ path, readonly: true });
      expect(reopened.completedTaskIds('r', 'm')).toEqual(confirmed);
      reopened.close();
    } finally {
      store.close();
      // Lazy: a file still open (a failed assertion above) must not leave the mount behind.
      execFileSync('umount', ['--lazy', mountPoint], { stdio: 'ignore' });
    }
  });
});
