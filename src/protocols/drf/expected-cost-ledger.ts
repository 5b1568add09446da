// DRF's cost term c_i for live agents (arXiv 2509.05764, Eq. 9 uses c_i ∈ [0, 1]; the paper draws it
// from U(0, 1)). Here c_i is the expected cost of agent i's next call, from its configured price and
// the token usage observed so far:
//   î_i = (I_i + Ī) / (n_i + 1),  ô_i = (O_i + Ō) / (n_i + 1)   (one pseudo-call at the team mean)
//   ĉ_i = perCall_i + inputPerMillion_i · î_i / 10⁶ + outputPerMillion_i · ô_i / 10⁶
// with n_i the agent's calls so far, I_i and O_i its input and output tokens, and Ī, Ō the team's
// mean tokens per call (the prior tokens while nobody has called yet). The DRF round divides by
// max_j ĉ_j (costNormalization 'max') to put c_i in [0, 1] for Eq. 9.
import type { ActUsage } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { assertKnownOptions, assertNonNegative, defineOptionKeys } from '../../core/validate.js';
import type { CostLedger } from './cost-ledger.js';

/** Price of one agent's model; every field ≥ 0, default 0 (the shape of a team file's `price`). */
export interface CallPrice {
  /** Price unit (e.g. US dollars) per 1 000 000 input tokens. @default 0 */
  readonly inputPerMillion?: number | undefined;
  /** Price unit per 1 000 000 output tokens. @default 0 */
  readonly outputPerMillion?: number | undefined;
  /** Price unit per call, added to the token prices. @default 0 */
  readonly perCall?: number | undefined;
}

