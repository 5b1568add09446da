import { existsSync, readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { isReservedAgentId } from '../../core/agent-identity.js';
import { DataFormatError, InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import type { DatasetFormat, ProposalsDataset } from './format.js';
import { datasetFormats, proposalsFormatTag } from './format.js';
import { loadMathVista } from './mathvista.js';
import { loadMmluPro } from './mmlu-pro.js';
import { loadProposalsJsonl } from './proposals-jsonl.js';
import { loadZeroEval } from './zeroeval.js';

function firstLine(file: string): string {
  const handle = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(65536);
    const read = readSync(handle, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8').split('\n')[0] ?? '';
  } finally {
    closeSync(handle);
  }
}

function looksLikeReputeProposals(file: string): boolean {
  const line = firstLine(file);
  return line.includes(`"${proposalsFormatTag}"`) || /"schemaVersion"\s*:\s*1/.test(line);
}

/**
 * Detects a dataset's format from its files (never from their names' wording): a directory with
 * `preds.csv` and `items.jsonl.gz` is `mmlu-pro`; one with `items.jsonl`, `models.json` and a
 * `proposals.jsonl` keyed by `pid` is `mathvista`; a directory with `proposals.jsonl` and `models.json` (ZeroEval rows: `reference`,
 * `proposals`) is `zeroeval`; a `.jsonl` file, or a directory whose `proposals.jsonl` is versioned,
 * is `jsonl`. Throws {@link DataFormatError} when nothing matches.
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
  if (
    existsSync(proposals) &&
    existsSync(join(path, 'items.jsonl')) &&
    existsSync(join(path, 'models.json')) &&
    /^\{"pid"/.test(firstLine(proposals))
  )
    return 'mathvista';
  if (existsSync(proposals)) {
    if (looksLikeReputeProposals(proposals)) return 'jsonl';
    if (existsSync(join(path, 'models.json'))) {
      const line = firstLine(proposals);
      const models = readFileSync(join(path, 'models.json'), 'utf8');
      if (line.includes('"reference"') && line.includes('"proposals"') && models.includes('"models"'))
        return 'zeroeval';
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
  const file = resolved === 'jsonl' && statSync(path).isDirectory() ? join(path, 'proposals.jsonl') : path;
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
