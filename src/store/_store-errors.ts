// Internal: how SQLite's failures leave the store. Every public method runs inside `withStoreErrors`,
// so a caller never sees a bare SqliteError: it gets a StoreError naming the store file and the
// method, saying what happened in words and what to do, with SQLite's error as its `cause`.
import Database from 'better-sqlite3';
import { StoreError } from '../core/errors.js';
import { PostgresQueryError } from './_postgres-connection.js';

/** An error better-sqlite3 throws for a failed SQLite call; `code` is SQLite's, e.g. `SQLITE_BUSY`. */
export type SqliteError = InstanceType<typeof Database.SqliteError>;

/** What the messages say about the store a failure happened in. */
export interface StoreFailureContext {
  /** The path the store was opened with. */
  readonly path: string;
  /** Whether it was opened with `readonly: true`. */
  readonly readonly: boolean;
  /** Its lock wait, in milliseconds. */
  readonly busyTimeoutMs: number;
}

/** The store methods that write; the others only read. */
const writeMethods: ReadonlySet<string> = new Set([
  'createRun',
  'ensureRun',
  'setRunStatus',
  'recordTaskResult',
  'recordTaskFailure',
  'appendEvents',
  'saveReputation',
  'saveTeam',
  'putCachedResponse',
  'recordUsage',
  'appendReputationEvent',
  'acquireReputationLease',
  'commitReputationFold',
  'claimCachedResponse',
  'releaseCachedResponseClaim',
]);

/** The SqliteError in `error` or its `cause` (a StoreError that wrapped one), if any. */
export function findSqliteError(error: unknown): SqliteError | undefined {
  if (error instanceof Database.SqliteError) return error;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof Database.SqliteError ? cause : undefined;
}

/**
 * A StoreError for a SQLite failure of `operation` (a store method, or `openStore`), or `undefined`
 * when its code is not one this module explains (the caller keeps its own message then). `wroteNothing`
 * adds that the call changed nothing: every write method is one transaction, rolled back on failure.
 */
export function explainSqliteFailure(
  { path, busyTimeoutMs }: StoreFailureContext,
  operation: string,
  error: SqliteError,
  wroteNothing: boolean,
): StoreError | undefined {
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, ...) share their primary code's meaning.
  const primary = error.code.split('_').slice(0, 2).join('_');
  const explain = (reason: string, advice: string): StoreError =>
    new StoreError(
      `store ${path}: ${operation} failed${wroteNothing ? ' and wrote nothing' : ''}: ${reason} (${error.code}: ${error.message}); ${advice}`,
      { cause: error },
    );
  switch (primary) {
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return explain(
        `another connection (usually another process writing to it) kept it locked longer than busyTimeoutMs = ${busyTimeoutMs} ms`,
        'retry once that writer is done, raise openStore({ busyTimeoutMs }), or use another store file (CLI: --store PATH)',
      );
    case 'SQLITE_FULL':
      return explain(
        'the disk or file system holding it is full',
        'free space there or move the store to a disk with room, then retry',
      );
    case 'SQLITE_READONLY':
      // A store opened read-only refuses writes before SQLite sees them (withStoreErrors): this one was writable at open.
      return explain(
        'its file or its folder is no longer writable',
        'make both writable again, or use another store file (CLI: --store PATH)',
      );
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return explain(
        'the store file is damaged',
        "restore it from a backup or start a new store file (the sqlite3 shell's .recover command may save what is still readable)",
      );
    case 'SQLITE_IOERR':
    case 'SQLITE_CANTOPEN':
      return explain(
        `the operating system reported an I/O error on it or on its journal (${path}-wal, ${path}-shm)`,
        'check the disk, and that these files were not moved or deleted while the store was open; then open the store again and retry',
      );
    default:
      return undefined;
  }
}

/**
 * `methods` with every function wrapped so that a SqliteError it throws leaves as a StoreError
 * (explained when {@link explainSqliteFailure} knows the code, else naming the method), and, on a
 * store opened read-only, every write method refused before it reaches SQLite. Errors that are not
 * SQLite's (a `NotFoundError`, a caller's own error inside `transaction`) pass unchanged.
 */
export function withStoreErrors<T extends object>(methods: T, context: StoreFailureContext): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(methods)) {
    if (typeof value !== 'function') {
      wrapped[name] = value;
      continue;
    }
    const writes = writeMethods.has(name);
    wrapped[name] = (...args: unknown[]): unknown => {
      if (writes && context.readonly) {
        throw new StoreError(
          `store ${context.path} was opened read-only: ${name} cannot write to it; open it without { readonly: true } to write`,
        );
      }
      try {
        return value(...args);
      } catch (error) {
        if (error instanceof PostgresQueryError) {
          throw explainPostgresFailure(context, name, error, writes || name === 'transaction');
        }
        if (!(error instanceof Database.SqliteError)) throw error;
        // A failed `transaction` wrote nothing too: its work was rolled back.
        throw (
          explainSqliteFailure(context, name, error, writes || name === 'transaction') ??
          new StoreError(`store ${context.path}: ${name} failed: ${error.code}: ${error.message}`, { cause: error })
        );
      }
    };
  }
  return wrapped as T;
}

/**
 * A StoreError for a PostgreSQL failure of `operation`: the server's SQLSTATE and message, what it
 * means for the common cases, and what to do. Every write method is one transaction, rolled back
 * on failure, so `wroteNothing` holds as for SQLite.
 */
export function explainPostgresFailure(
  { path }: StoreFailureContext,
  operation: string,
  error: PostgresQueryError,
  wroteNothing: boolean,
): StoreError {
  const explain = (reason: string, advice: string): StoreError =>
    new StoreError(
      `store ${path}: ${operation} failed${wroteNothing ? ' and wrote nothing' : ''}: ${reason} (${error.code}: ${error.message}); ${advice}`,
      { cause: error },
    );
  if (error.code === 'connection' || error.code.startsWith('08') || error.code.startsWith('57P')) {
    return explain(
      'the connection to the PostgreSQL server failed',
      'check that the server is up and the URL (host, port, database, user) is right, then open the store again',
    );
  }
  if (error.code === '40P01' || error.code === '40001') {
    return explain('PostgreSQL aborted the transaction to resolve a conflict with another writer', 'retry the call');
  }
  if (error.code === '53100') return explain('the server is out of disk space', 'free space on the server, then retry');
  if (error.code === '25006') {
    return explain('the server is read-only (a standby?)', 'point the store at the primary server');
  }
  return explain('PostgreSQL refused the statement', 'check the server log; a damaged schema needs a new database');
}