/** Observed usage of one agent: what {@link ExpectedCostLedger.totals} returns and `restore` takes. */
export interface ObservedUsage {
  /** Calls (acts) booked, cached ones included. */
  readonly calls: number;
  /** Spend booked (0 for calls served from the cache). */
  readonly cost: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Options of {@link createExpectedCostLedger}. */
export interface ExpectedCostLedgerOptions {
  /** Agent ids of the pool, in order. */
  readonly agents: readonly AgentId[];
  /** Price per agent; a missing agent costs 0. */
  readonly prices: Readonly<Record<AgentId, CallPrice>>;
  /** Tokens per call assumed while no agent has made a call. @default { input: 500, output: 200 } */
  readonly priorTokens?: { readonly input: number; readonly output: number };
}

/** A {@link CostLedger} whose cost per call is the expected price of the next call; it can be saved and restored. */
export interface ExpectedCostLedger extends CostLedger {
  /** Expected tokens of the agent's next call (î_i, ô_i). */
  expectedTokens(agentId: AgentId): { input: number; output: number };
  /** Price of a call with the given tokens for an agent (the ledger's pricing rule). */
  priceOf(agentId: AgentId, inputTokens: number, outputTokens: number): number;
  /** Replaces the observations with saved totals (a resumed run). */
  restore(totals: Readonly<Record<AgentId, ObservedUsage>>): void;
}

/** Cost of one call: inputTokens · inputPerMillion / 10⁶ + outputTokens · outputPerMillion / 10⁶ + perCall. */
export function priceOfCall(price: CallPrice, inputTokens: number, outputTokens: number): number {
  return (
    (inputTokens * (price.inputPerMillion ?? 0)) / 1_000_000 +
    (outputTokens * (price.outputPerMillion ?? 0)) / 1_000_000 +
    (price.perCall ?? 0)
  );
}

const knownExpectedCostLedgerOptions = defineOptionKeys<ExpectedCostLedgerOptions>()([
  'agents',
  'prices',
  'priorTokens',
]);

/**
 * Creates the live cost ledger of DRF: every act's tokens are recorded (cache hits too, so a
 * replayed run selects exactly like the recorded one), and `costPerCall` returns the expected
 * cost of the agent's next call (formula at the top of this file).
 *
 * @example
 * const ledger = createExpectedCostLedger({ agents: ['a', 'b'], prices: { a: { inputPerMillion: 1, outputPerMillion: 2 }, b: { perCall: 0.001 } } });
 * ledger.costPerCall('a'); // (500·1 + 200·2) / 10⁶ = 0.0009 before any call
 */
export function createExpectedCostLedger(options: ExpectedCostLedgerOptions): ExpectedCostLedger {
  assertKnownOptions('', options, knownExpectedCostLedgerOptions, 'createExpectedCostLedger');
  const { agents, prices, priorTokens = { input: 500, output: 200 } } = options;
  for (const [agentId, price] of Object.entries(prices)) {
    assertNonNegative(`prices.${agentId}.inputPerMillion`, price.inputPerMillion ?? 0);
    assertNonNegative(`prices.${agentId}.outputPerMillion`, price.outputPerMillion ?? 0);
    assertNonNegative(`prices.${agentId}.perCall`, price.perCall ?? 0);
  }
  assertNonNegative('priorTokens.input', priorTokens.input);
  assertNonNegative('priorTokens.output', priorTokens.output);
  const empty = (): ObservedUsage => ({ calls: 0, cost: 0, inputTokens: 0, outputTokens: 0 });
  let entries = new Map<AgentId, ObservedUsage>(agents.map((agentId) => [agentId, empty()]));

  const teamMean = () => {
    let calls = 0;
    let input = 0;
    let output = 0;
    for (const entry of entries.values()) {
      calls += entry.calls;
      input += entry.inputTokens;
      output += entry.outputTokens;
    }
    // Ī = Σ I_j / Σ n_j (prior tokens while nobody has called)
    return calls === 0
      ? { input: priorTokens.input, output: priorTokens.output }
      : { input: input / calls, output: output / calls };
  };

  const ledger: ExpectedCostLedger = {
    record(agentId: AgentId, usage: ActUsage) {
      const entry = entries.get(agentId);
      if (!entry) return;
      entries.set(agentId, {
        calls: entry.calls + 1,
        cost: entry.cost + usage.cost,
        inputTokens: entry.inputTokens + usage.inputTokens,
        outputTokens: entry.outputTokens + usage.outputTokens,
      });
    },
    expectedTokens(agentId: AgentId) {
      const entry = entries.get(agentId) ?? empty();
      const mean = teamMean();
      // î_i = (I_i + Ī) / (n_i + 1),  ô_i = (O_i + Ō) / (n_i + 1)
      return {
        input: (entry.inputTokens + mean.input) / (entry.calls + 1),
        output: (entry.outputTokens + mean.output) / (entry.calls + 1),
      };
    },
    priceOf(agentId: AgentId, inputTokens: number, outputTokens: number) {
      return priceOfCall(prices[agentId] ?? {}, inputTokens, outputTokens);
    },
    costPerCall(agentId: AgentId) {
      const tokens = ledger.expectedTokens(agentId);
      // ĉ_i = perCall_i + inputPerMillion_i·î_i/10⁶ + outputPerMillion_i·ô_i/10⁶
      return ledger.priceOf(agentId, tokens.input, tokens.output);
    },
    totals() {
      return Object.fromEntries([...entries].map(([agentId, entry]) => [agentId, { ...entry }]));
    },
    restore(totals) {
      const next = new Map<AgentId, ObservedUsage>(agents.map((agentId) => [agentId, empty()]));
      for (const [agentId, entry] of Object.entries(totals)) {
        if (!next.has(agentId)) continue;
        for (const field of ['calls', 'cost', 'inputTokens', 'outputTokens'] as const) {
          if (typeof entry?.[field] !== 'number' || !Number.isFinite(entry[field]) || entry[field] < 0) {
            throw new InvalidArgumentError({
              parameter: `totals.${agentId}.${field}`,
              value: entry?.[field],
              message: `totals.${agentId}.${field} must be a finite number >= 0, got ${String(entry?.[field])}; pass what totals() returned`,
            });
          }
        }
        next.set(agentId, {
          calls: entry.calls,
          cost: entry.cost,
          inputTokens: entry.inputTokens,
          outputTokens: entry.outputTokens,
        });
      }
      entries = next;
    },
  };
  return ledger;
}
