import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, StoreError } from '../core/errors.js';
import { openStore } from './store.js';
import { runStoreContract } from './_test-store-contract.js';
import { makeReadOnly, makeWritable } from '../testing/_test-read-only.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';

let directory: string;
beforeEach(() => {
  directory = temporaryDirectory('repute-store-');
});

describe('openStore', () => {
  it('creates the schema at the latest version (4) in WAL mode and reopens without migrating again', () => {
    const path = join(directory, 'a.db');
    const store = openStore({ path, now: () => 5 });
    expect(store.schemaVersion).toBe(5);
    store.createRun({ id: 'r1', kind: 'demo', config: { seed: 1 } });
    store.close();
    const reopened = openStore({ path, now: () => 6 });
    expect(reopened.getRun('r1')?.config).toEqual({ seed: 1 });
    reopened.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.prepare('SELECT version, applied_at FROM schema_version').all()).toEqual([
      { version: 1, applied_at: 5 },
      { version: 2, applied_at: 5 },
      { version: 3, applied_at: 5 },
      { version: 4, applied_at: 5 },
      { version: 5, applied_at: 5 },
    ]);
    raw.close();
  });

  it('refuses a database written by a newer schema', () => {
    const path = join(directory, 'new.db');
    openStore({ path }).close();
    const raw = new Database(path);
    raw.prepare("INSERT INTO schema_version VALUES (99, 'future', 0)").run();
    raw.close();
    expect(() => openStore({ path })).toThrow(StoreError);
    expect(() => openStore({ path })).toThrow(/schema version 99.*upgrade Repute/);
  });

  it('opens read-only and rejects an empty path and missing directories', () => {
    const path = join(directory, 'ro.db');
    const writer = openStore({ path });
    writer.createRun({ id: 'r', kind: 'k', config: null });
    writer.close();
    const reader = openStore({ path, readonly: true });
    expect(reader.listRuns().map((run) => run.id)).toEqual(['r']);
    expect(() => reader.createRun({ id: 'r2', kind: 'k', config: null })).toThrow();
    reader.close();
    expect(() => openStore({ path: '' })).toThrow(InvalidArgumentError);
    expect(() => openStore({ path: join(directory, 'no', 'such', 'dir.db') })).toThrow(/cannot open store/);
  });

  it('refuses at open, with a StoreError saying what to do, a store file it cannot write', (context) => {
    const path = join(directory, 'locked.db');
    const writer = openStore({ path });
    writer.createRun({ id: 'r', kind: 'k', config: null });
    writer.close();
    // Old: it opened, and the first write threw a bare SqliteError ("attempt to write a readonly
    // database") in the middle of a run. chmod does not stop root; the immutable flag does.
    const locked = makeReadOnly(path);
    if (!locked) context.skip();
    try {
      expect(() => openStore({ path })).toThrow(StoreError);
      expect(() => openStore({ path })).toThrow(
        new RegExp(
          `store ${path} is read-only .*make it writable.*openStore\\(\\{ path, readonly: true \\}\\) reads it`,
        ),
      );
      const reader = openStore({ path, readonly: true });
      expect(reader.listRuns().map((run) => run.id)).toEqual(['r']);
      reader.close();
    } finally {
      makeWritable(path);
    }
  });

  it('refuses at open, with a StoreError saying what to do, a store in a folder it cannot write', (context) => {
    const folder = join(directory, 'locked');
    mkdirSync(folder);
    const existing = join(folder, 'existing.db');
    const writer = openStore({ path: existing });
    writer.createRun({ id: 'r', kind: 'k', config: null });
    writer.close();
    // SQLite keeps its WAL journal beside the store. Old: "cannot initialise store …: unable to open
    // database file" for an existing store and "cannot open store …" for a new one, naming no folder.
    if (!makeReadOnly(folder, true)) context.skip();
    try {
      for (const path of [existing, join(folder, 'new.db')]) {
        const error = (() => {
          try {
            openStore({ path }).close();
          } catch (caught) {
            return caught;
          }
          return new Error('opened');
        })();
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).message).toMatch(
          new RegExp(
            `^cannot write in the folder ${folder} of store ${path} \\((EACCES|EPERM|EROFS)\\); SQLite keeps the store's journal there: make the folder writable or pass --store <a \\.db path in a writable folder> \\(library: openStore\\(\\{ path \\}\\) with such a path\\)$`,
          ),
        );
      }
    } finally {
      makeWritable(folder, true);
    }
    expect(readdirSync(folder)).toEqual(['existing.db']);
    // A relative path names its folder as an absolute one.
    const relativePath = relative(process.cwd(), join(folder, 'relative.db'));
    if (!makeReadOnly(folder, true)) context.skip();
    try {
      expect(() => openStore({ path: relativePath })).toThrow(
        `cannot write in the folder ${folder} of store ${relativePath} (`,
      );
    } finally {
      makeWritable(folder, true);
    }
  });

  it('opens a store whose write lock another connection holds past the busy timeout, and writes once it is free', () => {
    const path = join(directory, 'busy.db');
    openStore({ path }).close();
    // Another connection (here in this process: the lock is SQLite's, per connection) holds the
    // write lock until it commits.
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const start = performance.now();
      const store = openStore({ path, busyTimeoutMs: 25 });
      const waited = performance.now() - start;
      // The write probe at open waited its 25 ms for the lock (not the default 5 s), then took the
      // store as writable but busy rather than failing the open.
      expect(waited).toBeGreaterThanOrEqual(20);
      expect(waited).toBeLessThan(2500);
      expect(store.listRuns()).toEqual([]);
      // A write while the lock is held waits as long, then fails busy (store-failures.test.ts pins the message).
      expect(() => store.createRun({ id: 'r', kind: 'k', config: null })).toThrow(StoreError);
      expect(() => store.createRun({ id: 'r', kind: 'k', config: null })).toThrow(/database is locked/);
      holder.exec('COMMIT');
      expect(store.createRun({ id: 'r', kind: 'k', config: null }).id).toBe('r');
      store.close();
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
    expect(() => openStore({ path, busyTimeoutMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => openStore({ path, busyTimeoutMs: 1.5 })).toThrow(
      'busyTimeoutMs must be an integer in [0, 2147483647], got 1.5; pass the wait for a locked store in milliseconds, e.g. 5000',
    );
  });

  it('says what to do with a file that is not a store or is damaged', () => {
    const path = join(directory, 'notes.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    expect(() => openStore({ path })).toThrow(StoreError);
    expect(() => openStore({ path })).toThrow(
      /cannot initialise store .*notes\.db: file is not a database; it is not a Repute store or it is damaged: pass the path of an existing store or of a new file/,
    );
  });
});

// Runs, task results, events, reputation, teams, the LLM cache, the ledger and the SIGKILL crash case:
// the same cases every Store implementation passes (postgres-store.test.ts runs them on PostgreSQL).
runStoreContract({
  name: 'sqlite',
  newLocation: () => join(temporaryDirectory('repute-store-'), 'store.db'),
  crashTasks: 1500,
});
