import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from '../../core/errors.js';
import { formatZooHtml } from './report-zoo-html.js';
import type { ZooSummary } from './run-zoo.js';

/**
 * Writes `zoo.json` (the summary) and `zoo.html` (the report) into a directory (created if needed);
 * returns their paths.
 *
 * @example
 * await writeZooOutputs('zoo-out', await runZoo({ seeds: [1, 2, 3] }));
 */
export async function writeZooOutputs(
  directory: string,
  summary: ZooSummary,
): Promise<{ readonly summary: string; readonly report: string }> {
  const files = { summary: join(directory, 'zoo.json'), report: join(directory, 'zoo.html') };
  try {
    await mkdir(directory, { recursive: true });
    await writeFile(files.summary, `${JSON.stringify(summary, null, 2)}\n`);
    await writeFile(files.report, formatZooHtml(summary));
  } catch (error) {
    throw new StoreError(
      `cannot write zoo outputs to ${directory}: ${(error as Error).message}; pass a writable --out DIR`,
      {
        cause: error,
      },
    );
  }
  return files;
}
