import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBroker } from './broker.js';

describe('createBroker', () => {
  // Subscribers on the unit circle; the publication is (1, 0), so sim = x coordinate.
  const build = (options: Partial<Parameters<typeof createBroker>[0]> = {}) => {
    const broker = createBroker({ dimensions: 2, topK: 2, floor: 0.1, tau: 0.4, ...options });
    broker.subscribe('a', [1, 0]); // sim 1
    broker.subscribe('b', [0.8, 0.6]); // sim 0.8
    broker.subscribe('c', [0, 1]); // sim 0 (below the floor)
    broker.subscribe('d', [-1, 0]); // sim -1
    broker.subscribe('p', [1, 0]); // the publisher itself
    return broker;
  };

  it('routes to the top-k above the floor, never to the publisher', () => {
    const decision = build().route('p', [1, 0], () => 0.5);
    expect(decision.recipients).toEqual(['a', 'b']);
    expect(decision.reasons.map((reason) => reason.components?.similarity)).toEqual([
      expect.closeTo(1, 6),
      expect.closeTo(0.8, 6),
    ]);
    expect(decision.broadcast).toBe(4);
  });

  it('filters receivers whose trust in the publisher is below tau', () => {
    // a trusts p at 0.2 < 0.4: removed; c is below the floor, so only b remains.
    const decision = build().route('p', [1, 0], (receiver) => (receiver === 'a' ? 0.2 : 0.9));
    expect(decision.recipients).toEqual(['b']);
    expect(decision.distrusted).toEqual(['a']);
  });

  it('down-ranks instead of filtering: score = sim * trust / tau', () => {
    // a: 1 * 0.2 / 0.4 = 0.5 < b: 0.8, so b comes first and a second.
    const decision = build({ trustPolicy: 'down-rank' }).route('p', [1, 0], (receiver) =>
      receiver === 'a' ? 0.2 : 0.9,
    );
    expect(decision.recipients).toEqual(['b', 'a']);
    expect(decision.reasons[1]?.weight).toBeCloseTo(0.5, 6);
    expect(decision.reasons[1]?.note).toMatch(/down-ranked: trust 0.200 < tau 0.4/);
  });

  it('down-ranks a negative similarity too, whatever the subscription order', () => {
    // floor -1, top-1: trusted t at sim -0.2 (score -0.2) against distrusting u at sim -0.5, trust 0:
    // u's score is -0.5 - (1 - 0/0.4)·0.5 = -1 < -0.2, so t gets it in either order (sim·trust/τ gave u 0).
    for (const order of [
      ['t', 'u'],
      ['u', 't'],
    ]) {
      const broker = createBroker({ dimensions: 2, topK: 1, floor: -1, tau: 0.4, trustPolicy: 'down-rank' });
      const vectors: Record<string, number[]> = { t: [-0.2, Math.sqrt(1 - 0.04)], u: [-0.5, Math.sqrt(0.75)] };
      for (const id of order) broker.subscribe(id, vectors[id] as number[]);
      const decision = broker.route('p', [1, 0], (receiver) => (receiver === 'u' ? 0 : 0.9));
      expect(decision.recipients, order.join()).toEqual(['t']);
    }
  });

  it('delivers to a distrusting receiver on probation when its draw is below the probation rate', () => {
    // a distrusts p (0.2 < 0.4). Probation 0.3: draw 0.1 < 0.3 delivers, draw 0.5 does not.
    const broker = build({ probation: 0.3 });
    const trust = (receiver: string) => (receiver === 'a' ? 0.2 : 0.9);
    const kept = broker.route('p', [1, 0], trust, () => 0.1);
    expect(kept.recipients).toEqual(['a', 'b']);
    expect(kept.reasons[0]?.note).toMatch(/^probation: trust 0.200 < tau 0.4/);
    expect(kept.distrusted).toEqual([]);
    expect(broker.route('p', [1, 0], trust, () => 0.5).recipients).toEqual(['b']);
    expect(build().route('p', [1, 0], trust, () => 0).recipients).toEqual(['b']);
  });

  it('normalises stored vectors and replaces a subscription on re-subscribe', () => {
    const broker = createBroker({ dimensions: 2, topK: 1, floor: 0 });
    broker.subscribe('a', [3, 4]);
    expect(Array.from(broker.vectorOf('a'))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    broker.subscribe('a', [0, 2]);
    expect(broker.size).toBe(1);
    expect(Array.from(broker.vectorOf('a'))).toEqual([0, 1]);
    broker.unsubscribe('a');
    expect(broker.size).toBe(0);
  });

  it('refuses vectors of the wrong length and bad options', () => {
    const broker = createBroker({ dimensions: 3 });
    expect(() => broker.subscribe('a', [1, 0])).toThrow(/vector must have 3 entries, got 2/);
    expect(() => createBroker({ dimensions: 3, tau: 2 })).toThrow(/options.tau must be in \[0, 1\], got 2/);
    expect(() => createBroker({ dimensions: 3, trustPolicy: 'drop' as 'filter' })).toThrow(
      /trustPolicy must be 'filter' or 'down-rank'/,
    );
  });

  it('matches a brute-force sort, and routed <= min(k, broadcast) (property)', () => {
    const vector = fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 });
    fc.assert(
      fc.property(
        fc.array(vector, { minLength: 1, maxLength: 30 }),
        vector,
        fc.integer({ min: 1, max: 8 }),
        fc.float({ min: -1, max: 1, noNaN: true }),
        fc.integer(),
        (subscribers, publication, topK, floor, trustSeed) => {
          const broker = createBroker({ dimensions: 4, topK, floor, tau: 0.4, initialCapacity: 2 });
          subscribers.forEach((subscriber, index) => broker.subscribe(`s${index}`, subscriber));
          const trust = (receiver: string) => (((Number(receiver.slice(1)) * 7919 + trustSeed) >>> 0) % 10) / 10;
          const decision = broker.route('s0', publication, trust);
          // Second method: cosine by hand, filter, stable sort, cut.
          const norm = (values: number[]) => Math.hypot(...values);
          const expected = subscribers
            .map((subscriber, index) => ({
              id: `s${index}`,
              index,
              sim:
                norm(subscriber) === 0 || norm(publication) === 0
                  ? 0
                  : subscriber.reduce((sum, value, at) => sum + value * (publication[at] as number), 0) /
                    norm(subscriber) /
                    norm(publication),
            }))
            .filter((entry) => entry.id !== 's0' && entry.sim >= floor && trust(entry.id) >= 0.4)
            .sort((left, right) => right.sim - left.sim || left.index - right.index)
            .slice(0, topK)
            .map((entry) => entry.id);
          expect(decision.recipients.length).toBeLessThanOrEqual(Math.min(topK, decision.broadcast));
          expect(new Set(decision.recipients).size).toBe(decision.recipients.length);
          expect(decision.recipients).not.toContain('s0');
          // Float32 storage can reorder near-ties and entries at the floor: compare exactly when none exist.
          const sims = subscribers.map((subscriber) =>
            norm(subscriber) === 0 || norm(publication) === 0
              ? 0
              : subscriber.reduce((sum, value, at) => sum + value * (publication[at] as number), 0) /
                norm(subscriber) /
                norm(publication),
          );
          const clear = sims.every(
            (sim, index) =>
              Math.abs(sim - floor) > 1e-4 && sims.every((other, at) => at === index || Math.abs(sim - other) > 1e-4),
          );
          if (clear) expect(decision.recipients).toEqual(expected);
          for (const reason of decision.reasons) {
            expect(reason.components?.similarity).toBeGreaterThanOrEqual(floor - 1e-5);
            expect(reason.components?.trust).toBeGreaterThanOrEqual(0.4);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
