// Internal: the first run on a dataset keys every recorded math answer with the answer engine before
// anything else can start (the merged-answer audit needs every key), while the worker threads wait
// for their first condition. This keys half of those answers in a worker thread at the same time.
import { InternalError } from '../../core/errors.js';
import type { ProposalsDataset } from '../proposals/format.js';
import type { MemoizedAnswerOps } from './_memo-answer-ops.js';
import type { KeyRequest, WorkerPool } from './worker-pool.js';

/**
 * Fewest unkeyed math answers worth a worker: below it, loading the engine in the worker (about
 * 0.3 s) costs more than keying them here.
 */
export const workerKeyingThreshold = 500;

/** How the answers were keyed by {@link keyAnswersInTwoThreads}. */
export interface TwoThreadKeying {
  /** Answers keyed in the worker thread. */
  readonly inWorker: number;
  /** Answers keyed in the calling thread. */
  readonly here: number;
}

/**
 * The distinct math answers of `dataset` that `ops` cannot answer from a table, in dataset order
 * (the raw answer the audit and the preparation key: `answer`, else `text`).
 */
export function unkeyedMathAnswers(dataset: ProposalsDataset, ops: MemoizedAnswerOps): KeyRequest[] {
  const seen = new Set<string>();
  const answers: KeyRequest[] = [];
  for (const task of dataset.tasks) {
    if (task.kind !== 'math') continue;
    for (const proposal of Object.values(task.proposals)) {
      const raw = proposal.answer !== undefined ? proposal.answer : (proposal.text ?? null);
      if (raw === null || seen.has(raw)) continue;
      seen.add(raw);
      if (!ops.knowsCanonical('math', raw)) answers.push(['math', raw]);
    }
  }
  return answers;
}

/**
 * Keys the math answers `ops` does not know yet ({@link unkeyedMathAnswers}): every other one in the
 * pool's first worker thread and the rest in this thread at the same time, then records the worker's
 * keys in `ops` (as computed by this run). Keys are pure functions of the answer, so `ops` ends up
 * with the table one thread would have built. With fewer than {@link workerKeyingThreshold} such
 * answers, or no pool, nothing is done here.
 *
 * @example
 * await keyAnswersInTwoThreads({ dataset, ops, pool });
 * const audit = auditKeys({ dataset, ops }); // every key from the table
 */
export async function keyAnswersInTwoThreads({
  dataset,
  ops,
  pool,
}: {
  dataset: ProposalsDataset;
  ops: MemoizedAnswerOps;
  pool: WorkerPool | undefined;
}): Promise<TwoThreadKeying> {
  if (pool === undefined) return { inWorker: 0, here: 0 };
  const answers = unkeyedMathAnswers(dataset, ops);
  if (answers.length < workerKeyingThreshold) return { inWorker: 0, here: 0 };
  // Alternate answers, so that neither half gets a run of the slow ones (long symbolic answers).
  const theirs = answers.filter((_, index) => index % 2 === 1);
  const keys = pool.canonicalKeys(theirs);
  // Keep a rejection from going unhandled while this thread works; it is awaited below.
  keys.catch(() => undefined);
  let here = 0;
  for (let index = 0; index < answers.length; index += 2) {
    const [kind, raw] = answers[index] as KeyRequest;
    ops.canonical(kind, raw);
    here++;
  }
  const computed = await keys;
  if (computed.length !== theirs.length)
    throw new InternalError(`replay worker keyed ${computed.length} of the ${theirs.length} answers it was given`);
  theirs.forEach(([kind, raw], index) => {
    ops.learnCanonical(kind, raw, computed[index] as string | null);
  });
  return { inWorker: theirs.length, here };
}
