import Database from 'better-sqlite3';
import { InvalidArgumentError } from '../core/errors.js';
import { PostgresQueryError } from './_postgres-connection.js';

/** A prepared statement with `?` parameters, as better-sqlite3 has them (the Postgres adapter mirrors it). */
export interface SqlStatement {
  /** Runs a write; `changes` is the number of rows it changed. */
  run(...params: unknown[]): { changes: number };
  /** The first row, or `undefined`. */
  get(...params: unknown[]): unknown;
  /** Every row. */
  all(...params: unknown[]): unknown[];
}

/** The part of a connection the table families use: better-sqlite3's `Database`, or the Postgres adapter. */
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
}

/** What every table family of an open store shares: the connection, its clock and the open/transaction guards. */
export interface StoreContext {
  /** The open connection (migrated): better-sqlite3's, or the Postgres adapter (same SQL, `?` parameters). */
  readonly db: SqlDatabase;
  /** The path the store was opened with, for messages. */
  readonly path: string;
  /** Clock for every timestamp, in milliseconds. */
  readonly now: () => number;
  /** Throws a `StoreError` once the store is closed. */
  readonly guard: () => void;
  /** Runs `work` in one immediate transaction (nested calls join it). */
  readonly transaction: <T>(work: () => T) => T;
  /**
   * Inside a transaction, serialises it with every other writer of `key` (e.g. `run:<id>`) until it
   * ends. SQLite needs nothing (an immediate transaction already holds the one write lock); Postgres
   * takes a transaction advisory lock, so two processes cannot both read the same next `seq`.
   */
  readonly lock: (key: string) => void;
}

/** `JSON.stringify(value)`, or an `InvalidArgumentError` naming `parameter` when the value is not serialisable. */
export function toJson(parameter: string, value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be JSON-serialisable: ${(error as Error).message}`,
      cause: error,
    });
  }
  if (json === undefined) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be JSON-serialisable, got ${typeof value}`,
    });
  }
  return json;
}

/**
 * Whether `error` is a SQLite constraint failure with this code, e.g. `SQLITE_CONSTRAINT_PRIMARYKEY`,
 * or its Postgres equivalent (a unique violation, 23505, of the table's `_pkey` constraint).
 */
export function isConstraint(error: unknown, code: 'SQLITE_CONSTRAINT_PRIMARYKEY'): boolean {
  if (error instanceof PostgresQueryError) return error.code === '23505' && /_pkey$/.test(error.constraint ?? '');
  return error instanceof Database.SqliteError && error.code === code;
}

/**
 * The SQL conditions whose value is set, in order, with their values: each entry is a condition with
 * one `?` placeholder (e.g. `'team = ?'`) and the value to bind, or `undefined` to leave it out.
 */
export function setConditions<T extends string | number>(
  entries: ReadonlyArray<readonly [condition: string, value: T | undefined]>,
): { clauses: string[]; values: T[] } {
  const clauses: string[] = [];
  const values: T[] = [];
  for (const [condition, value] of entries) {
    if (value === undefined) continue;
    clauses.push(condition);
    values.push(value);
  }
  return { clauses, values };
}
