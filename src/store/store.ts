// The store's public shapes and `openStore`, which composes one module per table family (`_runs.ts`,
// `_task-results.ts`, `_events.ts`, `_reputation-snapshots.ts`, `_teams.ts`, `_llm-cache.ts`, `_usage.ts`) over one
// connection; the schema and its migrations live in `_schema.ts`.
import { assembleStore } from './_assemble-store.js';
import type { OpenStoreOptions, Store } from './types.js';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InvalidArgumentError, StoreError } from '../core/errors.js';
import { assertInteger, assertKnownOptions, assertNonEmptyString, defineOptionKeys } from '../core/validate.js';
import { LATEST_SCHEMA_VERSION, migrate } from './_schema.js';
import { explainSqliteFailure, findSqliteError, type StoreFailureContext } from './_store-errors.js';
import { assertStoreFolderWritable, isStoreFolderWritable, storeFolder } from './_store-folder.js';
import type { StoreContext } from './_store-context.js';
import { openPostgresStore } from './_postgres-store.js';
import { isPostgresUrl } from './_postgres-url.js';

export type * from './types.js';

const knownOpenStoreOptions = defineOptionKeys<OpenStoreOptions>()(['path', 'now', 'readonly', 'busyTimeoutMs']);

/**
 * Opens (and migrates) a SQLite store in WAL mode. Unless `readonly`, a store that cannot be written
 * (its file, or its folder, where SQLite keeps the journal) is refused here with a `StoreError`
 * saying what to do, not at its first write; so are a folder, a damaged file, a store of a newer
 * schema and another program's SQLite database (Repute adds no tables to it).
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * const { run } = store.ensureRun({ id: 'run-1', kind: 'debate', config: { seed: 7 } });
 * const done = new Set(store.completedTaskIds(run.id, 'drf'));
 * // ... for each task not in `done`:
 * store.recordTaskResult({ runId: run.id, method: 'drf', taskId: 't1', result: { correct: true }, events: [] });
 * store.close();
 */
export function openStore(options: OpenStoreOptions): Store {
  assertKnownOptions('', options, knownOpenStoreOptions, 'openStore');
  const { path, now = Date.now, readonly = false, busyTimeoutMs = 5000 } = options;
  assertNonEmptyString('path', path, "pass a file path such as 'repute.db', ':memory:' or a postgres:// URL");
  assertInteger(
    'busyTimeoutMs',
    busyTimeoutMs,
    0,
    2_147_483_647,
    'pass the wait for a locked store in milliseconds, e.g. 5000',
  );
  if (isPostgresUrl(path)) return openPostgresStore({ url: path, now, readonly, busyTimeoutMs });
  if (readonly && path === ':memory:') {
    throw new InvalidArgumentError({
      parameter: 'readonly',
      value: readonly,
      message:
        "readonly needs a store file; a new ':memory:' store is empty: drop readonly, or pass the path of a store file",
    });
  }
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new StoreError(
      `store ${path} is a folder, not a store file; pass the path of a file, e.g. ${join(path, 'repute.db')}`,
    );
  }
  if (!readonly) assertStoreFolderWritable(path);
  const failureContext: StoreFailureContext = { path, readonly, busyTimeoutMs };
  let db: Database.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (error) {
    if (readonly && !existsSync(path)) {
      throw new StoreError(
        `store ${path} does not exist; a read-only open reads an existing store: check the path, or open it without readonly to create it`,
        { cause: error },
      );
    }
    throw new StoreError(
      `cannot open store ${path}: ${(error as Error).message}; check that the directory exists and is writable`,
      { cause: error },
    );
  }
  let schemaVersion: number;
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma('foreign_keys = ON');
    // Before anything writes (WAL mode rewrites the file header): Repute's tables never go into another program's database.
    assertNoForeignTables(db, path);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode survives a killed process (only an OS crash can lose the last commit).
      db.pragma('synchronous = NORMAL');
      schemaVersion = migrate(db, path, now);
      probeWrite(db);
    } else {
      schemaVersion = readSchemaVersion(db, path);
    }
  } catch (error) {
    db.close();
    throw openFailure(error, failureContext);
  }

  let closed = false;
  const guard = (): void => {
    if (closed) throw new StoreError(`store ${path} is closed; open it again with openStore({ path })`);
  };
  const transaction = <T>(work: () => T): T => {
    guard();
    return db.transaction(work).immediate();
  };
  // An immediate transaction holds SQLite's one write lock: no finer lock is needed.
  const context: StoreContext = { db, path, now, guard, transaction, lock: () => {} };
  return assembleStore(context, {
    schemaVersion,
    failureContext,
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  });
}

