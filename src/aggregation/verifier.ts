import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';

/**
 * A pluggable correctness estimator for one proposal (unit tests for code, a checker model, a
 * simulated verifier of known accuracy). MiniRep blends its estimate into the proposal's current
 * quality. It sees the {@link Task} only, never a reference answer.
 *
 * @example
 * const verifier: Verifier = { name: 'tests', estimate: (task, proposal) => (proposal.answer === null ? 0 : undefined) };
 */
export interface Verifier {
  /** Short name shown in reasons. @default 'verifier' */
  readonly name?: string;
  /** Estimated probability in [0, 1] that the proposal is correct, or `undefined` for no opinion. */
  estimate(task: Task, proposal: Proposal): number | undefined;
}
