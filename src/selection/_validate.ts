import { validateTeam } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { assertInRange, assertInteger } from '../core/validate.js';
import type { SelectionContext } from './selector.js';

/**
 * Checks a selection context before any decision: a non-empty pool with unique ids and finite,
 * non-negative costs; `k` an integer in [1, pool size] (unless the selector ignores k); a
 * reputation in [0, 1] for every pool agent (required when the selector ranks by it, checked
 * when present otherwise); an rng function.
 */
export function validateSelectionContext(
  context: SelectionContext,
  { usesK, requiresReputation }: { usesK: boolean; requiresReputation: boolean },
): void {
  if (context === null || typeof context !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'context',
      value: context,
      message: 'context must be an object { pool, reputation, k, rng }',
    });
  }
  validateTeam(context.pool, 'context.pool');
  if (usesK) {
    assertInteger(
      'context.k',
      context.k,
      1,
      context.pool.length,
      `k is the team size and must fit the pool of ${context.pool.length} agent(s)`,
    );
  }
  const reputation = context.reputation ?? {};
  for (const agent of context.pool) {
    const value = Object.hasOwn(reputation, agent.id) ? reputation[agent.id] : undefined;
    if (value === undefined) {
      if (!requiresReputation) continue;
      throw new InvalidArgumentError({
        parameter: `context.reputation.${agent.id}`,
        value,
        message: `context.reputation has no entry for pool agent ${JSON.stringify(agent.id)}; pass a reputation in [0, 1] for every pool agent (e.g. model.scores())`,
      });
    }
    // A score in [0, 1] (NaN fails both) passes without building the field name.
    if (typeof value === 'number' && value >= 0 && value <= 1) continue;
    assertInRange(`context.reputation.${agent.id}`, value, 0, 1, { hint: 'reputations are scores in [0, 1]' });
  }
  if (typeof context.rng !== 'function') {
    throw new InvalidArgumentError({
      parameter: 'context.rng',
      value: context.rng,
      message: 'context.rng must be a function returning numbers in [0, 1); pass createRng(seed)',
    });
  }
}

/** Reputation of a pool agent when given, for reasons. */
export function reputationOf(context: SelectionContext, agentId: string): number | undefined {
  return context.reputation !== undefined && Object.hasOwn(context.reputation, agentId)
    ? context.reputation[agentId]
    : undefined;
}

/** Code-unit order of ids, independent of locale. */
export function compareIds(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
