import type { Evidence } from '../../reputation/reputation-model.js';
import type { Feedback, FeedbackInput } from './types.js';

/**
 * Consensus feedback (no ground truth): each participant succeeded when its final answer equals
 * the decided answer. Emits outcome evidence, behaviour evidence (validity, the aggregator's flag
 * and risk from its weight reasons, quality = agreement with the decision) and every collected
 * rating. Models ignore the evidence types they do not use. A task decided `null` gives no outcome.
 *
 * With a verifier (`input.verdicts`), a participant's success is the verifier's verdict on its
 * proposal instead (verifier feedback, as `repute replay --feedback verifier`); agents it had no
 * opinion on keep agreement with the decision.
 */
export const consensusFeedback: Feedback = (input) =>
  feedbackAgainst(input, (answer, agentId) => {
    const verdict =
      input.verdicts !== undefined && Object.hasOwn(input.verdicts, agentId) ? input.verdicts[agentId] : undefined;
    if (verdict !== undefined) return verdict;
    return input.decision.answer !== null && answer === input.decision.answer ? 1 : 0;
  });

/**
 * Feedback against a known-correct check (unit tests of code, a verifier, or the reference in a
 * simulation): success when `isCorrect(answer)`.
 *
 * @example
 * const feedback = correctnessFeedback((taskId, answer) => world.isCorrect(taskId, answer));
 */
export function correctnessFeedback(isCorrect: (taskId: string, answer: string | null) => boolean): Feedback {
  return (input) => feedbackAgainst(input, (answer) => (isCorrect(input.task.id, answer) ? 1 : 0), true);
}

function feedbackAgainst(
  { task, decision, proposals, ratings }: FeedbackInput,
  success: (answer: string | null, agentId: string) => number,
  always = false,
): Evidence[] {
  const evidence: Evidence[] = [];
  const reasons = new Map(decision.reasons.map((reason) => [reason.agentId, reason]));
  for (const proposal of proposals) {
    if (!always && decision.answer === null) break;
    // Success in [0, 1]: 1 or 0, or a verifier's estimate.
    const ok = success(proposal.answer, proposal.agentId);
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
