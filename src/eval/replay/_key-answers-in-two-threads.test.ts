import { afterAll, describe, expect, it } from 'vitest';
import type { ProposalsDataset, ProposalsRecord } from '../proposals/format.js';
import { memoizeAnswerOps } from './_memo-answer-ops.js';
import { keyAnswersInTwoThreads, unkeyedMathAnswers, workerKeyingThreshold } from './_key-answers-in-two-threads.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { createWorkerPool } from './worker-pool.js';

/** `tasks` math tasks, each with four agents answering in four shapes (numbers, fractions, symbolic, text). */
function mathDataset(tasks: number): ProposalsDataset {
  const records: ProposalsRecord[] = [];
  for (let index = 0; index < tasks; index++) {
    records.push({
      id: `t${index}`,
      kind: 'math',
      reference: String(index),
      proposals: {
        a: { answer: String(index), correct: true },
        b: { answer: `\\frac{${index}}{${index + 7}}`, correct: false },
        c: { answer: `x^{${(index % 5) + 2}} + ${index}x`, correct: false },
        // A repeated answer (every task has it): keyed once.
        d: { text: 'The answer is \\boxed{\\sqrt{2}}', correct: false },
      },
    });
  }
  return {
    schemaVersion: 1,
    name: 'math-fixture',
    format: 'jsonl',
    agents: ['a', 'b', 'c', 'd'].map((id) => ({ id, model: id })),
    tasks: records,
    skipped: {},
    correctness: 'flags',
  };
}

const pool = createWorkerPool(1);
afterAll(async () => {
  await pool.close();
});

describe('keyAnswersInTwoThreads', () => {
  it('leaves the table one thread would have built, half of it keyed in the worker', async () => {
    // 200 tasks: 200 + 200 + 200 distinct answers and the shared one, 601 in all (above the threshold).
    const dataset = mathDataset(200);
    const alone = memoizeAnswerOps(createDefaultAnswerOps());
    const expected = unkeyedMathAnswers(dataset, alone).map(([kind, raw]) => [raw, alone.canonical(kind, raw)]);
    expect(expected).toHaveLength(601);

    const ops = memoizeAnswerOps(createDefaultAnswerOps());
    const keying = await keyAnswersInTwoThreads({ dataset, ops, pool });
    // Every other answer: positions 1, 3, …, 599 go to the worker (300), 0, 2, …, 600 stay (301).
    expect(keying).toEqual({ inWorker: 300, here: 301 });
    expect(ops.computed()).toBe(601);
    // The same keys (in another order: the worker's come last).
    expect(ops.tables.canonical.get('math')).toEqual(new Map(expected as [string, string | null][]));
    // Nothing is left to key: the audit that follows reads every key from the table.
    expect(unkeyedMathAnswers(dataset, ops)).toEqual([]);
  });

  it('keys nothing in the worker below the threshold, or for answers a saved table holds', async () => {
    // 3 answers a task + the shared one: 3·t + 1 < threshold for t = 100.
    const small = mathDataset(100);
    expect(3 * 100 + 1).toBeLessThan(workerKeyingThreshold);
    const ops = memoizeAnswerOps(createDefaultAnswerOps());
    expect(await keyAnswersInTwoThreads({ dataset: small, ops, pool })).toEqual({ inWorker: 0, here: 0 });
    expect(ops.computed()).toBe(0);

    const dataset = mathDataset(200);
    const first = memoizeAnswerOps(createDefaultAnswerOps());
    await keyAnswersInTwoThreads({ dataset, ops: first, pool });
    const again = memoizeAnswerOps(createDefaultAnswerOps(), first.tables);
    expect(await keyAnswersInTwoThreads({ dataset, ops: again, pool })).toEqual({ inWorker: 0, here: 0 });
    expect(again.computed()).toBe(0);
  });

  it('does nothing without a worker pool', async () => {
    const ops = memoizeAnswerOps(createDefaultAnswerOps());
    expect(await keyAnswersInTwoThreads({ dataset: mathDataset(200), ops, pool: undefined })).toEqual({
      inWorker: 0,
      here: 0,
    });
  });
});
