import Database from 'better-sqlite3';
import { InvalidArgumentError } from '../core/errors.js';

/** What every table family of an open store shares: the connection, its clock and the open/transaction guards. */
export interface StoreContext {
  /** The open better-sqlite3 connection (migrated). */
  readonly db: Database.Database;
  /** The path the store was opened with, for messages. */
  readonly path: string;
  /** Clock for every timestamp, in milliseconds. */
  readonly now: () => number;
  /** Throws a `StoreError` once the store is closed. */
  readonly guard: () => void;
  /** Runs `work` in one immediate transaction (nested calls join it). */
  readonly transaction: <T>(work: () => T) => T;
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

/** Whether `error` is a SQLite constraint failure with this code, e.g. `SQLITE_CONSTRAINT_PRIMARYKEY`. */
export function isConstraint(error: unknown, code: string): boolean {
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
