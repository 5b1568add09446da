import type { AgentIdentity } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createAggregator } from '../../aggregation/registry.js';
import { createReputationModel } from '../../reputation/registry.js';
import type { MiniRepReputationModel } from '../../reputation/minirep.js';
import type { Selector } from '../../selection/selector.js';
import type { DebateMethod } from './run-debate-session.js';
import { miniRepPeerFilter, reputationPeerFilter } from './peer-filter.js';

/** Methods the demo and `repute run` compare, in table order. */
export const debateMethodNames = ['majority', 'random-k', 'single-metric', 'beta', 'eigentrust', 'drf', 'minirep'] as const;

/** A method name of {@link createDebateMethod}. */
export type DebateMethodName = (typeof debateMethodNames)[number];

/** Options of {@link createDebateMethod}. */
export interface CreateDebateMethodOptions {
  /** The pool. */
  readonly agents: readonly AgentIdentity[];
  /** Agents per task for `random-k`, `drf` and the MiniRep pool, in [1, pool size]. @default min(7, pool size) */
  readonly k?: number;
  /**
   * Builds a selector by registry name (`random-k`, `ucb`); the CLI passes `createSelector` from
   * the selection layer. Methods that need one throw when it is missing.
   */
  readonly createSelector?: (name: 'random-k' | 'ucb', options: { k: number; agents: readonly AgentIdentity[] }) => Selector;
}

/**
 * Builds one of the compared methods with a fresh reputation model:
 * - `majority`: everyone, plain plurality, no reputation;
 * - `random-k`: k agents drawn at random per task, plurality;
 * - `single-metric`, `beta`: everyone, reputation-weighted plurality, consensus feedback;
 * - `eigentrust`: everyone rates everyone (local trust), weighted plurality;
 * - `drf`: UCB selection of k with cost, peer ratings into DRF reputation, weighted plurality;
 * - `minirep`: the MiniRep robust aggregator (diverse pool of k, clone caps, behaviour flags) and
 *   the `minirep` model fed the aggregator's behaviour evidence.
 * Every reputation method also gates its debate: peers only see proposals the method trusts
 * ({@link reputationPeerFilter}; MiniRep uses its behaviour check, {@link miniRepPeerFilter}).
 *
 * @example
 * const method = createDebateMethod('beta', { agents: team.map((agent) => agent.identity) });
 */
export function createDebateMethod(name: DebateMethodName, { agents, k, createSelector }: CreateDebateMethodOptions): DebateMethod {
  const size = Math.min(k ?? 7, agents.length);
  const needSelector = (selectorName: 'random-k' | 'ucb'): Selector => {
    if (!createSelector) throw new InvalidArgumentError({ parameter: 'createSelector', value: undefined, message: `method ${name} needs a ${selectorName} selector; pass createSelector from the selection layer` });
    return createSelector(selectorName, { k: size, agents });
  };
  switch (name) {
    case 'majority':
      return { name, aggregator: createAggregator('plurality') };
    case 'random-k':
      return { name, selector: needSelector('random-k'), k: size, aggregator: createAggregator('plurality') };
    case 'single-metric':
    case 'beta':
    case 'eigentrust': {
      const reputation = createReputationModel(name, { agents });
      return { name, aggregator: createAggregator('weighted-plurality'), reputation, peerFilter: reputationPeerFilter(reputation), ratings: name === 'eigentrust' };
    }
    case 'drf': {
      const reputation = createReputationModel('drf', { agents });
      return { name, selector: needSelector('ucb'), k: size, aggregator: createAggregator('weighted-plurality'), reputation, peerFilter: reputationPeerFilter(reputation), ratings: true };
    }
    case 'minirep': {
      const model: MiniRepReputationModel = createReputationModel('minirep', { agents });
      const aggregator = createAggregator('minirep', { model, k: size });
      return { name, aggregator, reputation: model, peerFilter: miniRepPeerFilter(model), feedback: ({ decision }) => aggregator.feedback(decision) };
    }
    default:
      throw new InvalidArgumentError({ parameter: 'method', value: name, message: `unknown method ${JSON.stringify(name)}; use one of ${debateMethodNames.join(', ')}` });
  }
}
