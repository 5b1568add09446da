import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from '../../core/errors.js';
import { formatConditionsCsv } from './report-csv.js';
import { formatReplayHtml } from './report-html.js';
import type { ReplayReport } from './run-replay.js';

/** Files written by {@link writeReplayOutputs}. */
export interface ReplayOutputFiles {
  /** Path of the written `summary.json`. */
  readonly summary: string;
  /** Path of the written `conditions.csv`. */
  readonly conditions: string;
  /** Path of the written `report.html`. */
  readonly report: string;
}

/**
 * Writes `summary.json`, `conditions.csv` and `report.html` into a directory (created if needed).
 *
 * @example
 * await writeReplayOutputs('out/replay', await runReplay({ path }));
 */
export async function writeReplayOutputs(directory: string, report: ReplayReport): Promise<ReplayOutputFiles> {
  const files = {
    summary: join(directory, 'summary.json'),
    conditions: join(directory, 'conditions.csv'),
    report: join(directory, 'report.html'),
  };
  try {
    await mkdir(directory, { recursive: true });
    await writeFile(files.summary, `${JSON.stringify(report.summary, null, 2)}\n`);
    await writeFile(files.conditions, formatConditionsCsv(report.rows));
    await writeFile(files.report, formatReplayHtml(report.summary, report.rows));
  } catch (error) {
    throw new StoreError(
      `cannot write replay outputs to ${directory}: ${(error as Error).message}; pass a writable --out DIR`,
      { cause: error },
    );
  }
  return files;
}
