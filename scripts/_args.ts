// Internal: command-line reading shared by the analysis scripts (scripts/*.ts): `--name value` flags
// and the dataset directory (the first bare argument, else MATH-L5 under REPUTE_DATA_DIR or
// ../shared/data).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The value after `--name` on the command line, or `undefined`. */
export function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

/** The dataset directory: the first argument that is neither a flag nor a flag's value, else ZeroEval MATH-L5. */
export function datasetPath(): string {
  const positional = process.argv
    .slice(2)
    .find((value, index, all) => !value.startsWith('--') && !all[index - 1]?.startsWith('--'));
  const root = fileURLToPath(new URL('..', import.meta.url));
  return positional ?? join(process.env.REPUTE_DATA_DIR ?? join(root, '..', 'shared', 'data'), 'zeroeval-math-l5');
}
