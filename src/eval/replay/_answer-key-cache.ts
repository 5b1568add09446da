// Internal: the replay's answer-key cache on disk. Canonical keys, equivalences and scores are pure
// functions of their strings and of the answer code, and computing them is most of a replay's serial
// start (the math kind parses every distinct answer and payload candidate with the compute engine:
// about 13,000 parses, 2.5 s, on the full MATH-L5 grid). A run saves what it computed; the next run
// of the same answer code starts from it. The file is named by a fingerprint of that code (every
// source file of core/answers, the replay's scoring, the compute engine's bundle and the Node
// version), so changed code never reads keys an older version computed; a file that does not read
// as this version's cache is ignored and rewritten.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerKinds, type AnswerKind } from '../../core/answers/answer-kind.js';
import { emptyAnswerTables, type AnswerTables } from './_memo-answer-ops.js';

/** Shape version of the cache file. */
const cacheSchemaVersion = 1;
/** A cache file above this size is not extended: the run writes only its own answers. */
export const maxCacheBytes = 64 * 1024 * 1024;
/** Cache files of other fingerprints (other code versions) kept beside the current one. */
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

/**
 * A hash of the code the cached answers depend on: every source file of `core/answers` (the `.js`
 * of a build or the `.ts` of the sources, tests left out), the replay's scoring
 * (`default-answer-ops`), the compute engine's bundle, and the Node version.
 */
export function answerCodeFingerprint(): string {
  if (fingerprintMemo !== undefined) return fingerprintMemo;
  const hash = createHash('sha256');
  hash.update(`node ${process.version}\n`);
  const answers = fileURLToPath(new URL('../../core/answers/', import.meta.url));
  const sources = readdirSync(answers)
    .filter((name) => /\.(js|ts)$/.test(name) && !/\.d\.ts$/.test(name) && !/\.test\.ts$/.test(name))
    .sort();
  for (const name of sources) hash.update(`${name}\n`).update(readFileSync(join(answers, name)));
  for (const name of ['default-answer-ops.js', 'default-answer-ops.ts']) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(path)) hash.update(`${name}\n`).update(readFileSync(path));
  }
  const engine = createRequire(import.meta.url).resolve('@cortex-js/compute-engine');
  hash.update('compute-engine\n').update(readFileSync(engine));
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
  /** Why a file that existed was not used (unreadable, another shape); `undefined` when it was, or there was none. */
  readonly ignored: string | undefined;
}

/** The cache file as written: per kind, tuples of the call's strings and its answer. */
interface CacheFile {
  readonly schemaVersion: number;
  readonly fingerprint: string;
  readonly canonical: Record<string, [string, string | null][]>;
  readonly equivalent: Record<string, [string, string, 0 | 1][]>;
  readonly score: Record<string, [string, string, number, number][]>;
}

/** Loads the cache of this code version from `directory` (a missing directory or file is an empty cache). */
export function loadAnswerKeyCache(directory: string): AnswerKeyCache {
  const file = join(directory, `answer-keys-${answerCodeFingerprint()}.json`);
  const empty = (ignored: string | undefined): AnswerKeyCache => ({
    file,
    tables: emptyAnswerTables(),
    loaded: 0,
    ignored,
  });
  let text: string;
  try {
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
        !isUnit(row[2]) ||
        !isUnit(row[3])
      )
        fail(`score.${kind} has a malformed entry`);
      const inner = table.get(row[0]) ?? new Map<string, { exact: number; f1: number }>();
      table.set(row[0], inner);
      inner.set(row[1], { exact: row[2], f1: row[3] });
      loaded++;
    }
    tables.score.set(kind, table);
  }
  return { tables, loaded };
}

function writeTables(tables: AnswerTables): CacheFile {
  const canonical: CacheFile['canonical'] = {};
  for (const [kind, table] of tables.canonical) canonical[kind] = [...table];
  const equivalent: CacheFile['equivalent'] = {};
  for (const [kind, table] of tables.equivalent) {
    const rows: [string, string, 0 | 1][] = [];
    for (const [left, inner] of table) for (const [right, same] of inner) rows.push([left, right, same ? 1 : 0]);
    equivalent[kind] = rows;
  }
  const score: CacheFile['score'] = {};
  for (const [kind, table] of tables.score) {
    const rows: [string, string, number, number][] = [];
    for (const [reference, inner] of table)
      for (const [key, value] of inner) rows.push([reference, key, value.exact, value.f1]);
    score[kind] = rows;
  }
  return { schemaVersion: cacheSchemaVersion, fingerprint: answerCodeFingerprint(), canonical, equivalent, score };
}

/**
 * Writes `tables` as the cache file (a temporary file renamed over it, so a reader never sees half a
 * file and concurrent runs leave one whole file). Above `maxBytes` (64 MB) it starts over with `fresh`
 * (this run's answers alone). Cache files of other code versions beyond the 3 most recent are removed. Returns
 * the number of answers written.
 */
export function saveAnswerKeyCache(
  cache: AnswerKeyCache,
  tables: AnswerTables,
  fresh: AnswerTables,
  maxBytes = maxCacheBytes,
): number {
  const directory = join(cache.file, '..');
  mkdirSync(directory, { recursive: true });
  let written = tables;
  let text = JSON.stringify(writeTables(tables));
  if (Buffer.byteLength(text) > maxBytes) {
    written = fresh;
    text = JSON.stringify(writeTables(fresh));
  }
  const temporary = `${cache.file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, cache.file);
  const others = readdirSync(directory)
    .filter((name) => /^answer-keys-[0-9a-f]+\.json$/.test(name) && join(directory, name) !== cache.file)
    .map((name) => ({ path: join(directory, name), modified: statSync(join(directory, name)).mtimeMs }))
    .sort((left, right) => right.modified - left.modified);
  for (const stale of others.slice(keptOtherVersions)) rmSync(stale.path, { force: true });
  return countAnswers(written);
}

function countAnswers(tables: AnswerTables): number {
  let count = 0;
  for (const table of tables.canonical.values()) count += table.size;
  for (const table of tables.equivalent.values()) for (const inner of table.values()) count += inner.size;
  for (const table of tables.score.values()) for (const inner of table.values()) count += inner.size;
  return count;
}
