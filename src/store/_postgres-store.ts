// Internal: the PostgreSQL store. The same `Store`, built from the same table modules as the SQLite
// store over a synchronous adapter (`_postgres-connection.ts`): `?` parameters become `$n`, each
// distinct statement is prepared once on the server, a transaction is BEGIN ... COMMIT on the one
// connection (nested calls are savepoints, as better-sqlite3 does), and `lock(key)` takes a
// transaction advisory lock so two processes appending to one run cannot read the same next `seq`.
import { StoreError } from '../core/errors.js';
import { connectPostgres, type PostgresConnection } from './_postgres-connection.js';
import { migratePostgres, readPostgresSchemaVersion } from './_postgres-schema.js';
import { LATEST_SCHEMA_VERSION } from './_schema.js';
import type { SqlDatabase, SqlStatement, StoreContext } from './_store-context.js';
import { explainPostgresFailure, type StoreFailureContext } from './_store-errors.js';
import { PostgresQueryError } from './_postgres-connection.js';
import { redactPostgresUrl } from './_postgres-url.js';
import { assembleStore } from './_assemble-store.js';
import type { Store } from './types.js';

/** `?` placeholders (outside string literals) as PostgreSQL's `$1`, `$2`, ... */
export function toPostgresPlaceholders(sql: string): string {
  let index = 0;
  let quoted = false;
  let out = '';
  for (const char of sql) {
    if (char === "'") quoted = !quoted;
    out += char === '?' && !quoted ? `$${++index}` : char;
  }
  return out;
}

/** The adapter the table modules use: better-sqlite3's `prepare().run/get/all`, over one connection. */
function createPostgresDatabase(connection: PostgresConnection): SqlDatabase {
  const names = new Map<string, string>();
  return {
    prepare(sql: string): SqlStatement {
      const text = toPostgresPlaceholders(sql);
      let name = names.get(text);
      if (name === undefined) {
        name = `repute_${names.size + 1}`;
        names.set(text, name);
      }
      const query = (params: unknown[]) => connection.query(text, params, name);
      return {
        run: (...params) => ({ changes: query(params).rowCount }),
        get: (...params) => query(params).rows[0],
        all: (...params) => query(params).rows,
      };
    },
  };
}

/** Opens (and, unless `readonly`, migrates) the PostgreSQL store at `url`. */
export function openPostgresStore(input: {
  url: string;
  now: () => number;
  readonly: boolean;
  busyTimeoutMs: number;
}): Store {
  const { url, now, readonly, busyTimeoutMs } = input;
  const label = redactPostgresUrl(url);
  const failureContext: StoreFailureContext = { path: label, readonly, busyTimeoutMs };
  // A query may wait for a lock another process holds (busyTimeoutMs, as SQLite's busy timeout);
  // the connection's own wait is longer, so the server's lock timeout is the one that fires.
  const connection = connectPostgres({ url, label, timeoutMs: busyTimeoutMs + 30_000 });
  let schemaVersion: number;
  try {
    connection.query(`SET lock_timeout = ${Math.max(1, busyTimeoutMs)}`);
    if (readonly) {
      schemaVersion = readPostgresSchemaVersion(connection);
      if (schemaVersion !== LATEST_SCHEMA_VERSION) {
        throw new StoreError(
          schemaVersion > LATEST_SCHEMA_VERSION
            ? `store ${label} has schema version ${schemaVersion}, newer than this Repute supports (${LATEST_SCHEMA_VERSION}); upgrade Repute`
            : `store ${label} has schema version ${schemaVersion}, expected ${LATEST_SCHEMA_VERSION}; open it once without readonly to create or migrate it`,
        );
      }
    } else {
      schemaVersion = migratePostgres(connection, label, now);
    }
  } catch (error) {
    connection.close();
    if (error instanceof PostgresQueryError) throw explainPostgresFailure(failureContext, 'openStore', error, false);
    throw error;
  }

  let closed = false;
  const guard = (): void => {
    if (closed) throw new StoreError(`store ${label} is closed; open it again with openStore({ path })`);
  };
  let depth = 0;
  const transaction = <T>(work: () => T): T => {
    guard();
    const savepoint = depth === 0 ? undefined : `repute_nested_${depth}`;
    connection.query(savepoint === undefined ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
    depth += 1;
    try {
      const result = work();
      connection.query(savepoint === undefined ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (error) {
      try {
        connection.query(savepoint === undefined ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}`);
      } catch {
        // The connection is gone: the server rolled the transaction back.
      }
      throw error;
    } finally {
      depth -= 1;
    }
  };
  const context: StoreContext = {
    db: createPostgresDatabase(connection),
    path: label,
    now,
    guard,
    transaction,
    lock: (key) => {
      connection.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key], 'repute_lock');
    },
  };
  return assembleStore(context, {
    schemaVersion,
    failureContext,
    // A caller's own transaction (a read-modify-write such as the team endpoint's decision) is
    // serialised with every other caller's, as SQLite's IMMEDIATE transaction is, so moving a store
    // from SQLite to PostgreSQL cannot turn it into a lost update. The store's own writes take
    // finer locks (per run, per team reputation, per cache key).
    transaction: (work) =>
      transaction(() => {
        if (depth === 1) {
          connection.query(
            "SELECT pg_advisory_xact_lock(hashtextextended('repute-store:' || current_schema(), 0))",
            [],
            'repute_store_lock',
          );
        }
        return work();
      }),
    close() {
      if (closed) return;
      closed = true;
      connection.close();
    },
  });
}
