import { assertKnownOptions, assertOneOf, defineOptionKeys } from '../core/validate.js';
import { resolveOptions } from '../core/options.js';
import type { WeightReason } from '../core/trace.js';
import { compareIds, validateSelectionContext } from './_validate.js';
import type { Selection, SelectionContext, Selector } from './selector.js';

/** Options of the top-k selector. */
export interface TopKSelectorOptions {
  /**
   * How equal reputations are ordered: `'id'` = ascending agent id (deterministic), `'random'` =
   * a random order drawn from `context.rng`. @default 'id'
   */
  tieBreak?: 'id' | 'random';
}

const knownTopKOptions = defineOptionKeys<TopKSelectorOptions>()(['tieBreak']);

/**
 * Selects the k agents with the highest reputation, best first; ties broken by id (or randomly
 * with `tieBreak: 'random'`). Reasons carry reputation, cost and rank.
 *
 * @example
 * createTopKSelector().select({ pool, reputation: { a: 0.9, b: 0.4, c: 0.7 }, k: 2, rng }).selected; // ['a', 'c']
 */
export function createTopKSelector(options?: TopKSelectorOptions): Selector {
  assertKnownOptions('options', options, knownTopKOptions, 'createTopKSelector');
  const { tieBreak } = resolveOptions<TopKSelectorOptions>({ tieBreak: 'id' }, options);
  assertOneOf('options.tieBreak', tieBreak, ['id', 'random']);
  return {
    name: 'top-k',
    select(context: SelectionContext): Selection {
      validateSelectionContext(context, { usesK: true, requiresReputation: true });
      const ranked = context.pool.map((agent) => ({
        agent,
        reputation: context.reputation[agent.id] as number,
        tie: tieBreak === 'random' ? context.rng() : 0,
      }));
      ranked.sort(
        (left, right) =>
          right.reputation - left.reputation || left.tie - right.tie || compareIds(left.agent.id, right.agent.id),
      );
      const selected = ranked.slice(0, context.k).map((entry) => entry.agent.id);
      if (context.reasons === false) return { selected, excluded: [], reasons: [] };
      const reasons: WeightReason[] = ranked.map((entry, index) => ({
        agentId: entry.agent.id,
        weight: entry.reputation,
        components: { reputation: entry.reputation, cost: entry.agent.cost ?? 0, rank: index + 1 },
        note:
          index < context.k
            ? `top-k: rank ${index + 1} of ${ranked.length}, within k = ${context.k}`
            : `top-k: rank ${index + 1} of ${ranked.length}, outside k = ${context.k}`,
      }));
      return { selected, excluded: [], reasons };
    },
  };
}
