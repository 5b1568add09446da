// Argument definitions and small helpers shared by the `demo`, `run`, `replay`, `raps`, `drf` and `serve` commands.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';

/** Shared citty argument definitions. */
export const sharedArgs = {
  seed: { type: 'string', description: 'Seed of every random draw', default: '2027', valueHint: 'N' },
  json: {
    type: 'boolean',
    description: 'Print the summary as JSON to stdout (progress stays on stderr)',
    default: false,
  },
  out: { type: 'string', description: 'Where to write the HTML report', valueHint: 'FILE' },
} as const;

/** Parses an integer flag, naming the flag and the value when it is not one. */
export function parseIntegerFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min = -Infinity,
  max = Infinity,
): number {
  if (value === undefined || value === '') return fallback;
  // Decimal digits only: Number() would also read 0x10 as 16, 1e3 as 1000 and ' 7' as 7.
  const parsed = /^[-+]?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new InvalidArgumentError({
      parameter: `--${name}`,
      value,
      message: `--${name} must be an integer in [${min}, ${max}], got ${JSON.stringify(value)}; pass e.g. --${name} ${Math.max(min, Math.min(max, fallback))}`,
    });
  }
  return parsed;
}

/** Parses an optional integer flag: `undefined` when it is absent or empty, else as {@link parseIntegerFlag} (`example` shows in the error). */
export function parseOptionalIntegerFlag(
  name: string,
  value: string | undefined,
  example: number,
  min = -Infinity,
  max = Infinity,
): number | undefined {
  if (value === undefined || value === '') return undefined;
  return parseIntegerFlag(name, value, example, min, max);
}

/** Parses a flag that must be a number in [0, 1], naming the flag, the value and `example` when it is not one. */
export function parseFractionFlag(name: string, value: string, example: number): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0 || parsed > 1)
    throw new InvalidArgumentError({
      parameter: `--${name}`,
      value,
      message: `--${name} must be a number in [0, 1], got ${JSON.stringify(value)}; pass e.g. --${name} ${example}`,
    });
  return parsed;
}

/** Parses a comma-separated list flag against allowed values. */
export function parseListFlag<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: readonly T[],
): T[] {
  if (value === undefined || value.trim() === '') return [...fallback];
  const entries = value.split(',').map((item) => item.trim());
  const items = entries.filter((item) => item.length > 0);
  if (items.length === 0)
    throw new InvalidArgumentError({
      parameter: `--${name}`,
      value,
      message: `--${name} names nothing, got ${JSON.stringify(value)}; pass e.g. --${name} ${fallback.join(',') || allowed.join(',')}, or leave it out for the default`,
    });
  // A doubled or trailing comma is a typo (a name left out?), never silently dropped.
  if (items.length !== entries.length)
    throw new InvalidArgumentError({
      parameter: `--${name}`,
      value,
      message: `--${name} has an empty entry in ${JSON.stringify(value)} (a doubled or trailing comma); pass e.g. --${name} ${items.join(',')}`,
    });
  const repeated = items.find((item, index) => items.indexOf(item) !== index);
  if (repeated !== undefined)
    throw new InvalidArgumentError({
      parameter: `--${name}`,
      value,
      message: `--${name} names ${JSON.stringify(repeated)} twice, got ${JSON.stringify(value)}; list each once`,
    });
  for (const item of items) {
    if (!allowed.includes(item as T)) {
      throw new InvalidArgumentError({
        parameter: `--${name}`,
        value: item,
        message: `--${name} has unknown entry ${JSON.stringify(item)}; use a comma-separated subset of ${allowed.join(',')}`,
      });
    }
  }
  return items as T[];
}

