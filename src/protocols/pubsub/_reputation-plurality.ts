// Reputation-weighted plurality (the default RAPS decision): support(a) = Σ_{i: a_i = a} rep_i, the
// answer with the largest support wins; exact ties go to the key that sorts first. Kept local so
// that RAPS only needs the `Aggregator` interface; any aggregator can be passed instead.
import type { Aggregator } from '../../aggregation/aggregator.js';
import type { WeightReason } from '../../core/trace.js';

/** Weighted plurality by `input.weights` (missing weights count 0; unparseable answers never vote). */
export function createReputationPlurality(): Aggregator {
  return {
    name: 'reputation-plurality',
    aggregate({ task, proposals, weights = {} }) {
      const support: Record<string, number> = {};
      const reasons: WeightReason[] = [];
      for (const proposal of proposals
        .slice()
        .sort((left, right) => (left.agentId < right.agentId ? -1 : left.agentId > right.agentId ? 1 : 0))) {
        const weight = proposal.answer === null ? 0 : (weights[proposal.agentId] ?? 0);
        // support(a) = Σ_{i: a_i = a} rep_i
        if (proposal.answer !== null) support[proposal.answer] = (support[proposal.answer] ?? 0) + weight;
        reasons.push({
          agentId: proposal.agentId,
          weight,
          components: { reputation: weights[proposal.agentId] ?? 0 },
          note: proposal.answer === null ? 'unparseable answer: no vote' : 'reputation weight',
        });
      }
      let answer: string | null = null;
      let best = 0;
      for (const key of Object.keys(support).sort()) {
        if ((support[key] as number) > best) {
          best = support[key] as number;
          answer = key;
        }
      }
      return { taskId: task.id, answer, support, reasons };
    },
  };
}
