import { sample } from '../core/rng.js';
import type { WeightReason } from '../core/trace.js';
import { reputationOf, validateSelectionContext } from './_validate.js';
import type { Selection, SelectionContext, Selector } from './selector.js';

/**
 * Draws k distinct agents uniformly at random with `context.rng` (the random-team baseline), in
 * draw order. Reasons record the draw position, reputation (when given) and cost.
 *
 * @example
 * createRandomKSelector().select({ pool, reputation: {}, k: 3, rng: createRng(1) });
 */
export function createRandomKSelector(): Selector {
  return {
    name: 'random-k',
    select(context: SelectionContext): Selection {
      validateSelectionContext(context, { usesK: true, requiresReputation: false });
      const drawn = sample(context.rng, context.pool, context.k).map((agent) => agent.id);
      if (context.reasons === false) return { selected: drawn, excluded: [], reasons: [] };
      const position = new Map(drawn.map((agentId, index) => [agentId, index]));
      const reasons: WeightReason[] = context.pool.map((agent) => {
        const reputation = reputationOf(context, agent.id);
        const draw = position.get(agent.id);
        return {
          agentId: agent.id,
          weight: draw === undefined ? 0 : 1,
          components: {
            ...(reputation === undefined ? {} : { reputation }),
            cost: agent.cost ?? 0,
            ...(draw === undefined ? {} : { draw: draw + 1 }),
          },
          note: draw === undefined ? 'random-k: not drawn' : `random-k: drawn ${draw + 1} of ${context.k}`,
        };
      });
      return { selected: drawn, excluded: [], reasons };
    },
  };
}
