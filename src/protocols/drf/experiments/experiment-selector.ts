// Selectors the DRF experiments run with. src/selection has no registry yet, so this module holds
// an internal UCB with cost (DRF Eq. 9, printed and corrected sign) and uniform random-k; swap in
// `createSelector('ucb' | 'random-k', ...)` from src/selection once it lands. Never re-exported.
import type { AgentId } from '../../../core/agent-identity.js';
import { shuffle } from '../../../core/rng.js';
import type { Selection, Selector } from '../../../selection/selector.js';
import type { ExperimentSelectorFactory } from './experiment-hooks.js';

/**
 * UCB selection with cost, DRF Eq. 9: S_i = δ·r_i − (1−δ)·c_i + x_i with x_i = sqrt(2·ln N / n_i),
 * N = rounds so far (this one included), n_i = times i was selected; agents never selected score
 * +∞, so every agent is tried before any is exploited. `printed` uses +(1−δ)·c_i as printed.
 * Ties are broken by a shuffle with the context's rng. Stateful: counts its own selections.
 */
export function experimentUcbSelector(delta: number, variant: 'corrected' | 'printed'): Selector {
  const counts = new Map<AgentId, number>();
  let rounds = 0;
  return {
    name: variant === 'printed' ? 'ucb-printed' : 'ucb',
    select(context): Selection {
      rounds += 1;
      const sign = variant === 'printed' ? 1 : -1;
      const parts = new Map(
        context.pool.map((agent) => {
          const tried = counts.get(agent.id) ?? 0;
          const reputation = context.reputation[agent.id] ?? 0;
          const cost = agent.cost ?? 0;
          // x_i = sqrt(2 ln N / n_i); untried → +∞
          const bonus = tried === 0 ? Number.POSITIVE_INFINITY : Math.sqrt((2 * Math.log(rounds)) / tried);
          // S_i = δ·r_i ∓ (1 − δ)·c_i + x_i
          const score = delta * reputation + sign * (1 - delta) * cost + bonus;
          return [agent.id, { reputation, cost, bonus, tried, score }] as const;
        }),
      );
      const order = shuffle(context.rng, context.pool.map((agent) => agent.id));
      const ranked = order.slice().sort((left, right) => (parts.get(right)?.score ?? 0) - (parts.get(left)?.score ?? 0));
      const selected = ranked.slice(0, context.k);
      for (const agentId of selected) counts.set(agentId, (counts.get(agentId) ?? 0) + 1);
      return {
        selected,
        excluded: [],
        reasons: ranked.map((agentId) => {
          const part = parts.get(agentId) as { reputation: number; cost: number; bonus: number; tried: number; score: number };
          return {
            agentId,
            weight: Number.isFinite(part.score) ? part.score : 1e9,
            components: { delta, reputation: part.reputation, cost: part.cost, costSign: sign, bonus: Number.isFinite(part.bonus) ? part.bonus : 1e9, timesSelected: part.tried },
            note: part.tried === 0 ? 'untried: exploration first' : `S = ${delta}·${part.reputation.toFixed(4)} ${sign > 0 ? '+' : '−'} ${(1 - delta).toFixed(2)}·${part.cost.toFixed(4)} + ${part.bonus.toFixed(4)}`,
          };
        }),
      };
    },
  };
}

/** k agents drawn uniformly with the context's rng. */
export function experimentRandomSelector(): Selector {
  return {
    name: 'random-k',
    select: (context) => ({
      selected: shuffle(context.rng, context.pool.map((agent) => agent.id)).slice(0, context.k),
      excluded: [],
      reasons: context.pool.map((agent) => ({ agentId: agent.id, weight: 1, note: 'uniform random' })),
    }),
  };
}

/** The default selector factory of the DRF experiments. */
export const createExperimentSelector: ExperimentSelectorFactory = (kind, delta) =>
  kind === 'random' ? experimentRandomSelector() : experimentUcbSelector(delta, kind === 'ucb-printed' ? 'printed' : 'corrected');
