// Verifier-filtered plurality (the `verifier-majority` baseline): a plain vote over the proposals a
// verifier accepts, with no reputation at all, so a table can show what reputation adds on top of the
// verifier. Filtering candidates by a verifier before voting is the rejection-sampling step of
// verifier-guided majority voting (Cobbe et al. 2021, "Training Verifiers to Solve Math Word
// Problems", majority vote among verifier-ranked samples); ours is its binary form:
//   pool = { i : a_i parseable, v_i ≥ 0.5 or no verdict }, or every parseable proposal when that is empty
//   answer = argmax_a |{ i ∈ pool : a_i = a }|   (ties to the key that sorts first)
import { InvalidArgumentError } from '../core/errors.js';
import type { WeightReason } from '../core/trace.js';
import type { AggregationInput, Aggregator, Decision } from './aggregator.js';
import { createPluralityAggregator } from './plurality.js';
import { validateProposals } from './_proposals.js';

/**
 * A plain vote over the proposals `input.verdicts` accepts (verdict ≥ 0.5; an agent without a
 * verdict is accepted), falling back to every parseable proposal when the verifier rejects them
 * all. Rejected proposals get a reason with weight 0. Needs `input.verdicts`.
 *
 * @example
 * const decision = createVerifierMajorityAggregator().aggregate({ task, proposals, agents, verdicts });
 */
export function createVerifierMajorityAggregator(): Aggregator {
  const plurality = createPluralityAggregator();
  return {
    name: 'verifier-majority',
    aggregate(input: AggregationInput): Decision {
      validateProposals(input);
      const verdicts = input.verdicts;
      if (verdicts === undefined)
        throw new InvalidArgumentError({
          parameter: 'verdicts',
          value: undefined,
          message:
            'verifier-majority needs the verifier’s verdicts; pass aggregate({ ..., verdicts }) (collect them with verifyProposals), or use plurality without a verifier',
        });
      const accepts = (agentId: string) => (Object.hasOwn(verdicts, agentId) ? (verdicts[agentId] ?? 1) : 1) >= 0.5;
      const accepted = input.proposals.filter((proposal) => proposal.answer !== null && accepts(proposal.agentId));
      // Nothing accepted: the vote falls back to every parseable proposal rather than answer nothing.
      const pool = accepted.length > 0 ? accepted : input.proposals.filter((proposal) => proposal.answer !== null);
      const inPool = new Set(pool.map((proposal) => proposal.agentId));
      const decision = plurality.aggregate({
        task: input.task,
        proposals: pool,
        agents: input.agents.filter((agent) => inPool.has(agent.id)),
        ...(input.support === undefined ? {} : { support: input.support }),
      });
      const rejected: WeightReason[] = input.proposals
        .filter((proposal) => !inPool.has(proposal.agentId))
        .map((proposal) => ({
          agentId: proposal.agentId,
          weight: 0,
          components: { input: 0, valid: proposal.answer === null ? 0 : 1, rejected: proposal.answer === null ? 0 : 1 },
          note: proposal.answer === null ? 'unparseable answer: no vote' : 'judged wrong by the verifier: no vote',
        }));
      return { ...decision, reasons: [...decision.reasons, ...rejected] };
    },
  };
}
