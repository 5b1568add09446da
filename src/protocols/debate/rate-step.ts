import type { Agent } from '../../agents/agent.js';
import type { Proposal } from '../../core/proposal.js';
import type { Rating } from '../../core/rating.js';
import { validateRating } from '../../core/rating.js';
import type { Task } from '../../core/task.js';
import type { Tracer } from '../../core/trace.js';
import { recordRating } from '../_record-rating.js';
import { guardAct } from './_act.js';
import type { DebateFailure, DebateUsageEntry } from './types.js';

/**
 * Optional step: every participant rates every other participant's final proposal, all n·(n − 1)
 * calls at once. Ratings outside [0, 1] count as failures. Writes one `rating` event per rating.
 */
export async function rateStep({
  agents,
  task,
  proposals,
  tracer,
  signal,
  parentId = null,
}: {
  agents: readonly Agent[];
  task: Task;
  /** Final proposals, one per agent in `agents` order. */
  proposals: readonly Proposal[];
  tracer: Tracer;
  signal?: AbortSignal;
  parentId?: string | null;
}): Promise<{ ratings: Rating[]; usage: DebateUsageEntry[]; failures: DebateFailure[] }> {
  const pairs: Array<[number, number]> = [];
  agents.forEach((_, rater) => agents.forEach((__, ratee) => rater !== ratee && pairs.push([rater, ratee])));
  const results = await Promise.all(
    pairs.map(([rater, ratee]) => {
      const agent = agents[rater] as Agent;
      const proposal = proposals[ratee] as Proposal;
      const own = proposals[rater] as Proposal;
      return guardAct(
        agent.identity.id,
        task.id,
        'rate',
        proposal.round,
        async () => {
          const acted = await agent.rate(signal ? { task, proposal, own, signal } : { task, proposal, own });
          validateRating(acted.value, `rating by ${agent.identity.id}`);
          return acted;
        },
        signal,
      );
    }),
  );
  const ratings: Rating[] = [];
  const usage: DebateUsageEntry[] = [];
  const failures: DebateFailure[] = [];
  results.forEach((result, index) => {
    const [rater, ratee] = pairs[index] as [number, number];
    if (!result.ok) {
      failures.push(result.failure);
      return;
    }
    const rating: Rating = {
      ...result.value,
      rater: (agents[rater] as Agent).identity.id,
      ratee: (agents[ratee] as Agent).identity.id,
      taskId: task.id,
    };
    ratings.push(rating);
    usage.push(result.usage);
    recordRating(tracer, task.id, rating, parentId);
  });
  return { ratings, usage, failures };
}
