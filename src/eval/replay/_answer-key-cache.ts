// Internal: the replay's answer-key cache on disk. Canonical keys, equivalences and scores are pure
// functions of their strings and of the answer code, and computing them is most of a replay's serial
// start (the math kind parses every distinct answer and payload candidate with the compute engine:
// about 13,000 parses, 2.5 s, on the full MATH-L5 grid). A run saves what it computed; the next run
// of the same answer code on the same dataset starts from it. The file is named by the dataset's path
// and a fingerprint of that code (the replay's scoring and every module it imports, transitively:
// core/answers and what it uses from core, the compute engine's bundle; and the Node version), so
// changed code never reads keys an older version computed; a file that does not read as this
// version's cache is ignored and rewritten.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerKinds, type AnswerKind } from '../../core/answers/answer-kind.js';
import { emptyAnswerTables, mergeAnswerTables, type AnswerTables, type MemoizedAnswerOps } from './_memo-answer-ops.js';

/** Shape version of the cache file. */
const cacheSchemaVersion = 1;
/**
 * A cache that would grow past this size is removed instead of written; the next run starts it over.
 * So no cache file of this code is larger, and a larger file at its name is not read.
 */
export const maxCacheBytes = 32 * 1024 * 1024;
/** Cache files of other fingerprints (other code versions) kept beside the current ones. */
const keptOtherVersions = 3;

/**
 * The default cache directory: `$REPUTE_CACHE_DIR`, else `$XDG_CACHE_HOME/repute`, else
 * `~/.cache/repute`.
 */
export function defaultCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REPUTE_CACHE_DIR) return env.REPUTE_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'repute');
  return join(homedir(), '.cache', 'repute');
}

let fingerprintMemo: string | undefined;

// Static imports and re-exports (`import … from '…'`, `export … from '…'`, `import '…'`; a statement
// of `import type`/`export type` is left out: it leaves no code) and dynamic `import('…')` calls.
const staticImport = /^[ \t]*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"\n]+)['"]/gm;
const dynamicImport = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  for (const match of text.matchAll(staticImport)) if (match[1] === undefined) specifiers.push(match[2] as string);
  for (const match of text.matchAll(dynamicImport)) specifiers.push(match[1] as string);
  return specifiers;
}

// A relative specifier names the `.js` of a build; the sources (run through tsx or vitest) have the `.ts`.
function resolveRelative(from: string, specifier: string): string | undefined {
  const path = resolve(dirname(from), specifier);
  if (existsSync(path)) return path;
  const source = path.replace(/\.js$/, '.ts');
  return source !== path && existsSync(source) ? source : undefined;
}

/**
 * The files the default answer ops run, each with the name it is hashed under: `default-answer-ops`
 * and every module it imports, followed transitively (`core/answers`, and what those import from
 * elsewhere, such as `core/options`, `core/validate` and `core/errors`), as the `.js` of a build or
 * the `.ts` of the sources; and the entry file of each package they import (the compute engine's
 * self-contained bundle, the file `import` loads).
 */
export function answerCodeFiles(): { name: string; path: string }[] {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const start = ['default-answer-ops.js', 'default-answer-ops.ts']
    .map((name) => fileURLToPath(new URL(name, import.meta.url)))
    .find((path) => existsSync(path));
  if (start === undefined) throw new Error(`default-answer-ops is not beside ${fileURLToPath(import.meta.url)}`);
  const files = new Map<string, string>();
  const pending = [start];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (files.has(path)) continue;
    files.set(path, relative(root, path));
    for (const specifier of importsOf(readFileSync(path, 'utf8'))) {
      if (specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) {
        const target = resolveRelative(path, specifier);
        if (target !== undefined) pending.push(target);
        continue;
      }
      const url = import.meta.resolve(specifier);
      if (url.startsWith('file:')) files.set(fileURLToPath(url), `package ${specifier}`);
    }
  }
  return [...files]
    .map(([path, name]) => ({ name, path }))
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

/**
 * A hash of the code the cached answers depend on: every file {@link answerCodeFiles} lists (the
 * default answer ops and, transitively, everything they import) and the Node version.
 */
