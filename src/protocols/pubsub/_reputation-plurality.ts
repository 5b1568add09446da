// Reputation-weighted plurality (the default RAPS decision): support(a) = Σ_{i: a_i = a} rep_i, the
// answer with the largest support wins; exact ties go to the key that sorts first. Kept local so
// that RAPS only needs the `Aggregator` interface; any aggregator can be passed instead.
import type { Aggregator } from '../../aggregation/aggregator.js';
import { tallyVotes } from '../../aggregation/plurality.js';
import type { WeightReason } from '../../core/trace.js';

/** Weighted plurality by `input.weights` (missing weights count 0; unparseable answers never vote). */
export function createReputationPlurality(): Aggregator {
  return {
    name: 'reputation-plurality',
    aggregate({ task, proposals, weights = {} }) {
      const ordered = proposals
        .slice()
        .sort((left, right) => (left.agentId < right.agentId ? -1 : left.agentId > right.agentId ? 1 : 0));
      const votes = ordered.map((proposal) => ({
        agentId: proposal.agentId,
        answer: proposal.answer,
        weight: proposal.answer === null ? 0 : (weights[proposal.agentId] ?? 0),
      }));
      // support(a) = Σ_{i: a_i = a} rep_i; the largest positive support wins, exact ties to the first key
      const { answer, support } = tallyVotes(votes);
      const reasons: WeightReason[] = ordered.map((proposal, index) => ({
        agentId: proposal.agentId,
        weight: (votes[index] as { weight: number }).weight,
        components: { reputation: weights[proposal.agentId] ?? 0 },
        note: proposal.answer === null ? 'unparseable answer: no vote' : 'reputation weight',
      }));
      return { taskId: task.id, answer, support, reasons };
    },
  };
}
