import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { createExpectedCostLedger, priceOfCall, type CallPrice } from './expected-cost-ledger.js';

const usage = (inputTokens: number, outputTokens: number, cost = 0) => ({
  inputTokens,
  outputTokens,
  cost,
  cached: cost === 0,
});

describe('createExpectedCostLedger', () => {
  it('prices the next call from the agent price and the tokens seen so far', () => {
    const ledger = createExpectedCostLedger({
      agents: ['a', 'b'],
      prices: { a: { inputPerMillion: 1, outputPerMillion: 2 }, b: { perCall: 0.001 } },
    });
    // Nobody has called: prior 500 in / 200 out. a: 500·1/1e6 + 200·2/1e6 = 0.0009; b: perCall 0.001.
    expect(ledger.costPerCall('a')).toBeCloseTo(0.0009, 12);
    expect(ledger.costPerCall('b')).toBeCloseTo(0.001, 12);
    ledger.record('a', usage(100, 50, 0.0002));
    // Team mean 100/50. a: î = (100 + 100)/2 = 100, ô = (50 + 50)/2 = 50 → 100e-6 + 2·50e-6 = 0.0002.
    expect(ledger.expectedTokens('a')).toEqual({ input: 100, output: 50 });
    expect(ledger.costPerCall('a')).toBeCloseTo(0.0002, 12);
    ledger.record('b', usage(300, 10));
    // Team mean (100+300)/2 = 200 in, (50+10)/2 = 30 out. a: î = (100+200)/2 = 150, ô = (50+30)/2 = 40
    // → 150e-6 + 2·40e-6 = 0.00023. b still perCall only: 0.001.
    expect(ledger.costPerCall('a')).toBeCloseTo(0.00023, 12);
    expect(ledger.costPerCall('b')).toBeCloseTo(0.001, 12);
    // A cache hit (cost 0) still counts its tokens, so a replayed run selects the same way.
    expect(ledger.totals()).toEqual({
      a: { calls: 1, cost: 0.0002, inputTokens: 100, outputTokens: 50 },
      b: { calls: 1, cost: 0, inputTokens: 300, outputTokens: 10 },
    });
  });

  it('restores saved totals exactly and rejects bad ones', () => {
    const prices = { a: { inputPerMillion: 3, outputPerMillion: 9 }, b: { inputPerMillion: 1 } };
    const original = createExpectedCostLedger({ agents: ['a', 'b'], prices });
    original.record('a', usage(40, 7, 1));
    original.record('b', usage(90, 3, 1));
    const copy = createExpectedCostLedger({ agents: ['a', 'b'], prices });
    copy.restore(original.totals());
    expect(copy.costPerCall('a')).toBe(original.costPerCall('a'));
    expect(copy.costPerCall('b')).toBe(original.costPerCall('b'));
    expect(() => copy.restore({ a: { calls: -1, cost: 0, inputTokens: 0, outputTokens: 0 } })).toThrow(
      InvalidArgumentError,
    );
    expect(() => createExpectedCostLedger({ agents: ['a'], prices: { a: { perCall: -1 } } })).toThrow(
      /prices\.a\.perCall/,
    );
  });

  it('keeps every expected cost at or above the per-call price and at most the price of the largest call seen (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ agent: fc.constantFrom('a', 'b', 'c'), input: fc.nat(5000), output: fc.nat(2000) }), {
          minLength: 1,
          maxLength: 30,
        }),
        (calls) => {
          const prices: Record<'a' | 'b' | 'c', CallPrice> = {
            a: { inputPerMillion: 2, outputPerMillion: 8, perCall: 0.0001 },
            b: { inputPerMillion: 0.5 },
            c: {},
          };
          const ledger = createExpectedCostLedger({
            agents: ['a', 'b', 'c'],
            prices,
            priorTokens: { input: 0, output: 0 },
          });
          for (const call of calls) ledger.record(call.agent, usage(call.input, call.output));
          const maxInput = Math.max(...calls.map((call) => call.input));
          const maxOutput = Math.max(...calls.map((call) => call.output));
          for (const agentId of ['a', 'b', 'c'] as const) {
            const cost = ledger.costPerCall(agentId);
            expect(cost).toBeGreaterThanOrEqual(prices[agentId].perCall ?? 0);
            expect(cost).toBeLessThanOrEqual(priceOfCall(prices[agentId], maxInput, maxOutput) + 1e-15);
          }
        },
      ),
    );
  });
});