export function answerCodeFingerprint(): string {
  if (fingerprintMemo !== undefined) return fingerprintMemo;
  const hash = createHash('sha256');
  hash.update(`node ${process.version}\n`);
  for (const { name, path } of answerCodeFiles()) hash.update(`${name}\n`).update(readFileSync(path));
  fingerprintMemo = hash.digest('hex').slice(0, 16);
  return fingerprintMemo;
}

/** What loading the cache found. */
export interface AnswerKeyCache {
  /** The cache file of this code version. */
  readonly file: string;
  /** The saved answers (empty when there was no usable file). */
  readonly tables: AnswerTables;
  /** Answers read from the file. */
  readonly loaded: number;
  /**
   * Why a file that existed was not used (unreadable, another shape, larger than {@link maxCacheBytes}),
   * in words for the run's report; `undefined` when it was, or there was none.
   */
  readonly ignored: string | undefined;
}

/** Loads the cache of this code version and `dataset` (a path) from `directory` (a missing directory or file is an empty cache). */
export function loadAnswerKeyCache(directory: string, dataset: string): AnswerKeyCache {
  // One file per dataset (by its resolved path), so a run loads the answers of its own data only.
  const datasetKey = createHash('sha256').update(resolve(dataset)).digest('hex').slice(0, 12);
  const file = join(directory, `answer-keys-${answerCodeFingerprint()}-${datasetKey}.json`);
  const empty = (ignored: string | undefined): AnswerKeyCache => ({
    file,
    tables: emptyAnswerTables(),
    loaded: 0,
    ignored,
  });
  let text: string;
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) return empty(undefined);
    // Not read at all: a directory or pipe in its place, or a file larger than any this code writes
    // (reading it would only spend memory on a file that cannot be this code's cache).
    if (!stat.isFile()) return empty('not a file');
    if (stat.size > maxCacheBytes)
      return empty(
        `${(stat.size / 2 ** 20).toFixed(1)} MB, larger than the ${maxCacheBytes / 2 ** 20} MB a cache can reach in this version (a run removes one that would grow past it), so this version did not write it; not read: the run computes its answers and writes them in its place`,
      );
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty(undefined);
    return empty(`unreadable (${(error as Error).message})`);
  }
  try {
    const { tables, loaded } = readTables(JSON.parse(text) as unknown);
    return { file, tables, loaded, ignored: undefined };
  } catch (error) {
    return empty((error as Error).message);
  }
}

function fail(message: string): never {
  throw new Error(message);
}

const isKind = (kind: string): kind is AnswerKind => (answerKinds as readonly string[]).includes(kind);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function readTables(value: unknown): { tables: AnswerTables; loaded: number } {
  if (!isRecord(value)) fail('not a JSON object');
  if (value.schemaVersion !== cacheSchemaVersion)
    fail(`schemaVersion ${String(value.schemaVersion)}, not ${cacheSchemaVersion}`);
  if (value.fingerprint !== answerCodeFingerprint()) fail('written by other answer code');
  const tables = emptyAnswerTables();
  let loaded = 0;
  const sections = (name: 'canonical' | 'equivalent' | 'score') => {
    const section = value[name];
    if (!isRecord(section)) fail(`${name} is not an object`);
    return Object.entries(section).map(([kind, rows]): [AnswerKind, unknown[]] => {
      if (!isKind(kind)) fail(`${name} has an unknown kind ${JSON.stringify(kind)}`);
      if (!Array.isArray(rows)) fail(`${name}.${kind} is not a list`);
      return [kind, rows];
    });
  };
  const isString = (entry: unknown): entry is string => typeof entry === 'string';
  const isUnit = (entry: unknown): entry is number =>
    typeof entry === 'number' && Number.isFinite(entry) && entry >= 0 && entry <= 1;
  for (const [kind, rows] of sections('canonical')) {
    const table = new Map<string, string | null>();
    for (const row of rows) {
      if (!Array.isArray(row) || row.length !== 2 || !isString(row[0]) || !(row[1] === null || isString(row[1])))
        fail(`canonical.${kind} has a malformed entry`);
      if (table.has(row[0])) fail(`canonical.${kind} repeats ${JSON.stringify(row[0])}`);
      table.set(row[0], row[1]);
    }
    tables.canonical.set(kind, table);
    loaded += table.size;
  }
  for (const [kind, rows] of sections('equivalent')) {
    const table = new Map<string, Map<string, boolean>>();
    for (const row of rows) {
      if (
        !Array.isArray(row) ||
        row.length !== 3 ||
        !isString(row[0]) ||
        !isString(row[1]) ||
        (row[2] !== 0 && row[2] !== 1)
      )
        fail(`equivalent.${kind} has a malformed entry`);
      const inner = table.get(row[0]) ?? new Map<string, boolean>();
      table.set(row[0], inner);
      if (inner.has(row[1])) fail(`equivalent.${kind} repeats ${JSON.stringify([row[0], row[1]])}`);
      inner.set(row[1], row[2] === 1);
      loaded++;
    }
    tables.equivalent.set(kind, table);
  }
  for (const [kind, rows] of sections('score')) {
    const table = new Map<string, Map<string, { exact: number; f1: number }>>();
    for (const row of rows) {
      if (
        !Array.isArray(row) ||
        row.length !== 4 ||
        !isString(row[0]) ||
        !isString(row[1]) ||
        (row[2] !== 0 && row[2] !== 1) ||
        !isUnit(row[3])
      )
        fail(`score.${kind} has a malformed entry`);
      const inner = table.get(row[0]) ?? new Map<string, { exact: number; f1: number }>();
      table.set(row[0], inner);
      if (inner.has(row[1])) fail(`score.${kind} repeats ${JSON.stringify([row[0], row[1]])}`);
      inner.set(row[1], { exact: row[2], f1: row[3] });
      loaded++;
    }
    tables.score.set(kind, table);
  }
  return { tables, loaded };
}

