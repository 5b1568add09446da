// Internal: the store's folder, and the check every writer of a store file runs before it opens one
// (openStore, and `repute run` before it takes its lock file beside the store).
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StoreError } from '../core/errors.js';
import { isPostgresUrl } from './_postgres-url.js';

/** The absolute folder a store file lives in (SQLite keeps its journal and shared-memory files there). */
export function storeFolder(path: string): string {
  return dirname(resolve(path));
}

/** Whether this process may create files in the store's folder (`false` when the folder is missing too). */
export function isStoreFolderWritable(path: string): boolean {
  try {
    accessSync(storeFolder(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a store whose folder exists but cannot be written, with a {@link StoreError} naming the
 * folder and what to do: SQLite keeps the store's WAL journal there (even a store file that is
 * itself writable cannot be opened for writing without it), and on its own says only "unable to
 * open database file". `:memory:` and a folder that does not exist yet pass (the caller creates it,
 * or SQLite's open says it is missing).
 */
export function assertStoreFolderWritable(path: string): void {
  // A PostgreSQL store has no folder: the server keeps its files.
  if (path === ':memory:' || isPostgresUrl(path)) return;
  const folder = storeFolder(path);
  if (!existsSync(folder)) return;
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new StoreError(
      `cannot write in the folder ${folder} of store ${path} (${(error as NodeJS.ErrnoException).code ?? 'not writable'}); SQLite keeps the store's journal there: make the folder writable or pass --store <a .db path in a writable folder> (library: openStore({ path }) with such a path)`,
      { cause: error },
    );
  }
}
