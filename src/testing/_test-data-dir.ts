// Internal helper of the data suite (test/data) and the benchmarks: where the real replay data lives.
// Kept out of the package; the core test suite never reads it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of the real replay data: $REPUTE_DATA_DIR, else `../shared/data` beside the repository. */
export const dataDir =
  process.env.REPUTE_DATA_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data');
