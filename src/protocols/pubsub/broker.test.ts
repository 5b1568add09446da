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

describe('createBroker edge cases', () => {
  it('refuses NaN and infinite entries, naming the entry (a NaN similarity passed every floor)', () => {
    const broker = createBroker({ dimensions: 2, topK: 2, floor: 0.1 });
    broker.subscribe('a', [1, 0]);
    expect(() => broker.subscribe('b', [Number.NaN, 1])).toThrow(
      expect.objectContaining({ code: 'invalid_argument', parameter: 'vector[0]', value: Number.NaN }),
    );
    expect(() => broker.subscribe('b', [Number.NaN, 1])).toThrow(/vector\[0\] must be a finite number, got NaN/);
    expect(broker.subscribers()).toEqual(['a']);
    expect(() => broker.route('p', [1, Number.POSITIVE_INFINITY], () => 1)).toThrow(
      expect.objectContaining({ parameter: 'publication[1]', value: Number.POSITIVE_INFINITY }),
    );
    expect(() => broker.similarities([Number.NaN, 0])).toThrow(/publication\[0\] must be a finite number/);
  });

  it('gives a zero vector similarity 0: below any positive floor, and ties broken by subscription order', () => {
    // cos is undefined for a zero vector; the broker's convention is sim = 0 (the property test above models it).
    const broker = createBroker({ dimensions: 2, topK: 2, floor: 0 });
    broker.subscribe('z', [0, 0]);
    broker.subscribe('a', [1, 0]);
    expect(broker.route('p', [1, 0], () => 1).recipients).toEqual(['a', 'z']);
    expect(broker.route('p', [0, 0], () => 1).recipients).toEqual(['z', 'a']);
    const positive = createBroker({ dimensions: 2, topK: 2, floor: 0.05 });
    positive.subscribe('z', [0, 0]);
    expect(positive.route('p', [1, 0], () => 1).recipients).toEqual([]);
  });

  it('keeps ties with the earlier-subscribed agent after an unsubscribe', () => {
    // a, b, c, d subscribe the same vector; a leaves. Top-1 of the tie b = c = d is b, the earliest left.
    const broker = createBroker({ dimensions: 2, topK: 1, floor: 0 });
    for (const id of ['a', 'b', 'c', 'd']) broker.subscribe(id, [1, 0]);
    broker.unsubscribe('a');
    expect(broker.subscribers()).toEqual(['b', 'c', 'd']);
    expect(broker.route('p', [1, 0], () => 1).recipients).toEqual(['b']);
    broker.unsubscribe('c');
    broker.subscribe('e', [0, 1]);
    expect(broker.subscribers()).toEqual(['b', 'd', 'e']);
    expect(Array.from(broker.vectorOf('d'))).toEqual([1, 0]);
    expect(Array.from(broker.vectorOf('e'))).toEqual([0, 1]);
    expect(() => broker.unsubscribe('c')).toThrow(/subscriber/);
  });

  it('lists as distrusted only receivers kept away by distrust, whatever the subscription order', () => {
    // top-1. x (sim 0.3) distrusts p, y (sim 0.9) trusts it: y is the recipient, and x would not have been one
    // even if it trusted p (0.3 < 0.9), so nobody was kept away by distrust. w (sim 0.95) distrusts p: had it
    // trusted p, it would have won (0.95 > 0.9), so it is listed.
    const vectors: Record<string, number[]> = {
      x: [0.3, Math.sqrt(1 - 0.09)],
      y: [0.9, Math.sqrt(1 - 0.81)],
      w: [0.95, Math.sqrt(1 - 0.9025)],
    };
    const trust = (receiver: string) => (receiver === 'y' ? 0.9 : 0.1);
    for (const trustPolicy of ['filter', 'down-rank'] as const)
      for (const order of [
        ['x', 'y'],
        ['y', 'x'],
        ['x', 'w', 'y'],
        ['y', 'w', 'x'],
      ]) {
        const broker = createBroker({ dimensions: 2, topK: 1, floor: 0, trustPolicy });
        for (const id of order) broker.subscribe(id, vectors[id] as number[]);
        const decision = broker.route('p', [1, 0], trust);
        const label = `${trustPolicy} ${order.join()}`;
        expect(decision.recipients, label).toEqual(['y']);
        expect(decision.distrusted, label).toEqual(order.includes('w') ? ['w'] : []);
      }
  });

  it('lists every distrusting receiver above the floor when fewer than k trust the publisher', () => {
    // top-3, filter: x and w distrust, y trusts: one recipient, and both others would have made the top-3.
    const broker = createBroker({ dimensions: 2, topK: 3, floor: 0 });
    broker.subscribe('y', [0.9, Math.sqrt(1 - 0.81)]);
    broker.subscribe('x', [0.3, Math.sqrt(1 - 0.09)]);
    broker.subscribe('w', [0.95, Math.sqrt(1 - 0.9025)]);
    const decision = broker.route('p', [1, 0], (receiver) => (receiver === 'y' ? 0.9 : 0.1));
    expect(decision.recipients).toEqual(['y']);
    expect(decision.distrusted).toEqual(['x', 'w']);
  });

  it('lists the same distrusted receivers as a brute force, in any subscription order (property)', () => {
    // Similarities are distinct multiples of 0.01 (2-D unit vectors), the floor sits between two of them,
    // and a distrusting receiver's trust is 0.4·√½, so a down-ranked score sim·√½ (sim·(2 − √½) below 0)
    // never equals another similarity: Float32 storage cannot reorder anything. Expected: a receiver
    // above the floor with trust < τ is kept away iff it is no recipient and fewer than k others
    // out-score its similarity (trusting ones by sim; filter: distrusting ones drop out; down-rank:
    // they keep their lowered score), i.e. it would have been a recipient had it trusted the publisher.
    const low = 0.4 * Math.SQRT1_2;
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: -100, max: 100 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: -100, max: 99 }),
        fc.constantFrom('filter' as const, 'down-rank' as const),
        fc.integer(),
        (hundredths, trusts, topK, floorHundredths, trustPolicy, shuffleSeed) => {
          const floor = (floorHundredths + 0.5) / 100;
          const entries = hundredths.map((value, index) => ({
            id: `s${index}`,
            sim: value / 100,
            trust: trusts[index] ? 0.9 : low,
          }));
          const trust = (receiver: string) => entries.find((entry) => entry.id === receiver)?.trust ?? 0.5;
          const candidates = entries
            .filter((entry) => entry.sim >= floor)
            .map((entry) => ({
              ...entry,
              score: entry.trust >= 0.4 ? entry.sim : entry.sim - (1 - entry.trust / 0.4) * Math.abs(entry.sim),
            }));
          const competing = candidates.filter((entry) => entry.trust >= 0.4 || trustPolicy === 'down-rank');
          const shuffled = entries
            .map((entry, index) => ({ entry, key: ((index + 1) * 2654435761 + shuffleSeed) >>> 0 }))
            .sort((left, right) => left.key - right.key)
            .map(({ entry }) => entry);
          for (const order of [entries, shuffled]) {
            const broker = createBroker({ dimensions: 2, topK, floor, tau: 0.4, trustPolicy });
            for (const entry of order) broker.subscribe(entry.id, [entry.sim, Math.sqrt(1 - entry.sim ** 2)]);
            const decision = broker.route('p', [1, 0], trust);
            const expected = candidates
              .filter((entry) => entry.trust < 0.4 && !decision.recipients.includes(entry.id))
              .filter(
                (entry) => competing.filter((other) => other.id !== entry.id && other.score > entry.sim).length < topK,
              )
              .map((entry) => entry.id)
              .sort();
            expect(decision.distrusted.slice().sort()).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
