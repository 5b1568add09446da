import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createRng } from '../core/rng.js';
import { createUcbSelector } from './ucb.js';

// Pool for the hand-worked example: costs 1, 2, 4, 0 → max 4 → normalized c = 0.25, 0.5, 1, 0.
const pool: AgentIdentity[] = [
  { id: 'a', model: 'm1', cost: 1 },
  { id: 'b', model: 'm2', cost: 2 },
  { id: 'c', model: 'm3', cost: 4 },
  { id: 'd', model: 'm4', cost: 0 },
];
const reputation = { a: 0.9, b: 0.6, c: 0.1, d: 0.5 };
const context = { pool, reputation, k: 2, rng: createRng(1) };

function componentsOf(selection: ReturnType<ReturnType<typeof createUcbSelector>['select']>, agentId: string) {
  return selection.reasons.find((reason) => reason.agentId === agentId)?.components ?? {};
}

describe('UCB selector with cost (DRF Eq. 9)', () => {
  it('follows the hand-computed scores over three selections (corrected rule)', () => {
    const selector = createUcbSelector();
    // Exploitation δ·r − (1−δ)·c with δ = 0.7:
    //   a: 0.63 − 0.3·0.25 = 0.555   b: 0.42 − 0.3·0.5 = 0.27   d: 0.35 − 0 = 0.35
    //   c: reputation 0.1 < 0.2 → excluded.
    // t = 1: all untried (bonus +∞), ordered by exploitation → a, d.
    const first = selector.select(context);
    expect(first.selected).toEqual(['a', 'd']);
    expect(first.excluded).toEqual(['c']);
    expect(componentsOf(first, 'a').exploitation).toBeCloseTo(0.555, 12);
    expect(componentsOf(first, 'b').exploitation).toBeCloseTo(0.27, 12);
    expect(componentsOf(first, 'a').bonus).toBe(Number.POSITIVE_INFINITY);
    // t = 2: a, d have n = 1 → bonus sqrt(2 ln 2) = 1.177410; b untried → +∞ → b, then a (1.732410 > d 1.527410).
    const second = selector.select(context);
    expect(second.selected).toEqual(['b', 'a']);
    expect(componentsOf(second, 'a').bonus).toBeCloseTo(1.1774100225, 9);
    expect(componentsOf(second, 'd').bonus).toBeCloseTo(1.1774100225, 9);
    // t = 3: 2 ln 3 = 2.1972246; a (n = 2): 0.555 + sqrt(1.0986123) = 0.555 + 1.0481471 = 1.6031471;
    //        b (n = 1): 0.27 + 1.4823038 = 1.7523038;  d (n = 1): 0.35 + 1.4823038 = 1.8323038 → d, b.
    const third = selector.select(context);
    expect(third.selected).toEqual(['d', 'b']);
    expect(third.reasons.find((reason) => reason.agentId === 'a')?.weight).toBeCloseTo(1.6031471, 6);
    expect(third.reasons.find((reason) => reason.agentId === 'b')?.weight).toBeCloseTo(1.7523038, 6);
    expect(third.reasons.find((reason) => reason.agentId === 'd')?.weight).toBeCloseTo(1.8323038, 6);
    expect(selector.snapshot()).toEqual({
      schemaVersion: 1,
      selector: 'ucb',
      selections: 3,
      counts: { a: 2, d: 2, b: 2 },
    });
  });

  it('adds the cost term under the printed variant', () => {
    // Printed: δ·r + (1−δ)·c: a 0.63 + 0.075 = 0.705, b 0.42 + 0.15 = 0.57, d 0.35 → a, b.
    const selection = createUcbSelector({ variant: 'printed' }).select(context);
    expect(selection.selected).toEqual(['a', 'b']);
    expect(componentsOf(selection, 'b').exploitation).toBeCloseTo(0.57, 12);
  });

  it('fills with the best excluded agents when too few reach the threshold, or throws if told to', () => {
    // Threshold 0.55: eligible a (0.9), b (0.6); k = 3 → admit the best excluded: d (0.5) before c (0.1).
    const selection = createUcbSelector({ threshold: 0.55 }).select({ ...context, k: 3 });
    expect(selection.selected).toEqual(['a', 'b', 'd']);
    expect(selection.excluded).toEqual(['c']);
    expect(selection.reasons.find((reason) => reason.agentId === 'd')?.note).toMatch(/admitted below threshold/);
    expect(() => createUcbSelector({ threshold: 0.55, whenTooFew: 'throw' }).select({ ...context, k: 3 })).toThrow(
      /only 2 of 4 agents/,
    );
  });

  it('restores counts from a snapshot and continues identically', () => {
    const original = createUcbSelector();
    original.select(context);
    original.select(context);
    const copy = createUcbSelector();
    copy.restore(JSON.parse(JSON.stringify(original.snapshot())));
    expect(copy.select(context)).toEqual(original.select(context));
  });

  it('refuses bad snapshots and options with typed errors naming the field', () => {
    const selector = createUcbSelector();
    expect(() => selector.restore({ schemaVersion: 2 } as never)).toThrow(InvalidArgumentError);
    expect(() => selector.restore({ schemaVersion: 1, selector: 'ucb', selections: 1, counts: { a: 5 } })).toThrow(
      /snapshot.counts.a/,
    );
    expect(() => createUcbSelector({ delta: 1.5 })).toThrow(/options.delta must be in \[0, 1\], got 1.5/);
    expect(() => createUcbSelector({ variant: 'paper' as never })).toThrow(/options.variant/);
  });

  it('validates the context: empty pool, k, missing or out-of-range reputation, NaN cost', () => {
    const selector = createUcbSelector();
    const expectError = (run: () => unknown, parameter: string, value: unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).parameter).toBe(parameter);
        expect((error as InvalidArgumentError).value).toEqual(value);
        return;
      }
      throw new Error(`expected an InvalidArgumentError for ${parameter}`);
    };
    expectError(() => selector.select({ ...context, pool: [] }), 'context.pool', []);
    expectError(() => selector.select({ ...context, k: 0 }), 'context.k', 0);
    expectError(() => selector.select({ ...context, k: 5 }), 'context.k', 5);
    expectError(
      () => selector.select({ ...context, reputation: { a: 0.9, b: 0.6, c: 0.1 } }),
      'context.reputation.d',
      undefined,
    );
    expectError(
      () => selector.select({ ...context, reputation: { ...reputation, b: 1.2 } }),
      'context.reputation.b',
      1.2,
    );
    expectError(
      () => selector.select({ ...context, pool: [...pool.slice(0, 3), { id: 'd', model: 'm4', cost: Number.NaN }] }),
      'context.pool[3].cost',
      Number.NaN,
    );
    // A refused call must not count as a selection.
    expect(selector.snapshot().selections).toBe(0);
  });
});