/** A one-line progress bar on stderr (redrawn in place on a TTY; otherwise one line per finished label). */
export function createProgressBar(stream: NodeJS.WriteStream = process.stderr): {
  update(label: string, done: number, total: number): void;
  finish(): void;
} {
  let lastLabel = '';
  return {
    update(label, done, total) {
      const fraction = total === 0 ? 1 : done / total;
      const width = 24;
      const filled = Math.round(fraction * width);
      const line = `${label.padEnd(22)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(4)}/${total}`;
      if (stream.isTTY) {
        stream.write(`\r${line}`);
        if (done === total) stream.write('\n');
        return;
      }
      if (done === total && label !== lastLabel) {
        stream.write(`${line}\n`);
        lastLabel = label;
      }
    },
    finish() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}

/** Unicode sparkline of values in [0, 1], sampled to at most `width` points. */
export function sparkline(values: readonly number[], width = 25): string {
  const blocks = '▁▂▃▄▅▆▇█';
  if (values.length === 0) return '';
  const points = Math.min(width, values.length);
  let out = '';
  for (let index = 0; index < points; index++) {
    const value = values[Math.min(values.length - 1, Math.round(((index + 1) * values.length) / points) - 1)] as number;
    const clamped = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
    out += blocks[Math.min(blocks.length - 1, Math.floor(clamped * blocks.length))];
  }
  return out;
}

/** Where a run's reputation starts: `--reputation` (`continue` or `fresh`) over the team file's `reputation`. */
export function parseReputationFlag(
  value: string | undefined,
  fromTeamFile: 'continue' | 'fresh',
): 'continue' | 'fresh' {
  if (value === undefined || value.trim() === '') return fromTeamFile;
  const choice = value.trim();
  // One value: a list such as `fresh,continue` used to run with its first entry and drop the rest.
  if (choice !== 'continue' && choice !== 'fresh')
    throw new InvalidArgumentError({
      parameter: '--reputation',
      value,
      message: `--reputation takes one value, continue or fresh, got ${JSON.stringify(value)}; pass --reputation continue or --reputation fresh`,
    });
  return choice;
}

/** First 16 hex digits of the SHA-256 of a file's bytes, so that a run's config names the task file's content. */
export function fileDigest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16);
}

/**
 * A run's id: `--run-id` when given, else `run-` and 12 hex digits of the SHA-256 of the run's config,
 * so that rerunning the same team, tasks and flags finds the same run and resumes it.
 */
export function deriveRunId(runIdFlag: string | undefined, config: object): string {
  if (runIdFlag === undefined)
    return `run-${createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 12)}`;
  // The id names the run's lock file beside the store and its URL in the API (`/api/runs/:id`): one
  // path segment, as the server's rule for names.
  if (runIdFlag.length > 200 || !/^[^\u0000-\u001f/\\]+$/.test(runIdFlag) || runIdFlag === '.' || runIdFlag === '..') {
    throw new InvalidArgumentError({
      parameter: '--run-id',
      value: runIdFlag,
      message: `--run-id must be a name of at most 200 characters without slashes, backslashes or control characters (it names the run's lock file and its API URL), got ${JSON.stringify(runIdFlag)}; pass e.g. --run-id nightly-1`,
    });
  }
  return runIdFlag;
}

/** LLM calls, tokens and cost of one run, as its summary reports them. */
export interface RunUsage {
  readonly calls: number;
  readonly cachedCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cost: number;
  /** Calls that failed after the provider may have billed them (booked with status `failed`). */
  readonly failedCalls: number;
  /** Calls whose usage the provider did not (fully) report: the tokens and cost are lower bounds. */
  readonly unreportedUsageCalls: number;
}

/** Sums the store's usage rows of one run. */
export function runUsage(store: Store, runId: string): RunUsage {
  return store.usageSummary({ by: 'run', runId }).reduce(
    (sum, row) => ({
      calls: sum.calls + row.calls,
      cachedCalls: sum.cachedCalls + row.cachedCalls,
      inputTokens: sum.inputTokens + row.inputTokens,
      outputTokens: sum.outputTokens + row.outputTokens,
      cost: sum.cost + row.cost,
      failedCalls: sum.failedCalls + row.failedCalls,
      unreportedUsageCalls: sum.unreportedUsageCalls + row.unreportedUsageCalls,
    }),
    { calls: 0, cachedCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0, failedCalls: 0, unreportedUsageCalls: 0 },
  );
}

/** The usage line of a run's summary table. */
export function formatUsageLine(usage: RunUsage): string {
  const caveats = [
    ...(usage.failedCalls > 0 ? [`${usage.failedCalls} failed but possibly billed`] : []),
    ...(usage.unreportedUsageCalls > 0
      ? [`${usage.unreportedUsageCalls} with usage the provider did not report: tokens and cost are lower bounds`]
      : []),
  ];
  return `LLM calls ${usage.calls} (${usage.cachedCalls} from cache), tokens in ${usage.inputTokens} / out ${usage.outputTokens}, cost ${usage.cost.toFixed(4)}${caveats.length > 0 ? ` (${caveats.join('; ')})` : ''}`;
}

/** Root of the staged recorded data: `$REPUTE_DATA_DIR`, else `../shared/data` beside the package. */
export function defaultDataDir(): string {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  return process.env.REPUTE_DATA_DIR ?? join(root, '..', 'shared', 'data');
}
