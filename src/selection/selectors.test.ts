import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createRng, sample } from '../core/rng.js';
import { createAllSelector } from './all.js';
import { createRandomKSelector } from './random-k.js';
import { createSelector, selectorNames } from './registry.js';
import { createTopKSelector } from './top-k.js';

const pool: AgentIdentity[] = [
  { id: 'b', model: 'm', cost: 2 },
  { id: 'a', model: 'm', cost: 1 },
  { id: 'c', model: 'n' },
  { id: 'd', model: 'o', cost: 3 },
];
const reputation = { a: 0.7, b: 0.9, c: 0.7, d: 0.1 };

describe('all selector', () => {
  it('selects every agent in pool order and ignores k', () => {
    const selection = createAllSelector().select({ pool, reputation: {}, k: 99, rng: createRng(1) });
    expect(selection.selected).toEqual(['b', 'a', 'c', 'd']);
    expect(selection.reasons.map((reason) => reason.components)).toEqual([
      { cost: 2 },
      { cost: 1 },
      { cost: 0 },
      { cost: 3 },
    ]);
  });
});

describe('random-k selector', () => {
  it('draws what core sample() draws with the same seed (second method)', () => {
    const selection = createRandomKSelector().select({ pool, reputation, k: 2, rng: createRng(42) });
    expect(selection.selected).toEqual(sample(createRng(42), pool, 2).map((agent) => agent.id));
    expect(selection.reasons.filter((reason) => reason.weight === 1)).toHaveLength(2);
  });

  it('draws every agent about equally often', () => {
    // 4000 draws of 2 of 4: each agent expected 2000 times, sd sqrt(4000·0.5·0.5) ≈ 31.6; allow 6 sd.
    const rng = createRng(7);
    const selector = createRandomKSelector();
    const counts: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    for (let round = 0; round < 4000; round++)
      for (const agentId of selector.select({ pool, reputation, k: 2, rng }).selected) counts[agentId]! += 1;
    for (const count of Object.values(counts)) expect(Math.abs(count - 2000)).toBeLessThan(190);
  });
});

describe('top-k selector', () => {
  it('ranks by reputation, ties by id', () => {
    // b 0.9 first; a and c tie at 0.7 → a before c by id; d 0.1 last.
    const selection = createTopKSelector().select({ pool, reputation, k: 3, rng: createRng(1) });
    expect(selection.selected).toEqual(['b', 'a', 'c']);
    expect(selection.reasons.map((reason) => reason.components?.rank)).toEqual([1, 2, 3, 4]);
  });

  it('breaks ties randomly when asked, always keeping the best agent first', () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const selection = createTopKSelector({ tieBreak: 'random' }).select({
        pool,
        reputation,
        k: 2,
        rng: createRng(seed),
      });
      expect(selection.selected[0]).toBe('b');
      seen.add(selection.selected[1] as string);
    }
    expect([...seen].sort()).toEqual(['a', 'c']);
  });

  it('selects the same team whatever the order of the pool (tieBreak id, property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 8 }).chain((ids) =>
          fc.record({
            ids: fc.constant(ids.map((id) => `agent-${id}`)),
            // Few distinct values, so that ties are common.
            reputations: fc.array(fc.constantFrom(0, 0.3, 0.3, 0.7, 1), {
              minLength: ids.length,
              maxLength: ids.length,
            }),
            order: fc.array(fc.double({ noNaN: true }), { minLength: ids.length, maxLength: ids.length }),
            k: fc.integer({ min: 1, max: ids.length }),
          }),
        ),
        ({ ids, reputations, order, k }) => {
          const agents = ids.map((id) => ({ id, model: 'm' }));
          const reputationMap = Object.fromEntries(ids.map((id, index) => [id, reputations[index] as number]));
          const shuffled = agents
            .map((agent, index) => ({ agent, key: order[index] as number }))
            .sort((left, right) => left.key - right.key)
            .map(({ agent }) => agent);
          const select = (pool: typeof agents) =>
            createTopKSelector().select({ pool, reputation: reputationMap, k, rng: createRng(1) });
          expect(select(shuffled)).toEqual(select(agents));
        },
      ),
    );
  });

  it('refuses a missing reputation, naming the agent', () => {
    expect(() =>
      createTopKSelector().select({ pool, reputation: { a: 1, b: 1, c: 1 }, k: 1, rng: createRng(1) }),
    ).toThrow(/context.reputation has no entry for pool agent "d"/);
  });
});

