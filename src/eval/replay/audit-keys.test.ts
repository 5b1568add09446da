import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import type { ProposalsDataset, ProposalsRecord } from '../proposals/format.js';
import { writeProposalsJsonl } from '../proposals/proposals-jsonl.js';
import { auditKeys, describeKinds, flagLimits } from './audit-keys.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { formatDataAudit } from './format-table.js';
import { prepareReplay } from './prepare.js';
import { runReplay } from './run-replay.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const ops = createDefaultAnswerOps();
const agents = Array.from({ length: 10 }, (_, index) => `a${index}`);

/** A task whose reference is `reference`, agent `a<index>` answering `answerOf(index)`. */
function record(
  id: string,
  kind: ProposalsRecord['kind'],
  reference: string,
  answerOf: (index: number) => { answer: string | null; correct: boolean },
): ProposalsRecord {
  return { id, kind, reference, proposals: Object.fromEntries(agents.map((agent, index) => [agent, answerOf(index)])) };
}

// Ten agents answer two CRUX-like tasks; flags follow a string rule that rejects double quotes.
//   t1 (reference {'a': 1}): a0–a5 `{'a': 1}` ✓, a6–a7 `{"a": 1}` ✗, a8 `{'a': 2}` ✗, a9 null
//   t2 (reference 'x'):      a0–a2 `x` ✓ (quotes stripped), a3–a9 `'y'` ✗
function crux(): ProposalsDataset {
  const t1 = record('t1', 'literal', "{'a': 1}", (index) =>
    index <= 5
      ? { answer: "{'a': 1}", correct: true }
      : index <= 7
        ? { answer: '{"a": 1}', correct: false }
        : index === 8
          ? { answer: "{'a': 2}", correct: false }
          : { answer: null, correct: false },
  );
  const t2 = record('t2', 'literal', "'x'", (index) =>
    index <= 2 ? { answer: 'x', correct: true } : { answer: "'y'", correct: false },
  );
  return {
    schemaVersion: 1,
    name: 'crux-mini',
    format: 'jsonl',
    agents: agents.map((id) => ({ id, model: id })),
    tasks: [t1, t2],
    skipped: {},
    correctness: 'flags',
    kindSource: 'test',
  };
}