describe('UCB selector properties', () => {
  const poolArbitrary = fc.integer({ min: 1, max: 8 }).chain((size) =>
    fc.record({
      costs: fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: size, maxLength: size }),
      reputations: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: size, maxLength: size }),
      k: fc.integer({ min: 1, max: size }),
    }),
  );

  it('tries every agent before exploiting: the first ceil(n/k) selections cover the pool', () => {
    fc.assert(
      fc.property(poolArbitrary, ({ costs, reputations, k }) => {
        const agents = costs.map((cost, index) => ({ id: `agent-${index}`, model: `m${index}`, cost }));
        const reputation = Object.fromEntries(reputations.map((value, index) => [`agent-${index}`, value]));
        const selector = createUcbSelector({ threshold: 0 });
        const seen = new Set<string>();
        for (let round = 0; round < Math.ceil(agents.length / k); round++) {
          for (const agentId of selector.select({ pool: agents, reputation, k, rng: createRng(round) }).selected)
            seen.add(agentId);
        }
        expect(seen.size).toBe(agents.length);
      }),
    );
  });

  it('with equal reputation, the printed rule prefers the more expensive agent and the corrected rule the cheaper', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.2, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.integer({ min: 0, max: 5 }),
        (sharedReputation, costA, costB, extraRounds) => {
          fc.pre(Math.abs(costA - costB) > 1e-6);
          const agents = [
            { id: 'x', model: 'mx', cost: costA },
            { id: 'y', model: 'my', cost: costB },
          ];
          const cheaper = costA < costB ? 'x' : 'y';
          const dearer = cheaper === 'x' ? 'y' : 'x';
          const reputation = { x: sharedReputation, y: sharedReputation };
          for (const [variant, preferred] of [
            ['corrected', cheaper],
            ['printed', dearer],
          ] as const) {
            const selector = createUcbSelector({ variant });
            // First pick: both untried (+∞), ordered by δ·r ∓ (1−δ)·c.
            expect(selector.select({ pool: agents, reputation, k: 1, rng: createRng(0) }).selected).toEqual([
              preferred,
            ]);
            // Once both were tried equally often the bonuses are equal, so cost decides again.
            selector.select({ pool: agents, reputation, k: 1, rng: createRng(1) });
            for (let round = 0; round < extraRounds; round++)
              selector.select({ pool: agents, reputation, k: 2, rng: createRng(2) });
            expect(selector.select({ pool: agents, reputation, k: 1, rng: createRng(3) }).selected).toEqual([
              preferred,
            ]);
          }
        },
      ),
    );
  });

  it('never selects excluded agents while enough agents reach the threshold', () => {
    fc.assert(
      fc.property(poolArbitrary, fc.integer({ min: 1, max: 6 }), ({ costs, reputations, k }, rounds) => {
        const agents = costs.map((cost, index) => ({ id: `agent-${index}`, model: `m${index}`, cost }));
        const reputation = Object.fromEntries(reputations.map((value, index) => [`agent-${index}`, value]));
        const eligibleCount = reputations.filter((value) => value >= 0.2).length;
        fc.pre(eligibleCount >= k);
        const selector = createUcbSelector();
        for (let round = 0; round < rounds; round++) {
          const selection = selector.select({ pool: agents, reputation, k, rng: createRng(round) });
          for (const agentId of selection.selected) expect(reputation[agentId]).toBeGreaterThanOrEqual(0.2);
          for (const agentId of selection.excluded) {
            expect(reputation[agentId]).toBeLessThan(0.2);
            expect(selection.selected).not.toContain(agentId);
          }
        }
      }),
    );
  });
});

