// Interim selectors for the replay methods while src/selection has no registry yet: `all`,
// `random-k`, `top-k` and UCB (DRF Eq. 9, corrected sign, zero costs). Replaced by
// `createSelector` from src/selection as soon as it lands; internal, never re-exported.
import type { AgentId } from '../../core/agent-identity.js';
import { shuffle } from '../../core/rng.js';
import type { Selection, SelectionContext, Selector } from '../../selection/selector.js';

const reasonsOf = (context: SelectionContext, score: (agentId: AgentId) => number) => context.pool.map((agent) => ({ agentId: agent.id, weight: score(agent.id) }));

/** Every pool agent takes part. */
function allSelector(): Selector {
  return { name: 'all', select: (context) => ({ selected: context.pool.map((agent) => agent.id), excluded: [], reasons: reasonsOf(context, () => 1) }) };
}

/** k agents drawn uniformly with the context's rng. */
function randomKSelector(): Selector {
  return {
    name: 'random-k',
    select: (context) => ({ selected: shuffle(context.rng, context.pool.map((agent) => agent.id)).slice(0, context.k), excluded: [], reasons: reasonsOf(context, () => 1) }),
  };
}

/** The k agents with the highest reputation (ties broken by the rng). */
function topKSelector(): Selector {
  return {
    name: 'top-k',
    select(context): Selection {
      const order = shuffle(context.rng, context.pool.map((agent) => agent.id));
      const ranked = order.slice().sort((left, right) => (context.reputation[right] ?? 0) - (context.reputation[left] ?? 0));
      return { selected: ranked.slice(0, context.k), excluded: [], reasons: reasonsOf(context, (agentId) => context.reputation[agentId] ?? 0) };
    },
  };
}

/** UCB (DRF Eq. 9 with the corrected cost sign): S_i = δ·r_i − (1−δ)·c_i + sqrt(2 ln N / n_i); untried agents first. */
function ucbSelector(delta = 0.7): Selector {
  const counts = new Map<AgentId, number>();
  let rounds = 0;
  return {
    name: 'ucb',
    select(context): Selection {
      rounds++;
      const score = (agentId: AgentId) => {
        const tried = counts.get(agentId) ?? 0;
        const cost = context.pool.find((agent) => agent.id === agentId)?.cost ?? 0;
        // S_i = δ r_i − (1 − δ) c_i + x_i, x_i = sqrt(2 ln N / n_i); untried = +∞
        return tried === 0 ? Number.POSITIVE_INFINITY : delta * (context.reputation[agentId] ?? 0) - (1 - delta) * cost + Math.sqrt((2 * Math.log(rounds)) / tried);
      };
      const order = shuffle(context.rng, context.pool.map((agent) => agent.id));
      const ranked = order.slice().sort((left, right) => score(right) - score(left));
      const selected = ranked.slice(0, context.k);
      for (const agentId of selected) counts.set(agentId, (counts.get(agentId) ?? 0) + 1);
      return { selected, excluded: [], reasons: reasonsOf(context, (agentId) => (Number.isFinite(score(agentId)) ? score(agentId) : 1)) };
    },
  };
}

/** Creates an interim selector by name. */
export function createSelector(name: 'all' | 'random-k' | 'top-k' | 'ucb', _options: Record<string, never>): Selector {
  switch (name) {
    case 'all':
      return allSelector();
    case 'random-k':
      return randomKSelector();
    case 'top-k':
      return topKSelector();
    case 'ucb':
      return ucbSelector();
  }
}
