import { existsSync } from 'node:fs';
import { DataFormatError, NotFoundError } from '../../core/errors.js';
import { readJsonFile } from './read-lines.js';

/** One agent row of a shared dataset's `models.json`. */
export interface ModelsJsonEntry {
  /** Agent name as used in the proposals. */
  readonly model: string;
  /** Suggested underlying model (clone group), when the dataset gives one. */
  readonly family?: string;
  /** Items with a record for this agent. */
  readonly n_items?: number;
  /** Items graded correct under the dataset's rule. */
  readonly n_correct?: number;
  /** `n_correct / n_items`, rounded to 4 decimals. */
  readonly accuracy?: number;
}

/** The parts of a shared dataset's `models.json` the loaders use. */
export interface ModelsJson {
  /** Task tag (`math-l5`, `gsm`, `crux`), when given. */
  readonly task?: string;
  /** Answer kind declared for every task, when given (takes precedence over the task tag). */
  readonly kind?: string;
  readonly models: readonly ModelsJsonEntry[];
}

/** Reads and checks a `models.json`; throws {@link DataFormatError} naming the file and field. */
export function readModelsJson(file: string): ModelsJson {
  if (!existsSync(file))
    throw new NotFoundError({
      entity: 'file',
      id: file,
      message: `file not found: ${file} (the dataset directory needs a models.json)`,
    });
  const value = readJsonFile(file);
  const models = (value as { models?: unknown })?.models;
  if (!Array.isArray(models))
    throw new DataFormatError({
      file,
      message: 'expected an object with a "models" array of { model, family?, accuracy? }',
    });
  const seen = new Map<string, number>();
  models.forEach((entry: unknown, index) => {
    const model = (entry as { model?: unknown })?.model;
    if (typeof model !== 'string' || model.length === 0) {
      throw new DataFormatError({
        file,
        message: `models[${index}].model must be a non-empty string, got ${JSON.stringify(model)}`,
      });
    }
    const first = seen.get(model);
    if (first !== undefined)
      throw new DataFormatError({
        file,
        message: `models[${index}].model ${JSON.stringify(model)} repeats models[${first}]; list each agent once`,
      });
    seen.set(model, index);
    const family = (entry as { family?: unknown }).family;
    if (family !== undefined && family !== null && typeof family !== 'string') {
      throw new DataFormatError({
        file,
        message: `models[${index}].family must be a string, got ${JSON.stringify(family)}`,
      });
    }
  });
  const task = (value as { task?: unknown }).task;
  const kind = (value as { kind?: unknown }).kind;
  if (kind !== undefined && typeof kind !== 'string')
    throw new DataFormatError({ file, message: `"kind" must be an answer kind name, got ${JSON.stringify(kind)}` });
  return {
    task: typeof task === 'string' ? task : undefined,
    ...(kind === undefined ? {} : { kind }),
    models: models as ModelsJsonEntry[],
  } as ModelsJson;
}
