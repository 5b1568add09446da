// The declared tuning / held-out split of a dataset's tasks. Every default of the replay benchmark
// (MiniRep's weights, thresholds, the verifier defaults) is tuned on `tuning` tasks only, and every
// reported table samples `heldout` tasks only, so no reported number was tuned on.
import { hashString } from '../../core/rng.js';

/** Which side of the declared split a task is on. */
export type TaskSplit = 'tuning' | 'heldout';

/** One task in `TUNING_SHARE_DENOMINATOR` is a tuning task. @default 5 (20% tuning, 80% held-out) */
export const TUNING_SHARE_DENOMINATOR = 5;

/**
 * The split a task belongs to: `tuning` when the 32-bit FNV-1a hash of its id is divisible by 5,
 * else `heldout`. It depends on the task id only (not on the seed, the dataset path or the sample
 * size), so the same task is on the same side in every run.
 *
 * @example
 * taskSplit('math-l5/0007'); // 'tuning' or 'heldout', the same on every machine
 */
export function taskSplit(taskId: string): TaskSplit {
  return hashString(taskId) % TUNING_SHARE_DENOMINATOR === 0 ? 'tuning' : 'heldout';
}

/** The tasks of `tasks` on one side of the split, in their original order. */
export function tasksInSplit<T extends { readonly id: string }>(tasks: readonly T[], split: TaskSplit): T[] {
  return tasks.filter((task) => taskSplit(task.id) === split);
}
