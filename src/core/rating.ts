import type { AgentId } from './agent-identity.js';
import { InvalidArgumentError } from './errors.js';
import type { TaskId } from './task.js';

/** One agent's rating of another agent's proposal on a task. */
export interface Rating {
  readonly rater: AgentId;
  readonly ratee: AgentId;
  readonly taskId: TaskId;
  /** Score in [0, 1]: 1 = fully correct / reliable. */
  readonly score: number;
  /** Optional reason (from a judging prompt). */
  readonly reason?: string;
}

/** Throws an {@link InvalidArgumentError} naming the field unless the rating is well formed. */
export function validateRating(rating: Rating, parameter = 'rating'): void {
  if (typeof rating.score !== 'number' || !Number.isFinite(rating.score) || rating.score < 0 || rating.score > 1) {
    throw new InvalidArgumentError({
      parameter: `${parameter}.score`,
      value: rating.score,
      message: `${parameter}.score must be in [0, 1], got ${String(rating.score)} (rater ${rating.rater} -> ratee ${rating.ratee}); clamp or rescale judge scores to [0, 1]`,
    });
  }
}