/**
 * Refuses a SQLite database that another program made: it has tables but not the `schema_version`
 * table, which a Repute store creates before any other.
 */
function assertNoForeignTables(db: Database.Database, path: string): void {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  if (tables.length === 0 || tables.includes('schema_version')) return;
  const named =
    tables.length === 1
      ? `the table ${tables[0]}`
      : `the tables ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ` and ${tables.length - 5} more` : ''}`;
  throw new StoreError(
    `${path} is a SQLite database but not a Repute store (it has ${named} and no schema_version); pass the path of a Repute store or of a new file`,
  );
}

/** The schema version of a store opened read-only, which must be this Repute's (no migration can run). */
function readSchemaVersion(db: Database.Database, path: string): number {
  const row = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  const version =
    row === undefined
      ? 0
      : (db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number }).version;
  if (version > LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      `store ${path} has schema version ${version}, newer than this Repute supports (${LATEST_SCHEMA_VERSION}); upgrade Repute or open a different store file`,
    );
  }
  if (version < LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      `store ${path} has schema version ${version}, expected ${LATEST_SCHEMA_VERSION}; open it once without readonly to migrate it`,
    );
  }
  return version;
}

/** The StoreError `openStore` throws when preparing an opened database failed: what happened and what to do. */
function openFailure(error: unknown, context: StoreFailureContext): StoreError {
  const { path, readonly } = context;
  const sqliteError = findSqliteError(error);
  const code = sqliteError?.code ?? '';
  // A WAL store's readers need its -shm file; SQLite creates it beside the store, and says only "unable to open database file".
  if (readonly && code === 'SQLITE_CANTOPEN' && !existsSync(`${path}-shm`) && !isStoreFolderWritable(path)) {
    const journal = existsSync(`${path}-wal`) ? ` and ${path}-wal` : '';
    return new StoreError(
      `cannot read store ${path} read-only: SQLite must create its shared-memory index ${path}-shm beside it, even to read a store in WAL mode, but the folder ${storeFolder(path)} is not writable; make the folder writable, or copy ${path}${journal} to a writable folder and open the copy`,
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new StoreError(
      `store ${path} is read-only (${sqliteError?.message}); make it writable (the file and its folder), or use another store file (--store PATH; in the library, openStore({ path, readonly: true }) reads it)`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StoreError(
      `cannot initialise store ${path}: ${sqliteError?.message}; it is not a Repute store or it is damaged: pass the path of an existing store or of a new file (restore a damaged one from a backup)`,
      { cause: error },
    );
  }
  // A held lock, a full disk, an I/O error: said as for any store method.
  const explained = sqliteError && explainSqliteFailure(context, 'openStore', sqliteError, false);
  if (explained !== undefined) return explained;
  if (error instanceof StoreError) return error;
  return new StoreError(`cannot initialise store ${path}: ${(error as Error).message}`, { cause: error });
}

/**
 * Makes SQLite's silent read-only open visible (it opens a file read-only when the file or its
 * folder cannot be written): a write statement that changes nothing fails with SQLITE_READONLY, so
 * the caller learns it at open and not at its first write, mid-run.
 */
function probeWrite(db: Database.Database): void {
  try {
    db.transaction(() => db.prepare('DELETE FROM schema_version WHERE 0').run()).immediate();
  } catch (error) {
    // Another connection holding the write lock past the busy timeout: the file is writable, only
    // busy. The store opens; its writes wait for the lock like any other (store.test.ts pins this).
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
  }
}
