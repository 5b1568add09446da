import { keyedRecord, setKey } from '../../aggregation/_keyed-record.js';
import type { Decision } from '../../aggregation/aggregator.js';
import type { AgentId } from '../../core/agent-identity.js';
import type { Proposal } from '../../core/proposal.js';
import type { WeightReason } from '../../core/trace.js';
import { assertNonNegative } from '../../core/validate.js';

/** Input of {@link decideTeamAnswer}. */
export interface TeamAnswerInput {
  /** Id of the task the proposals answer, copied into the decision. */
  readonly taskId: string;
  /** The team's proposals, best-ranked member first (ties go to the earlier one). */
  readonly proposals: readonly Proposal[];
  /** Reputation per team member, ≥ 0; all zero (or missing) among the members with a parsed answer means equal weights. */
  readonly weights: Readonly<Record<AgentId, number>>;
  /** Equality of canonical answer keys. @default string equality */
  readonly sameAnswer?: (left: string, right: string) => boolean;
}

/**
 * DRF's team answer: the reputation-weighted plurality of the team's parsed proposals. Each
 * answer's support is the sum of its supporters' reputation; a tie goes to the answer whose
 * strongest supporter has the higher reputation, then to the earlier proposal. `answer` is `null`
 * when no proposal parsed.
 */
export function decideTeamAnswer({
  taskId,
  proposals,
  weights,
  sameAnswer = (left, right) => left === right,
}: TeamAnswerInput): Decision {
  for (const proposal of proposals) assertNonNegative(`weights.${proposal.agentId}`, weights[proposal.agentId] ?? 0);
  // Only members with a parsed answer vote, so only their reputation decides between weighted and equal votes.
  const total = proposals.reduce(
    (sum, proposal) => (proposal.answer === null ? sum : sum + (weights[proposal.agentId] ?? 0)),
    0,
  );
  const weightOf = (agentId: AgentId) => (total > 0 ? (weights[agentId] ?? 0) : 1);
  const groups: Array<{ key: string; support: number; strongest: number; first: number }> = [];
  proposals.forEach((proposal, index) => {
    if (proposal.answer === null) return;
    const weight = weightOf(proposal.agentId);
    const group = groups.find((candidate) => sameAnswer(candidate.key, proposal.answer as string));
    if (group) {
      group.support += weight;
      group.strongest = Math.max(group.strongest, weight);
    } else {
      groups.push({ key: proposal.answer, support: weight, strongest: weight, first: index });
    }
  });
  const ranked = groups
    .slice()
    .sort(
      (left, right) => right.support - left.support || right.strongest - left.strongest || left.first - right.first,
    );
  const support = keyedRecord();
  // setKey: an answer named `__proto__` is an own key like any other.
  for (const group of groups) setKey(support, group.key, group.support);
  const reasons: WeightReason[] = proposals.map((proposal) => ({
    agentId: proposal.agentId,
    weight: proposal.answer === null ? 0 : weightOf(proposal.agentId),
    components: { reputation: weights[proposal.agentId] ?? 0 },
    note:
      proposal.answer === null
        ? 'unparsed proposal: no vote'
        : total > 0
          ? 'reputation-weighted vote'
          : 'all reputations 0: equal vote',
  }));
  return { taskId, answer: ranked[0]?.key ?? null, support, reasons };
}
