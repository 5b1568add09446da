import type { Evidence } from '../../reputation/reputation-model.js';
import type { Feedback, FeedbackInput } from './types.js';

/**
 * Consensus feedback (no ground truth): each participant succeeded when its final answer equals
 * the decided answer. Emits outcome evidence, behaviour evidence (validity, the aggregator's flag
 * and risk from its weight reasons, quality = agreement with the decision) and every collected
 * rating. Models ignore the evidence types they do not use. A task decided `null` gives no outcome.
 */
export const consensusFeedback: Feedback = (input) =>
  feedbackAgainst(input, (answer) => input.decision.answer !== null && answer === input.decision.answer);

/**
 * Feedback against a known-correct check (unit tests of code, a verifier, or the reference in a
 * simulation): success when `isCorrect(answer)`.
 *
 * @example
 * const feedback = correctnessFeedback((taskId, answer) => world.isCorrect(taskId, answer));
 */
export function correctnessFeedback(isCorrect: (taskId: string, answer: string | null) => boolean): Feedback {
  return (input) => feedbackAgainst(input, (answer) => isCorrect(input.task.id, answer), true);
}

function feedbackAgainst(
  { task, decision, proposals, ratings }: FeedbackInput,
  success: (answer: string | null) => boolean,
  always = false,
): Evidence[] {
  const evidence: Evidence[] = [];
  const reasons = new Map(decision.reasons.map((reason) => [reason.agentId, reason]));
  for (const proposal of proposals) {
    if (!always && decision.answer === null) break;
    const ok = success(proposal.answer) ? 1 : 0;
    evidence.push({ type: 'outcome', taskId: task.id, subject: proposal.agentId, success: ok });
    const components = reasons.get(proposal.agentId)?.components ?? {};
    const flagged = (components.flagged ?? 0) > 0;
    const risk = clamp01(components.risk ?? components.suspicion ?? (flagged ? 1 : 0));
    evidence.push({
      type: 'behaviour',
      taskId: task.id,
      subject: proposal.agentId,
      valid: proposal.answer !== null,
      flagged,
      risk,
      quality: ok,
    });
  }
  for (const rating of ratings) evidence.push({ type: 'rating', rating });
  return evidence;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