describe('merged-answer audit', () => {
  it('counts (task, key) groups and the ones that mix flags, with examples', () => {
    const audit = auditKeys({ dataset: crux(), ops });
    // literal: t1 has keys {'a': 1} (a0–a7: 6 ✓ + 2 ✗, mixed) and {'a': 2}; t2 has x (fallback) and 'y'.
    // Groups 2 + 2 = 4, mixed 1, rate 1/4; fallbacks: the three unquoted x answers.
    expect(audit).toMatchObject({
      keyGroups: 4,
      mixedKeys: 1,
      mixedRate: 0.25,
      kinds: { literal: 2 },
      literalFallbacks: 3,
    });
    expect(audit.examples).toEqual([
      { task: 't1', key: "{'a': 1}", correct: 6, wrong: 2, answers: ["{'a': 1} ✓", '{"a": 1} ✗'] },
    ]);
    // The exact kind trims surrounding brackets and quotes (the "a" of a dict key is no article: it is
    // not a space-separated word): {'a': 1} keys as `a': 1`, {"a": 1} as `a": 1`, {'a': 2} as `a': 2`;
    // t2 keys `x` and `y`. Groups 3 + 2 = 5, none mixed.
    const exact = auditKeys({
      dataset: { ...crux(), tasks: crux().tasks.map((task) => ({ ...task, kind: 'exact' as const })) },
      ops,
    });
    expect(exact).toMatchObject({ keyGroups: 5, mixedKeys: 0, literalFallbacks: 0, kinds: { exact: 2 } });
    expect(exact.examples).toEqual([]);
  });

  it('the grader-compatible literal-zeroeval kind keys the same answers with no mixed group', () => {
    const dataset = crux();
    const zeroeval = auditKeys({
      dataset: { ...dataset, tasks: dataset.tasks.map((task) => ({ ...task, kind: 'literal-zeroeval' as const })) },
      ops,
    });
    // t1: '{'a': 1}' (a0–a5 ✓), '{"a": 1}' (a6–a7 ✗), '{'a': 2}' (a8 ✗); t2: x and 'x' both compare as
    // x: 'x' (a0–a2 ✓), 'y' (a3–a9 ✗). Groups 3 + 2 = 5, none mixed; the kind has no fallback keys.
    expect(zeroeval).toMatchObject({ keyGroups: 5, mixedKeys: 0, mixedRate: 0, literalFallbacks: 0 });
  });

  it('number-zeroeval splits a worked chain that the first-number flags reject and number merges', () => {
    // GSM8K-like task, reference 1596, flags by ZeroEval's first-number rule:
    //   a0–a5 `1596` ✓, a6–a8 `$840 + $756 = $1,596` ✗ (first number 840), a9 `1600` ✗.
    const task = record('g1', 'number', '1596', (index) =>
      index <= 5
        ? { answer: '1596', correct: true }
        : index <= 8
          ? { answer: '$840 + $756 = $1,596', correct: false }
          : { answer: '1600', correct: false },
    );
    const dataset: ProposalsDataset = { ...crux(), tasks: [task] };
    // number reads the chain's last value: keys 1596 (6 ✓ + 3 ✗, mixed) and 1600 → 2 groups, 1 mixed.
    expect(auditKeys({ dataset, ops })).toMatchObject({ keyGroups: 2, mixedKeys: 1 });
    // number-zeroeval reads its first number: keys 1596 (6 ✓), 840 (3 ✗), 1600 (1 ✗) → 3 groups, none mixed.
    const zeroeval = { ...dataset, tasks: [{ ...task, kind: 'number-zeroeval' as const }] };
    expect(auditKeys({ dataset: zeroeval, ops })).toMatchObject({ keyGroups: 3, mixedKeys: 0 });
  });

  it('reads coverage and best single agent from the flags alone', () => {
    // t1: a0–a5 ✓; t2: a0–a2 ✓ → coverage 2/2; a0 is right on both → best single 1.
    expect(flagLimits({ dataset: crux(), taskIds: ['t1', 't2'] })).toEqual({
      coverage: 1,
      bestSingle: 1,
      bestSingleAgent: 'a0',
    });
    // On t1 alone, agents a0..a5 tie at 1/1; the first in pool order is named.
    expect(flagLimits({ dataset: crux(), taskIds: ['t1'] })).toEqual({
      coverage: 1,
      bestSingle: 1,
      bestSingleAgent: 'a0',
    });
  });

  it('grades a key with contradicting flags by the kind against the reference, unanimous keys by their flag', () => {
    const { prepared } = prepareReplay({ dataset: crux(), ops, seed: 1, tasks: 2 });
    const t1 = prepared.tasks.find((task) => task.id === 't1');
    // {'a': 1} carries 6 ✓ and 2 ✗: the literal kind says it equals the reference → 1.
    expect(t1?.scores["{'a': 1}"]).toEqual({ exact: 1, f1: 1 });
    expect(t1?.scores["{'a': 2}"]).toEqual({ exact: 0, f1: 0 });
    // A mixed group whose value is not the reference: 1 ✓ and 3 ✗ on {'a': 2}, graded 0 by the kind.
    const dataset = crux();
    const wrongMix: ProposalsDataset = {
      ...dataset,
      tasks: [
        {
          ...(dataset.tasks[0] as ProposalsRecord),
          proposals: {
            ...dataset.tasks[0]?.proposals,
            a0: { answer: "{'a': 2}", correct: true },
            a6: { answer: "{'a': 2}", correct: false },
          },
        },
      ],
    };
    const mixedWrong = prepareReplay({ dataset: wrongMix, ops, seed: 1, tasks: 1 }).prepared.tasks[0];
    expect(mixedWrong?.scores["{'a': 2}"]).toEqual({ exact: 0, f1: 0 });
  });

  it('scores honest keys named like Object.prototype members', () => {
    // Literal keys keep case and underscores. Reference "constructor": a0–a5 answer it (✓), a6–a8
    // "toString" (✗), a9 "__proto__" (✗).
    const task = record('t1', 'literal', 'constructor', (index) =>
      index <= 5
        ? { answer: 'constructor', correct: true }
        : index <= 8
          ? { answer: 'toString', correct: false }
          : { answer: '__proto__', correct: false },
    );
    const dataset: ProposalsDataset = { ...crux(), tasks: [task] };
    const scores = prepareReplay({ dataset, ops, seed: 1, tasks: 1 }).prepared.tasks[0]?.scores ?? {};
    expect(Object.keys(scores).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.hasOwn(scores, 'constructor') && scores.constructor).toEqual({ exact: 1, f1: 1 });
    expect(Object.hasOwn(scores, 'toString') && scores.toString).toEqual({ exact: 0, f1: 0 });
    expect(Object.getOwnPropertyDescriptor(scores, '__proto__')?.value).toEqual({ exact: 0, f1: 0 });
  });

  it('describes kinds and prints the audit lines', () => {
    expect(describeKinds({ literal: 800 })).toBe('literal');
    expect(describeKinds({ choice: 540, number: 458, literal: 2 })).toBe('choice (540), number (458), literal (2)');
    const audit = auditKeys({ dataset: crux(), ops });
    const lines = formatDataAudit({
      kinds: audit.kinds,
      kindSource: 'test',
      keyGroups: audit.keyGroups,
      mixedKeys: audit.mixedKeys,
      mixedKeyExamples: audit.examples,
      literalFallbacks: audit.literalFallbacks,
      flagLimits: { coverage: 1, bestSingle: 0.5, bestSingleAgent: 'a0' },
    } as Parameters<typeof formatDataAudit>[0]);
    expect(lines).toEqual([
      'answer kind: literal (test); 3 literal answers are no Python literal and were keyed as text',
      "the dataset's flags on the same sample: coverage 100.0%, best single 50.0% (a0)",
      'merged-answer audit: 1 of 4 (task, key) groups mix correct and wrong flags (25.00%) — above 0.5%: the kind merges answers the dataset tells apart; try --kind',
      `  t1  key {'a': 1}  6 ✓ / 2 ✗: {'a': 1} ✓ | {"a": 1} ✗`,
    ]);
  });
});