/**
 * Writes `tables` as the cache file, piece by piece (no copy of the tables as one JSON value), to a
 * temporary file renamed over it, so a reader never sees half a file and concurrent runs leave one
 * whole file. A cache that would pass `maxBytes` (32 MB) is removed instead, and the next run starts
 * it over. Of the cache files of other code versions, all but the 3 most recent are removed. Returns the
 * number of answers written (0 when the cache was removed).
 */
export function saveAnswerKeyCache(cache: AnswerKeyCache, tables: AnswerTables, maxBytes = maxCacheBytes): number {
  const directory = dirname(cache.file);
  mkdirSync(directory, { recursive: true });
  // Named by process and a random part: runs in other containers of a shared cache can have the same pid.
  const temporary = `${cache.file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const descriptor = openSync(temporary, 'wx');
  let pending = '';
  let bytes = 0;
  let written = 0;
  const flush = () => {
    writeSync(descriptor, pending);
    pending = '';
  };
  // Appends text; false once the file would pass maxBytes.
  const put = (text: string): boolean => {
    pending += text;
    bytes += Buffer.byteLength(text);
    if (pending.length >= 1 << 16) flush();
    return bytes <= maxBytes;
  };
  // One section per operation, one list of tuples per kind: [raw, key], [left, right, 0|1], [reference, key, exact, f1].
  const section = <T>(
    name: string,
    byKind: ReadonlyMap<AnswerKind, ReadonlyMap<string, T>>,
    rows: (outer: string, value: T, emit: (row: unknown[]) => boolean) => boolean,
  ): boolean => {
    if (!put(`,${JSON.stringify(name)}:{`)) return false;
    let separator = '';
    for (const [kind, table] of byKind) {
      if (!put(`${separator}${JSON.stringify(kind)}:[`)) return false;
      separator = ',';
      let rowSeparator = '';
      const emit = (row: unknown[]): boolean => {
        written++;
        const fits = put(`${rowSeparator}${JSON.stringify(row)}`);
        rowSeparator = ',';
        return fits;
      };
      for (const [outer, value] of table) if (!rows(outer, value, emit)) return false;
      if (!put(']')) return false;
    }
    return put('}');
  };
  let fits = false;
  let closed = false;
  let renamed = false;
  try {
    fits =
      put(`{"schemaVersion":${cacheSchemaVersion},"fingerprint":${JSON.stringify(answerCodeFingerprint())}`) &&
      section('canonical', tables.canonical, (raw, key, emit) => emit([raw, key])) &&
      section('equivalent', tables.equivalent, (left, inner, emit) => {
        for (const [right, same] of inner) if (!emit([left, right, same ? 1 : 0])) return false;
        return true;
      }) &&
      section('score', tables.score, (reference, inner, emit) => {
        for (const [key, value] of inner) if (!emit([reference, key, value.exact, value.f1])) return false;
        return true;
      }) &&
      put('}');
    if (fits) flush();
    closed = true;
    closeSync(descriptor);
    if (!fits) {
      rmSync(cache.file, { force: true });
      return 0;
    }
    renameSync(temporary, cache.file);
    renamed = true;
  } finally {
    // A write or rename that failed (a full disk, a directory in the file's place) leaves no temporary file.
    if (!closed) closeSync(descriptor);
    if (!renamed) rmSync(temporary, { force: true });
  }
  removeStaleFiles(directory);
  return written;
}

/** What a run did with the answer-key cache, for its report (the fields of the replay report's `keyCache`). */
export interface AnswerKeyCacheWriteBack {
  /** The cache file of this code version. */
  readonly file: string;
  /** Answers read from it. */
  readonly loaded: number;
  /** Answers the run computed (not in the cache). */
  readonly computed: number;
  /** Saved answers the run never asked for, left out of the file it wrote; 0 when it stopped early or wrote nothing. */
  readonly dropped: number;
  /**
   * Every problem, in the order they happened, joined by `; then ` (the file read was ignored, then the
   * save failed, say): `undefined` when there was none.
   */
  readonly problem: string | undefined;
}

/**
 * Saves the run's answers to the key cache and says what happened. A finished run writes its working set
 * (every answer it asked for, read or computed) when it computed any or left saved answers unasked: the
 * file then holds what this run needs, so it does not grow with every other seed or sample ever
 * replayed on the dataset. A run that stopped early keeps the unasked answers too. A cache that
 * cannot be written does not fail the run (the results do not depend on it); `problem` says why, after
 * why the file read was ignored, if it was: no problem replaces an earlier one.
 */
export function writeBackAnswerKeyCache(
  cache: AnswerKeyCache,
  ops: Pick<MemoizedAnswerOps, 'tables' | 'computed' | 'reused'>,
  finished: boolean,
  maxBytes = maxCacheBytes,
): AnswerKeyCacheWriteBack {
  const problems: string[] = [];
  if (cache.ignored !== undefined) problems.push(`ignored ${cache.file}: ${cache.ignored}`);
  const computed = ops.computed();
  // The saved answers the run never asked for.
  const unasked = cache.loaded - ops.reused();
  let dropped = finished ? unasked : 0;
  if (computed > 0 || dropped > 0) {
    try {
      const tables = finished ? ops.tables : mergeAnswerTables(ops.tables, cache.tables);
      if (saveAnswerKeyCache(cache, tables, maxBytes) === 0) {
        const limit = maxBytes >= 2 ** 20 ? `${maxBytes / 2 ** 20} MB` : `${maxBytes} bytes`;
        problems.push(`removed ${cache.file}: it would pass ${limit}; the next run starts it over`);
      }
    } catch (error) {
      // Nothing was written back: the file (if the failure left it) still holds every saved answer.
      dropped = 0;
      problems.push(`could not save ${cache.file}: ${(error as Error).message}`);
    }
  }
  return {
    file: cache.file,
    loaded: cache.loaded,
    computed,
    dropped,
    problem: problems.length === 0 ? undefined : problems.join('; then '),
  };
}

// Of the cache files of other code versions, keeps the 3 most recent; removes temporary files a killed
// run left (older than an hour, so no running save loses its own). A file another run removed meanwhile
// is skipped.
function removeStaleFiles(directory: string): void {
  const current = `answer-keys-${answerCodeFingerprint()}-`;
  const entries = readdirSync(directory)
    .filter((name) => /^answer-keys-[0-9a-f]+-[0-9a-f]+\.json(\.[0-9a-f-]+\.tmp)?$/.test(name))
    .flatMap((name) => {
      const path = join(directory, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      return stat === undefined ? [] : [{ name, path, modified: stat.mtimeMs }];
    });
  const others = entries
    .filter(({ name }) => name.endsWith('.json') && !name.startsWith(current))
    .sort((left, right) => right.modified - left.modified);
  for (const stale of others.slice(keptOtherVersions)) rmSync(stale.path, { force: true });
  const hourAgo = Date.now() - 60 * 60 * 1000;
  for (const leftover of entries)
    if (leftover.name.endsWith('.tmp') && leftover.modified < hourAgo) rmSync(leftover.path, { force: true });
}
