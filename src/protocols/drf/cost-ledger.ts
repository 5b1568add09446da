import type { ActUsage } from '../../agents/agent.js';
import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';

/** Where DRF's cost term c_i comes from. */
export type CostSource = 'price' | 'ledger' | 'auto';

/** Per-agent cost accounting for UCB selection with cost. */
export interface CostLedger {
  /** Adds one act's usage to the agent's ledger. */
  record(agentId: AgentId, usage: ActUsage): void;
  /** Cost per call used for selection: price per call, ledger mean, or (auto) ledger when it has non-zero spend. */
  costPerCall(agentId: AgentId): number;
  /** Acts and spend so far per agent. */
  totals(): Record<AgentId, { calls: number; cost: number; inputTokens: number; outputTokens: number }>;
}

/**
 * Creates a ledger over a pool. `price` uses `identity.cost` (0 when absent); `ledger` the mean
 * spend per act recorded so far (falling back to the price before the first act); `auto` (default)
 * the ledger once an agent has non-zero recorded spend, otherwise the price.
 *
 * @example
 * const ledger = createCostLedger([{ id: 'a1', model: 'm', cost: 0.01 }]);
 * ledger.costPerCall('a1'); // 0.01 (price: nothing recorded yet)
 * ledger.record('a1', { inputTokens: 10, outputTokens: 5, cost: 0.03, cached: false });
 * ledger.costPerCall('a1'); // 0.03 (auto: the ledger mean once spend is recorded)
 */
export function createCostLedger(pool: readonly AgentIdentity[], source: CostSource = 'auto'): CostLedger {
  const prices = new Map(pool.map((identity) => [identity.id, identity.cost ?? 0]));
  const entries = new Map(
    pool.map((identity) => [identity.id, { calls: 0, cost: 0, inputTokens: 0, outputTokens: 0 }]),
  );
  return {
    record(agentId, usage) {
      const entry = entries.get(agentId);
      if (!entry) return;
      entry.calls += 1;
      entry.cost += usage.cost;
      entry.inputTokens += usage.inputTokens;
      entry.outputTokens += usage.outputTokens;
    },
    costPerCall(agentId) {
      const price = prices.get(agentId) ?? 0;
      const entry = entries.get(agentId);
      if (source === 'price' || !entry || entry.calls === 0) return price;
      if (source === 'ledger') return entry.cost / entry.calls;
      return entry.cost > 0 ? entry.cost / entry.calls : price;
    },
    totals() {
      return Object.fromEntries([...entries].map(([agentId, entry]) => [agentId, { ...entry }]));
    },
  };
}
