// Property-based fuzzing of every dataset loader (fast-check, seeded): whatever bytes its files
// hold, a loader returns a dataset or throws a ReputeError (typed, with a message), never another
// error, and never hangs. The number of inputs tried is printed. Random bytes stop at a loader's
// first check, so near-valid directories (each field of the wrong shape one time in eight) reach
// the checks behind it: dropping the null check of a ZeroEval proposal (a TypeError) fails them.
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

  it('every format, near-valid files (one field in eight of the wrong shape): both datasets and typed errors, for 4 × 200 directories', async () => {
    const root = temporaryDirectory('repute-fuzz-near-valid-');
    let tried = 0;
    const seen: Record<string, Record<string, number>> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          zeroevalDirectory.map((files) => ({ format: 'zeroeval' as const, files })),
          mathvistaDirectory.map((files) => ({ format: 'mathvista' as const, files })),
          mmluProDirectory.map((files) => ({ format: 'mmlu-pro' as const, files })),
          reputeJsonlDirectory.map((files) => ({ format: 'jsonl' as const, files })),
        ),
        async ({ format, files }) => {
          const dir = join(root, `d${tried++}`);
          mkdirSync(dir);
          for (const [name, text] of Object.entries(files))
            writeFileSync(join(dir, name), name.endsWith('.gz') ? gzipSync(text) : text);
          const verdict = await outcome(() =>
            format === 'jsonl' ? loadDataset(join(dir, 'proposals.jsonl'), 'jsonl') : loadDataset(dir, format),
          );
          const counts = seen[format] ?? {};
          seen[format] = counts;
          counts[verdict] = (counts[verdict] ?? 0) + 1;
          rmSync(dir, { recursive: true, force: true });
        },
      ),
      { numRuns: 800, seed: 2029 },
    );
    expect(tried).toBe(800);
    process.stdout.write(
      `fuzz: dataset loaders, near-valid files: ${tried} directories, outcomes ${JSON.stringify(seen)}\n`,
    );
    // Every loader got past its first checks: each format loaded some directories and refused others.
    for (const format of datasetFormats) {
      expect(seen[format]?.ok ?? 0, format).toBeGreaterThan(0);
      expect(Object.keys(seen[format] ?? {}).filter((verdict) => verdict !== 'ok').length, format).toBeGreaterThan(0);
    }
  }, 120_000);
});

/** A value of the wrong shape: null, another primitive, an empty or any structure. */
const wrongValue = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.string({ maxLength: 4 }),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Mostly `valid`; one time in eight a value of the wrong shape. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 7, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: wrongValue });
const agentNames = ['m1', 'm2', 'm3'];
const agentName = mostly(fc.constantFrom(...agentNames, 'm4'));
const ids = fc.constantFrom('t1', 't2', 't3', 't4');

/** A line's id: mostly its own (`t<line>`, filled in by {@link jsonLines}), now and then another line's or any value. */
const lineId = fc.oneof(
  { weight: 18, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: ids },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

/** JSON Lines of `line` objects (1-4) whose `idField` is filled in; now and then a line cut short or a blank line. */
const jsonLines = (line: fc.Arbitrary<Record<string, unknown>>, idField: string) =>
  fc
    .array(
      fc.record({
        value: line,
        shape: fc.oneof(
          { weight: 18, arbitrary: fc.constant('whole' as const) },
          { weight: 1, arbitrary: fc.constant('cut' as const) },
          { weight: 1, arbitrary: fc.constant('blank' as const) },
        ),
      }),
      { minLength: 1, maxLength: 4 },
    )
    .map((lines) =>
      lines
        .map(({ value, shape }, index) => {
          const text = JSON.stringify({
            ...value,
            [idField]: value[idField] === undefined ? `t${index + 1}` : value[idField],
          });
          return shape === 'whole' ? text : shape === 'cut' ? text.slice(0, 7) : '';
        })
        .join('\n')
        .concat('\n'),
    );

/** Agents of a models file: distinct names, now and then one listed twice. */
const agentList = fc.oneof(
  { weight: 9, arbitrary: fc.uniqueArray(fc.constantFrom(...agentNames), { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(agentName, { minLength: 1, maxLength: 3 }) },
);

const zeroevalDirectory = fc.record({
  'models.json': fc
    .record(
      {
        task: mostly(fc.constantFrom('gsm', 'math', 'math-l5', 'crux', 'other')),
        models: mostly(
          agentList.map((agents) => agents.map((model) => ({ model, family: `family-${String(model)}` }))),
        ),
      },
      { requiredKeys: ['models'] },
    )
    .map((value) => JSON.stringify(value)),
  'proposals.jsonl': jsonLines(
    fc.record(
      {
        id: lineId,
        reference: mostly(fc.constantFrom('1', '2', 'x')),
        question: mostly(fc.string({ maxLength: 10 })),
        proposals: mostly(
          fc.dictionary(
            fc.constantFrom(...agentNames),
            mostly(fc.record({ answer: mostly(fc.constantFrom('1', '2', null)), correct: mostly(fc.boolean()) })),
            { maxKeys: 3 },
          ),
        ),
      },
      { requiredKeys: ['id', 'reference', 'proposals'] },
    ),
    'id',
  ),
});

/** One JSON object per line, each with its `idField` filled in (`t<line>`) unless a mutation set it. */
const renderLines = (values: readonly Record<string, unknown>[], idField: string) =>
  `${values.map((value, index) => JSON.stringify({ ...value, [idField]: value[idField] === undefined ? `t${index + 1}` : value[idField] })).join('\n')}\n`;

const mathvistaItem = fc
  .record({
    pid: lineId,
    question: mostly(fc.string({ maxLength: 10 })),
    choices: fc.oneof(fc.constant(null), fc.array(fc.constantFrom('1', '2', 'red'), { minLength: 1, maxLength: 4 })),
    answer: mostly(fc.constantFrom('1', '2', 'red')),
    answer_type: mostly(fc.constantFrom('integer', 'float', 'text', 'list')),
    wrongChoices: fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: wrongValue }),
    wrongType: fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: wrongValue }),
  })
  .map(({ choices, wrongChoices, wrongType, ...item }) => ({
    ...item,
    choices: wrongChoices ?? choices,
    question_type: wrongType ?? (choices === null ? 'free_form' : 'multi_choice'),
  }));

