import type { AgentId } from '../../core/agent-identity.js';
import type { Tracer } from '../../core/trace.js';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import type { Feedback, FeedbackInput } from './types.js';

/**
 * Step 5: after the decision, feeds the feedback's evidence to the reputation model and writes one
 * `reputation-update` event with every score before and after.
 */
export function updateReputationStep({
  reputation,
  feedback,
  input,
  tracer,
  parentId = null,
}: {
  reputation: ReputationModel;
  feedback: Feedback;
  input: FeedbackInput;
  tracer: Tracer;
  parentId?: string | null;
}): { before: Record<AgentId, number>; after: Record<AgentId, number> } {
  const before = reputation.scores();
  reputation.observe(feedback(input));
  const after = reputation.scores();
  tracer.record({ type: 'reputation-update', taskId: input.task.id, before, after }, parentId);
  return { before, after };
}
