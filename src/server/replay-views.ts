// Read models of replay outputs (`repute replay --out DIR` writes summary.json and conditions.csv
// into one folder per replay); the server serves the folders found under `--replay-dir`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataFormatError, NotFoundError } from '../core/errors.js';
import { parseReplaySummary } from '../eval/replay/run-replay.js';

/** A replay output folder. */
export interface ReplayListing {
  readonly name: string;
  /** Dataset name from summary.json, when present. */
  readonly dataset: string | null;
  readonly methods: readonly string[];
  /** Why the folder cannot be shown (e.g. a schemaVersion 1 summary); absent when it can. */
  readonly problem?: string;
}

/** One replay: summary, condition rows and mean accuracy per attack and method. */
export interface ReplayView {
  readonly name: string;
  readonly summary: Record<string, unknown>;
  readonly conditions: ReadonlyArray<Record<string, string | number | null>>;
  /** Attack names (`clean` first), and per method the mean accuracy over conditions of each attack. */
  readonly byAttack: {
    readonly attacks: readonly string[];
    readonly methods: Readonly<Record<string, ReadonlyArray<number | null>>>;
  };
}

/** A replay's `summary.json`, checked to be schema version 2 ({@link parseReplaySummary}: version 1 is refused). */
function readSummary(file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
  } catch (error) {
    throw new DataFormatError({
      file,
      message: `not a replay summary (${(error as Error).message}); rerun repute replay --out to rewrite it`,
      cause: error,
    });
  }
  return parseReplaySummary(value, file) as unknown as Record<string, unknown>;
}

/** Folders under `root` that hold a `summary.json`, sorted by name. */
export function listReplays(root: string | undefined): ReplayListing[] {
  if (root === undefined || !existsSync(root)) return [];
  return readdirSync(root)
    .filter(
      (name) =>
        /^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name) &&
        existsSync(join(root, name, 'summary.json')) &&
        statSync(join(root, name)).isDirectory(),
    )
    .sort()
    .map((name) => {
      let summary: Record<string, unknown>;
      try {
        summary = readSummary(join(root, name, 'summary.json'));
      } catch (error) {
        // One stale folder must not hide the others: it is listed with what is wrong with it.
        if (!(error instanceof DataFormatError)) throw error;
        return { name, dataset: null, methods: [], problem: error.message };
      }
      const data = summary.data as { name?: unknown } | undefined;
      const methods = summary.methods && typeof summary.methods === 'object' ? Object.keys(summary.methods) : [];
      return { name, dataset: typeof data?.name === 'string' ? data.name : null, methods };
    });
}

/** Splits one CSV line (RFC 4180 quoting, as `formatConditionsCsv` writes it). */
function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        cell += '"';
        index++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells;
}

/** Parses conditions.csv: numeric cells become numbers, empty cells `null`. */
export function parseConditionsCsv(text: string): Array<Record<string, string | number | null>> {
  const lines = text.split('\n').filter((line) => line.length > 0);
  const header = splitCsvLine(lines[0] ?? '');
  return lines.slice(1).map((line) => {
    const cells = splitCsvLine(line);
    return Object.fromEntries(
      header.map((column, index) => {
        const cell = cells[index] ?? '';
        if (cell === '') return [column, null];
        const number = Number(cell);
        return [column, /^-?\d/.test(cell) && Number.isFinite(number) ? number : cell];
      }),
    );
  });
}

/**
 * Reads one replay folder under `root`. `name` must be a plain folder name (the route validates
 * it); unknown names throw `NotFoundError`.
 */
export function readReplay(root: string | undefined, name: string): ReplayView {
  const folder = root === undefined ? undefined : join(root, name);
  if (folder === undefined || !existsSync(join(folder, 'summary.json'))) {
    throw new NotFoundError({
      entity: 'replay',
      id: name,
      message:
        root === undefined
          ? `no replay outputs are served; start repute serve with --replay-dir DIR`
          : `unknown replay ${JSON.stringify(name)}; list replays with GET /api/replays`,
    });
  }
  const summary = readSummary(join(folder, 'summary.json'));
  const csv = join(folder, 'conditions.csv');
  const conditions = existsSync(csv) ? parseConditionsCsv(readFileSync(csv, 'utf8')) : [];
  const attacks = [...new Set(conditions.map((row) => String(row.attack ?? 'clean')))].sort((left, right) =>
    left === 'clean' ? -1 : right === 'clean' ? 1 : 0,
  );
  const methodNames = [...new Set(conditions.map((row) => String(row.method)))];
  const methods = Object.fromEntries(
    methodNames.map((method) => [
      method,
      attacks.map((attack) => {
        const values = conditions
          .filter(
            (row) =>
              row.method === method && String(row.attack ?? 'clean') === attack && typeof row.accuracy === 'number',
          )
          .map((row) => row.accuracy as number);
        return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
      }),
    ]),
  );
  return { name, summary, conditions, byAttack: { attacks, methods } };
}