const mathvistaProposal = fc.record({
  pid: lineId,
  proposals: mostly(
    fc.dictionary(
      fc.constantFrom(...agentNames),
      mostly(
        fc.record({
          extraction: mostly(fc.constantFrom('1', 'red', '')),
          prediction: mostly(fc.constantFrom('1', '2', 'red', null)),
          correct: mostly(fc.boolean()),
        }),
      ),
      { maxKeys: 3 },
    ),
  ),
});

const mathvistaDirectory = fc.integer({ min: 1, max: 3 }).chain((count) =>
  fc
    .record({
      agents: mostly(
        agentList.map((agents) => agents.map((agent) => ({ agent, base_model: `base-${String(agent)}` }))),
      ),
      items: fc.array(mathvistaItem, { minLength: count, maxLength: count }),
      // Mostly one proposals line per item; now and then one more (a pid without an item).
      proposals: fc.array(mathvistaProposal, { minLength: count, maxLength: count + (count === 3 ? 1 : 0) }),
    })
    .map(({ agents, items, proposals }) => ({
      'models.json': JSON.stringify({ agents }),
      'items.jsonl': renderLines(items, 'pid'),
      'proposals.jsonl': renderLines(proposals, 'pid'),
    })),
);

const mmluProDirectory = fc
  .record({
    models: fc.uniqueArray(fc.constantFrom(...agentNames), { minLength: 1, maxLength: 3 }),
    extraColumn: fc.oneof(
      { weight: 9, arbitrary: fc.constant([] as string[]) },
      { weight: 1, arbitrary: fc.constant(['m4']) },
    ),
    header: fc.oneof(
      { weight: 19, arbitrary: fc.constant('question_id,category,answer') },
      { weight: 1, arbitrary: fc.constantFrom('id,category,answer', '"question_id,category') },
    ),
    items: fc.array(
      fc.record({
        question_id: fc.oneof(
          { weight: 19, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
        ),
        question: mostly(fc.string({ maxLength: 10 })),
        options: fc.oneof(
          { weight: 18, arbitrary: fc.array(fc.constantFrom('yes', 'no', 'maybe'), { minLength: 2, maxLength: 4 }) },
          { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
        ),
        answer: fc.oneof(
          { weight: 18, arbitrary: fc.constantFrom('A', 'B') },
          { weight: 2, arbitrary: fc.constantFrom('J', 'a', '') },
        ),
        cells: fc.array(
          fc.oneof(
            { weight: 19, arbitrary: fc.constantFrom('A', 'B', 'C', 'J', '', 'NA') },
            { weight: 1, arbitrary: fc.constantFrom('x', '"A') },
          ),
          { minLength: 4, maxLength: 4 },
        ),
        cut: fc.oneof({ weight: 19, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(({ models, extraColumn, header, items }) => {
    const columns = [...models, ...extraColumn];
    return {
      'models.json': JSON.stringify({ models: models.map((model) => ({ model })) }),
      'items.jsonl.gz': `${items
        .map((item, index) =>
          JSON.stringify({
            question_id: item.question_id ?? index + 1,
            question: item.question,
            options: item.options,
          }),
        )
        .join('\n')}\n`,
      'preds.csv': `${[
        [header, ...columns].join(','),
        ...items.map((item, index) =>
          [index + 1, 'law', item.answer, ...item.cells.slice(0, columns.length - (item.cut ? 1 : 0))].join(','),
        ),
      ].join('\n')}\n`,
    };
  });

const reputeJsonlDirectory = fc
  .record({
    header: fc.option(
      fc.record({
        schemaVersion: mostly(fc.constant(1)),
        format: mostly(fc.constant('repute-proposals')),
        models: mostly(fc.dictionary(fc.constantFrom(...agentNames), fc.string({ maxLength: 4 }), { maxKeys: 3 })),
      }),
    ),
    lines: fc.array(
      fc.record(
        {
          schemaVersion: mostly(fc.constant(1)),
          id: lineId,
          kind: mostly(fc.constantFrom('number', 'choice', 'exact', 'labels')),
          prompt: mostly(fc.string({ maxLength: 10 })),
          reference: mostly(fc.constantFrom('1', 'A', 'x')),
          options: mostly(fc.integer({ min: 0, max: 30 })),
          proposals: mostly(
            fc.dictionary(
              fc.constantFrom(...agentNames),
              mostly(
                fc.record(
                  {
                    text: mostly(fc.string({ maxLength: 6 })),
                    answer: mostly(fc.constantFrom('1', 'A', null)),
                    correct: mostly(fc.boolean()),
                  },
                  { requiredKeys: [] },
                ),
              ),
              { maxKeys: 3 },
            ),
          ),
        },
        { requiredKeys: ['id', 'kind', 'proposals'] },
      ),
      { minLength: 1, maxLength: 4 },
    ),
  })
  .map(({ header, lines }) => ({
    'proposals.jsonl': `${[
      ...(header === null ? [] : [header]),
      ...lines.map((line, index) => ({ ...line, id: line.id === undefined ? `t${index + 1}` : line.id })),
    ]
      .map((line) => JSON.stringify(line))
      .join('\n')}\n`,
  }));