describe('runReplay with declared kinds and the audit', () => {
  const directory = temporaryDirectory('repute-audit-');

  it('refuses with --strict-keys above 0.5%, naming --kind, before running the grid', async () => {
    const path = join(directory, 'crux-mini.jsonl');
    await writeProposalsJsonl(path, crux());
    let seen: unknown;
    const error = await runReplay({
      path,
      strictKeys: true,
      workers: 1,
      methods: ['majority'],
      onData: (data) => (seen = data),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataFormatError);
    expect((error as Error).message).toMatch(
      /1 of 4 \(task, key\) groups \(25\.00%, above 0\.5%\) mix answers .* under kind literal \(each task's "kind" field\).*pass --kind <kind>/,
    );
    expect(seen).toMatchObject({ kindSource: `each task's "kind" field`, keyGroups: 4, mixedKeys: 1 });
  });

  it('replays honest keys named like Object.prototype members in worker threads', async () => {
    // A worker scores decided keys from the prepared table alone: an unscored honest key stopped the
    // run with an InternalError there. a0–a5 answer the reference "constructor", so majority is right.
    const path = join(directory, 'prototype-keys.jsonl');
    const task = record('t1', 'literal', 'constructor', (index) =>
      index <= 5 ? { answer: 'constructor', correct: true } : { answer: 'toString', correct: false },
    );
    await writeProposalsJsonl(path, { ...crux(), tasks: [task] });
    const { summary } = await runReplay({ path, workers: 2, methods: ['majority', 'beta'], tasks: 1 });
    expect(summary.byComposition['all-strong']?.majority?.clean).toBe(1);
  });

  it('overrides the kind with `kind`, says so, and writes the audit into summary.data', async () => {
    const path = join(directory, 'crux-mini-2.jsonl');
    await writeProposalsJsonl(path, crux());
    const { summary } = await runReplay({ path, kind: 'exact', workers: 1, methods: ['majority'], tasks: 2 });
    expect(summary.data.kinds).toEqual({ exact: 2 });
    expect(summary.data.kindSource).toBe(`--kind exact (the dataset says: each task's "kind" field)`);
    // As in the audit test above: 5 groups, none mixed under exact.
    expect(summary.data).toMatchObject({
      keyGroups: 5,
      mixedKeys: 0,
      literalFallbacks: 0,
      flagLimits: { coverage: 1, bestSingle: 1, bestSingleAgent: 'a0' },
    });
    expect(summary.data.mixedKeyExamples).toEqual([]);
  });
});
