import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isReservedAgentId } from '../../core/agent-identity.js';
import { DataFormatError, InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import type { DatasetFormat, ProposalsDataset } from './format.js';
import { datasetFormats, proposalsFormatTag } from './format.js';
import { loadMathVista } from './mathvista.js';
import { loadMmluPro } from './mmlu-pro.js';
import { loadProposalsJsonl } from './proposals-jsonl.js';
import { noRecordsError, readFirstLine } from './read-lines.js';
import { loadZeroEval } from './zeroeval.js';

/**
 * The first non-blank line of a file and, when it parses as a JSON object, its value: detection
 * reads whole first lines (any length, after blank lines and a byte order mark), so a long line or
 * spaces around keys do not hide the format.
 */
function firstRecord(file: string): { line: string; value: Record<string, unknown> | undefined } {
  const line = readFirstLine(file);
  try {
    const value: unknown = JSON.parse(line);
    return {
      line,
      value:
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)
          : undefined,
    };
  } catch {
    return { line, value: undefined };
  }
}

type FirstRecord = ReturnType<typeof firstRecord>;

function looksLikeReputeProposals({ line, value }: FirstRecord): boolean {
  if (value !== undefined) return value.format === proposalsFormatTag || value.schemaVersion === 1;
  return line.includes(`"${proposalsFormatTag}"`) || /"schemaVersion"\s*:\s*1\b/.test(line);
}

function isKeyedByPid({ line, value }: FirstRecord): boolean {
  return value !== undefined ? typeof value.pid === 'string' : /^\{\s*"pid"/.test(line);
}

function looksLikeZeroEval({ line, value }: FirstRecord): boolean {
  if (value !== undefined) return 'reference' in value && 'proposals' in value;
  return line.includes('"reference"') && line.includes('"proposals"');
}

/**
 * Detects a dataset's format from its files (never from their names' wording): a directory with
 * `preds.csv` and `items.jsonl.gz` is `mmlu-pro`; one with `items.jsonl`, `models.json` and a
 * `proposals.jsonl` keyed by `pid` is `mathvista`; a directory with `proposals.jsonl` and `models.json` (ZeroEval rows: `reference`,
 * `proposals`) is `zeroeval`; a `.jsonl` file, or a directory whose `proposals.jsonl` is versioned,
 * is `jsonl`. Throws {@link DataFormatError} when nothing matches, or when the directory's
 * `proposals.jsonl` holds no records (is empty or blank), as the loaders do for every file they read.
 */
export function detectDatasetFormat(path: string): DatasetFormat {
  if (!existsSync(path))
    throw new NotFoundError({
      entity: 'dataset',
      id: path,
      message: `dataset path not found: ${path}; pass an existing dataset directory or .jsonl file`,
    });
  if (statSync(path).isFile()) {
    if (/\.jsonl(\.gz)?$/.test(path)) return 'jsonl';
    throw new DataFormatError({
      file: path,
      message:
        'cannot detect the format of this file; pass --format jsonl for a Repute proposals file, or point at a zeroeval / mmlu-pro directory',
    });
  }
  if (existsSync(join(path, 'preds.csv')) && existsSync(join(path, 'items.jsonl.gz'))) return 'mmlu-pro';
  const proposals = join(path, 'proposals.jsonl');
  if (existsSync(proposals) && statSync(proposals).isFile()) {
    // The first record is read once (it can be a multi-MB line) and every rule below looks at it.
    const first = firstRecord(proposals);
    // An empty proposals.jsonl has no first line to detect from; say so, as the loaders do, rather
    // than "cannot detect" (which would send the user to --format, and then to this same error).
    if (first.line === '') throw noRecordsError(proposals, 'one JSON object per line');
    if (existsSync(join(path, 'items.jsonl')) && existsSync(join(path, 'models.json')) && isKeyedByPid(first))
      return 'mathvista';
    if (looksLikeReputeProposals(first)) return 'jsonl';
    if (existsSync(join(path, 'models.json'))) {
      const models = readFileSync(join(path, 'models.json'), 'utf8');
      if (looksLikeZeroEval(first) && models.includes('"models"')) return 'zeroeval';
    }
  }
  throw new DataFormatError({
    file: path,
    message: `cannot detect the dataset format (expected preds.csv + items.jsonl.gz for mmlu-pro, items.jsonl + proposals.jsonl keyed by pid for mathvista, proposals.jsonl + models.json for zeroeval, or a Repute proposals .jsonl); pass --format ${datasetFormats.join('|')}`,
  });
}

/**
 * Loads a dataset into the Repute proposals format, detecting the format unless given.
 *
 * @example
 * const dataset = await loadDataset('../shared/data/zeroeval-math-l5');
 * dataset.tasks.length; // 721
 */
export async function loadDataset(path: string, format?: DatasetFormat): Promise<ProposalsDataset> {
  if (format !== undefined && !datasetFormats.includes(format)) {
    throw new InvalidArgumentError({
      parameter: 'format',
      value: format,
      message: `format must be one of ${datasetFormats.join(', ')}, got ${JSON.stringify(format)}; omit it to detect the format from the path`,
    });
  }
  const resolved = format ?? detectDatasetFormat(path);
  if (!existsSync(path))
    throw new NotFoundError({
      entity: 'dataset',
      id: path,
      message: `dataset path not found: ${path}; pass an existing dataset directory or .jsonl file`,
    });
  const isDirectory = statSync(path).isDirectory();
  if (resolved !== 'jsonl' && !isDirectory)
    throw new DataFormatError({
      file: path,
      message: `--format ${resolved} reads a dataset directory, but this is a file; pass the directory that holds its files, or --format jsonl for a Repute proposals file`,
    });
  const file = resolved === 'jsonl' && isDirectory ? join(path, 'proposals.jsonl') : path;
  if (resolved === 'jsonl' && isDirectory && !existsSync(file))
    throw new DataFormatError({
      file: path,
      message: `--format jsonl on a directory reads its proposals.jsonl, which does not exist; pass the .jsonl file itself or the directory that holds proposals.jsonl`,
    });
  const dataset = await loadAs(resolved, file);
  // Agent ids key records everywhere (weights, scores, attacks): an inherited property name cannot be one.
  const reserved = dataset.agents.find((agent) => isReservedAgentId(agent.id));
  if (reserved !== undefined) {
    throw new DataFormatError({
      file,
      message: `agent ${JSON.stringify(reserved.id)} is named like a property every JavaScript object inherits (e.g. constructor, toString, __proto__), which no agent id may be; rename it in the dataset, e.g. to ${JSON.stringify(`${reserved.id}-1`)}`,
    });
  }
  return dataset;
}

function loadAs(format: DatasetFormat, path: string): Promise<ProposalsDataset> {
  switch (format) {
    case 'zeroeval':
      return loadZeroEval(path);
    case 'mmlu-pro':
      return loadMmluPro(path);
    case 'mathvista':
      return loadMathVista(path);
    case 'jsonl':
      return loadProposalsJsonl(path);
  }
}
