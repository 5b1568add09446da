// Internal helper of the data suite (test/data) and bench:answers: the real replay data's
// proposals.jsonl files read line by line as they are, with the dataset's own correctness flags.
// Kept out of the package; the core test suite never calls it.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { dataDir } from './_test-data-dir.js';

export { dataDir };

/** One task line of a ZeroEval proposals.jsonl: the reference and each agent's answer with its flags. */
export interface FlaggedItem {
  reference: string;
  proposals: Record<string, { answer: string | null; correct: boolean; correct_strict?: boolean }>;
}

/** The task lines of `file` (relative to {@link dataDir}), blank lines skipped. */
export function readFlaggedItems(file: string): FlaggedItem[] {
  return readFileSync(path.join(dataDir, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as FlaggedItem);
}
