import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createProviderLimiter, createSemaphore, endpointKey } from './semaphore.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createSemaphore', () => {
  it('admits at most `limit` holders and serves waiters first in, first out', async () => {
    const gate = createSemaphore(2);
    const order: string[] = [];
    const releaseA = await gate.acquire();
    const releaseB = await gate.acquire();
    const c = gate.acquire().then((release) => {
      order.push('c');
      return release;
    });
    const d = gate.acquire().then((release) => {
      order.push('d');
      return release;
    });
    await tick();
    expect([gate.active, gate.waiting, order]).toEqual([2, 2, []]);
    releaseA();
    releaseA(); // idempotent: must not free a second slot
    await tick();
    expect([gate.active, gate.waiting, order]).toEqual([2, 1, ['c']]);
    releaseB();
    (await c)();
    (await d)();
    expect([gate.active, gate.waiting, order]).toEqual([0, 0, ['c', 'd']]);
  });

  it('drops an aborted waiter from the queue', async () => {
    const gate = createSemaphore(1);
    const release = await gate.acquire();
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(gate.waiting).toBe(0);
    release();
    expect(gate.active).toBe(0);
    await expect(gate.acquire(AbortSignal.abort(new Error('early')))).rejects.toThrow('early');
  });

  it('never exceeds the limit and finishes every job (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }),
        async (limit, delays) => {
          const gate = createSemaphore(limit);
          let inFlight = 0;
          let peak = 0;
          const results = await Promise.all(
            delays.map((delay, index) =>
              gate.run(async () => {
                inFlight += 1;
                peak = Math.max(peak, inFlight);
                for (let step = 0; step <= delay; step++) await tick(); // at least one tick, so the first `limit` jobs overlap
                inFlight -= 1;
                return index;
              }),
            ),
          );
          expect(results).toEqual(delays.map((_, index) => index));
          expect(peak).toBeLessThanOrEqual(limit);
          expect(peak).toBe(Math.min(limit, delays.length));
          expect(gate.active).toBe(0);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('rejects bad limits', () => {
    expect(() => createSemaphore(0)).toThrow(/limit must be an integer in \[1/);
    expect(() => createSemaphore(1.5)).toThrow(/limit/);
  });
});

describe('createProviderLimiter', () => {
  it('shares one semaphore per endpoint and refuses conflicting limits', () => {
    const limiter = createProviderLimiter({ defaultLimit: 3, limits: { [endpointKey('openai', undefined)]: 5 } });
    const local = endpointKey('openai-compatible', 'http://127.0.0.1:11434/v1');
    expect(local).toBe('openai-compatible|http://127.0.0.1:11434/v1');
    expect(limiter.semaphore(local)).toBe(limiter.semaphore(local));
    expect(limiter.semaphore(local).limit).toBe(3);
    expect(limiter.semaphore('openai|default').limit).toBe(5);
    expect(limiter.semaphore('x', 2).limit).toBe(2);
    expect(() => limiter.semaphore('x', 4)).toThrow(/already has a concurrency limit of 2/);
  });
});
