import type { WeightReason } from '../core/trace.js';
import { reputationOf, validateSelectionContext } from './_validate.js';
import type { Selection, SelectionContext, Selector } from './selector.js';

/**
 * Selects every pool agent, in pool order, ignoring `k` (the plain all-agents team). Reasons
 * carry each agent's reputation (when given) and cost.
 *
 * @example
 * createAllSelector().select({ pool, reputation: {}, k: 1, rng }).selected; // every id
 */
export function createAllSelector(): Selector {
  return {
    name: 'all',
    select(context: SelectionContext): Selection {
      validateSelectionContext(context, { usesK: false, requiresReputation: false });
      const reasons: WeightReason[] = context.pool.map((agent) => {
        const reputation = reputationOf(context, agent.id);
        return {
          agentId: agent.id,
          weight: 1,
          components: { ...(reputation === undefined ? {} : { reputation }), cost: agent.cost ?? 0 },
          note: 'all: every pool agent takes part',
        };
      });
      return { selected: context.pool.map((agent) => agent.id), excluded: [], reasons };
    },
  };
}
