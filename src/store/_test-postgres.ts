// Internal test helper: a PostgreSQL database of its own for one test file, created on first use
// (`repute_test_<pid>_<random>`) and dropped after the file. Tests that need PostgreSQL call
// `postgresAvailable()` and skip, with one line saying why, when no server answers; CI starts one
// (.ci/run) and sets REPUTE_REQUIRE_POSTGRES=1, so there they run or fail. `REPUTE_TEST_POSTGRES` overrides the server URL (default
// postgres://root@127.0.0.1:5432/postgres, trust auth).
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { connectPostgres, type PostgresConnection } from './_postgres-connection.js';

const serverUrl = process.env.REPUTE_TEST_POSTGRES ?? 'postgres://root@127.0.0.1:5432/postgres';

let admin: PostgresConnection | undefined;
let reason: string | undefined;
let database: string | undefined;
let schemas = 0;

/** The server URL with another database name. */
function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Whether a PostgreSQL server answers; the first call prints why not when it does not. */
export function postgresAvailable(): boolean {
  if (admin !== undefined) return true;
  if (reason !== undefined) return false;
  const connection = connectPostgres({ url: serverUrl, label: serverUrl, timeoutMs: 60_000 });
  try {
    connection.query('SELECT 1');
    admin = connection;
    return true;
  } catch (error) {
    connection.close();
    reason = (error as Error).message;
    // .ci/run sets this once it has seen the server up: there a skip would hide a broken store.
    if (process.env.REPUTE_REQUIRE_POSTGRES === '1') {
      throw new Error(`REPUTE_REQUIRE_POSTGRES=1 but no PostgreSQL server at ${serverUrl}: ${reason}`);
    }
    console.info(
      `PostgreSQL tests skipped: no server at ${serverUrl} (${reason}); start one (see .ci/run) or set REPUTE_TEST_POSTGRES`,
    );
    return false;
  }
}

/** This file's own database (created on first call, dropped after the file); its URL. */
export function postgresTestDatabase(): string {
  if (!postgresAvailable() || admin === undefined)
    throw new Error('no PostgreSQL server; guard with postgresAvailable()');
  if (database === undefined) {
    database = `repute_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    admin.query(`CREATE DATABASE ${database}`);
  }
  return withDatabase(serverUrl, database);
}

/**
 * The URL of a new, empty schema in this file's database: `openStore({ path })` on it is a new
 * store (its tables go into that schema, first in `search_path`).
 */
export function newPostgresStoreUrl(): string {
  const url = new URL(postgresTestDatabase());
  schemas += 1;
  const schema = `s${schemas}_${randomBytes(3).toString('hex')}`;
  const connection = connectPostgres({ url: url.toString(), label: 'test', timeoutMs: 10_000 });
  try {
    connection.query(`CREATE SCHEMA ${schema}`);
  } finally {
    connection.close();
  }
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

afterAll(() => {
  if (admin === undefined) return;
  if (database !== undefined) admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  admin.close();
  admin = undefined;
  database = undefined;
});
