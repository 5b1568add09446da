// Property-based fuzzing of every dataset loader (fast-check, seeded): whatever bytes its files
// hold, a loader returns a dataset or throws a ReputeError (typed, with a message), never another
// error, and never hangs. The number of inputs tried is printed.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReputeError } from '../../core/errors.js';
import { parseTasks } from '../../tasks/load-tasks.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { datasetFormats } from './format.js';
import { loadDataset } from './load-dataset.js';

/** File text: random unicode, JSON values one per line, or CSV-like rows, so parsers get past their first check. */
const fileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc
    .array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 })
    .map((values) => values.map((value) => JSON.stringify(value)).join('\n')),
  fc
    .array(fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer().map(String)), { maxLength: 5 }), {
      maxLength: 6,
    })
    .map((rows) => rows.map((row) => row.join(',')).join('\n')),
  fc.constantFrom('', '\n', '{}', '[]', '{"schemaVersion": 1}', 'null', '\u0000\u0000', '{"id": "t1"'),
);

/** Returns a typed-error verdict: 'ok', or the name of the ReputeError thrown; rethrows anything else. */
async function outcome(run: () => unknown): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (error instanceof ReputeError && error.message.length > 0) return error.name;
    throw error;
  }
}

describe('dataset loaders under random files (fuzzing)', () => {
  it('every format: a dataset or a typed error, for 4 × 60 random directories', async () => {
    const root = temporaryDirectory('repute-fuzz-datasets-');
    let tried = 0;
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...datasetFormats),
        fc.record({
          models: fileText,
          proposals: fileText,
          items: fileText,
          preds: fileText,
          gzip: fc.boolean(),
        }),
        async (format, files) => {
          const dir = join(root, `d${tried++}`);
          mkdirSync(dir);
          writeFileSync(join(dir, 'models.json'), files.models);
          writeFileSync(join(dir, 'proposals.jsonl'), files.proposals);
          writeFileSync(join(dir, 'items.jsonl'), files.items);
          writeFileSync(join(dir, 'preds.csv'), files.preds);
          writeFileSync(join(dir, 'items.jsonl.gz'), files.gzip ? gzipSync(files.items) : files.items);
          const verdict = await outcome(() => loadDataset(dir, format));
          seen.set(verdict, (seen.get(verdict) ?? 0) + 1);
          rmSync(dir, { recursive: true, force: true });
        },
      ),
      { numRuns: 240, seed: 2027 },
    );
    expect(tried).toBe(240);
    process.stdout.write(
      `fuzz: dataset loaders: ${tried} random directories, outcomes ${JSON.stringify(Object.fromEntries(seen))}\n`,
    );
  }, 120_000);

  it('the Repute proposals file (jsonl) and the task file: a result or a typed error, for 300 inputs each', async () => {
    const root = temporaryDirectory('repute-fuzz-jsonl-');
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(fileText, async (text) => {
        const file = join(root, `p${tried++}.jsonl`);
        writeFileSync(file, text);
        await outcome(() => loadDataset(file, 'jsonl'));
        await outcome(() => parseTasks(text, 'tasks.jsonl'));
        rmSync(file, { force: true });
      }),
      { numRuns: 300, seed: 2028 },
    );
    expect(tried).toBe(300);
    process.stdout.write(`fuzz: proposals.jsonl and task file parsers: ${tried} inputs each, typed errors only\n`);
  }, 120_000);
});