describe('selector registry', () => {
  it('creates every registered selector by name', () => {
    for (const name of selectorNames) expect(createSelector(name).name).toBe(name);
  });

  it('refuses unknown names with a typed error', () => {
    expect(() => createSelector('thompson' as never)).toThrow(InvalidArgumentError);
    expect(() => createSelector('thompson' as never)).toThrow(
      /unknown selector "thompson"; use one of all, random-k, top-k, ucb/,
    );
  });
});

describe('selector contract (every registered selector)', () => {
  const scenario = fc.integer({ min: 1, max: 8 }).chain((size) =>
    fc.record({
      costs: fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { minLength: size, maxLength: size }),
      reputations: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: size, maxLength: size }),
      k: fc.integer({ min: 1, max: size }),
      seed: fc.integer(),
    }),
  );

  it('returns k distinct pool agents (all: the whole pool) with one reason per pool agent', () => {
    fc.assert(
      fc.property(scenario, fc.constantFrom(...selectorNames), ({ costs, reputations, k, seed }, name) => {
        const agents = costs.map((cost, index) => ({ id: `agent-${index}`, model: `m${index % 3}`, cost }));
        const reputationMap = Object.fromEntries(reputations.map((value, index) => [`agent-${index}`, value]));
        const selector = createSelector(name);
        for (let round = 0; round < 3; round++) {
          const selection = selector.select({
            pool: agents,
            reputation: reputationMap,
            k,
            rng: createRng(seed + round),
          });
          const expectedSize = name === 'all' ? agents.length : k;
          expect(selection.selected).toHaveLength(expectedSize);
          expect(new Set(selection.selected).size).toBe(expectedSize);
          for (const agentId of selection.selected) expect(agents.some((agent) => agent.id === agentId)).toBe(true);
          for (const agentId of selection.excluded) expect(selection.selected).not.toContain(agentId);
          expect(selection.reasons.map((reason) => reason.agentId).sort()).toEqual(
            agents.map((agent) => agent.id).sort(),
          );
        }
      }),
    );
  });

  it('chooses the same team, draws the same numbers and keeps the same state with reasons: false (property)', () => {
    // Two selectors of each kind see the same contexts for 4 rounds, one without reasons: the teams
    // and exclusions agree every round (so stateful UCB counts stay in step), and each shared-seed
    // rng is left at the same point (the next draw agrees).
    fc.assert(
      fc.property(scenario, fc.constantFrom(...selectorNames), ({ costs, reputations, k, seed }, name) => {
        const agents = costs.map((cost, index) => ({ id: `agent-${index}`, model: `m${index % 3}`, cost }));
        const reputationMap = Object.fromEntries(reputations.map((value, index) => [`agent-${index}`, value]));
        // Only top-k and ucb break ties; all and random-k take no options.
        const options = name === 'top-k' || name === 'ucb' ? { tieBreak: 'random' as const } : {};
        const explained = createSelector(name, options);
        const quiet = createSelector(name, options);
        for (let round = 0; round < 4; round++) {
          const rngExplained = createRng(seed + round);
          const rngQuiet = createRng(seed + round);
          const context = { pool: agents, reputation: reputationMap, k };
          const full = explained.select({ ...context, rng: rngExplained });
          const bare = quiet.select({ ...context, rng: rngQuiet, reasons: false });
          expect(bare.selected).toEqual(full.selected);
          expect(bare.excluded).toEqual(full.excluded);
          if (name !== 'all') expect(bare.reasons).toEqual([]);
          expect(rngQuiet()).toBe(rngExplained());
        }
      }),
    );
  });

  it('refuses an empty pool and k outside [1, pool size] (selectors that use k)', () => {
    for (const name of selectorNames) {
      expect(() => createSelector(name).select({ pool: [], reputation: {}, k: 1, rng: createRng(1) })).toThrow(
        /context.pool must be a non-empty list/,
      );
      if (name === 'all') continue;
      expect(() => createSelector(name).select({ pool, reputation, k: 5, rng: createRng(1) })).toThrow(
        /context.k must be an integer in \[1, 4\], got 5/,
      );
      expect(() => createSelector(name).select({ pool, reputation, k: 0, rng: createRng(1) })).toThrow(
        InvalidArgumentError,
      );
    }
  });
});
