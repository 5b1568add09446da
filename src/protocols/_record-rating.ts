// Internal: how a peer rating appears in the trace, the same for debate's rate step and DRF's rating network.
import type { Rating } from '../core/rating.js';
import type { TaskId } from '../core/task.js';
import type { Span, Tracer } from '../core/trace.js';

/** Records `rating` on task `taskId` as a zero-length `rating` span under `parentId`. */
export function recordRating(tracer: Tracer, taskId: TaskId, rating: Rating, parentId: string | null): Span {
  return tracer.record(
    {
      type: 'rating',
      taskId,
      rater: rating.rater,
      ratee: rating.ratee,
      score: rating.score,
      ...(rating.reason === undefined ? {} : { reason: rating.reason }),
    },
    parentId,
  );
}