describe('UCB selector: admitted agents, snapshots and input order', () => {
  it('reports an agent admitted below the threshold with its score, since it is on the team', () => {
    // a (r 0.9) reaches threshold 0.5, b (r 0.1) does not; k = 2 admits b. Costs 0, δ = 0.7, c = 1.
    // t = 1: both untried and selected. t = 2: n_b = 1, so b's score is
    //   δ·r − (1 − δ)·c + sqrt(2 ln 2 / 1) = 0.07 − 0 + 1.1774100225 = 1.2474100225.
    const two: AgentIdentity[] = [
      { id: 'a', model: 'm1' },
      { id: 'b', model: 'm2' },
    ];
    const selector = createUcbSelector({ threshold: 0.5 });
    const input = { pool: two, reputation: { a: 0.9, b: 0.1 }, k: 2, rng: createRng(1) };
    selector.select(input);
    const second = selector.select(input);
    expect(second.selected).toEqual(['a', 'b']);
    expect(second.excluded).toEqual([]);
    const admitted = second.reasons.find((reason) => reason.agentId === 'b');
    expect(admitted?.note).toMatch(/admitted below threshold/);
    expect(admitted?.weight).toBeCloseTo(1.2474100225, 9);
  });

  it('refuses a snapshot whose counts are missing or not a record, naming snapshot.counts', () => {
    for (const counts of [undefined, null, [2], 3]) {
      const selector = createUcbSelector();
      const snapshot = { schemaVersion: 1, selector: 'ucb', selections: 2, counts } as never;
      expect(() => selector.restore(snapshot)).toThrow(InvalidArgumentError);
      try {
        selector.restore(snapshot);
      } catch (error) {
        expect((error as InvalidArgumentError).parameter).toBe('snapshot.counts');
        expect((error as Error).message).toMatch(/snapshot.counts must be a record/);
      }
      // The refused snapshot left the selector as it was.
      expect(selector.snapshot()).toEqual({ schemaVersion: 1, selector: 'ucb', selections: 0, counts: {} });
    }
  });

  const agentsArbitrary = fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 7 }).chain((ids) =>
    fc.record({
      agents: fc.tuple(
        ...ids.map((id) =>
          fc.record({
            id: fc.constant(`agent-${id}`),
            cost: fc.oneof(fc.constant(0), fc.constant(1), fc.double({ min: 0, max: 5, noNaN: true })),
            // Few distinct values, so that ties in reputation, cost and score are common.
            reputation: fc.constantFrom(0, 0.1, 0.2, 0.5, 0.5, 0.9, 1),
          }),
        ),
      ),
      k: fc.integer({ min: 1, max: ids.length }),
      // Sort keys of a permutation of the pool.
      order: fc.array(fc.double({ noNaN: true }), { minLength: ids.length, maxLength: ids.length }),
      rounds: fc.integer({ min: 1, max: 6 }),
      threshold: fc.constantFrom(0, 0.2, 0.5),
      variant: fc.constantFrom('corrected' as const, 'printed' as const),
    }),
  );

  it('selects the same team whatever the order of the pool (tieBreak id)', () => {
    fc.assert(
      fc.property(agentsArbitrary, fc.integer({ min: 0, max: 1000 }), (input, seed) => {
        const pool = input.agents.map((agent) => ({ id: agent.id, model: 'm', cost: agent.cost }));
        const reputation = Object.fromEntries(input.agents.map((agent) => [agent.id, agent.reputation]));
        const shuffled = pool
          .map((agent, index) => ({ agent, key: input.order[index] as number }))
          .sort((left, right) => left.key - right.key)
          .map(({ agent }) => agent);
        const forward = createUcbSelector({ threshold: input.threshold, variant: input.variant });
        const backward = createUcbSelector({ threshold: input.threshold, variant: input.variant });
        for (let round = 0; round < input.rounds; round++) {
          const one = forward.select({ pool, reputation, k: input.k, rng: createRng(seed + round) });
          const two = backward.select({ pool: shuffled, reputation, k: input.k, rng: createRng(seed + round) });
          expect(two.selected).toEqual(one.selected);
          expect([...two.excluded].sort()).toEqual([...one.excluded].sort());
        }
        expect(backward.snapshot()).toEqual(forward.snapshot());
      }),
    );
  });

  it('continues identically after a JSON snapshot round trip at any point', () => {
    fc.assert(
      fc.property(agentsArbitrary, fc.integer({ min: 0, max: 6 }), (input, cut) => {
        const pool = input.agents.map((agent) => ({ id: agent.id, model: 'm', cost: agent.cost }));
        const reputation = Object.fromEntries(input.agents.map((agent) => [agent.id, agent.reputation]));
        const options = { threshold: input.threshold, variant: input.variant, tieBreak: 'random' as const };
        const original = createUcbSelector(options);
        const context = (round: number) => ({ pool, reputation, k: input.k, rng: createRng(round) });
        for (let round = 0; round < cut; round++) original.select(context(round));
        const copy = createUcbSelector(options);
        copy.restore(JSON.parse(JSON.stringify(original.snapshot())));
        for (let round = cut; round < cut + input.rounds; round++)
          expect(copy.select(context(round))).toEqual(original.select(context(round)));
      }),
    );
  });
});
