import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admitCall,
  type BreakerState,
  closedBreaker,
  createCircuitBreakers,
  recordCall,
  resolveBreakerOptions,
} from './circuit-breaker.js';

const options = resolveBreakerOptions({ failureThreshold: 3, cooldownMs: 1000 });

describe('circuit breaker', () => {
  it('opens after 3 failures in a row, skips until the cooldown, then lets one probe through', () => {
    let time = 0;
    const breakers = createCircuitBreakers({ now: () => time, failureThreshold: 3, cooldownMs: 1000 });
    for (const at of [0, 10, 20]) {
      time = at;
      expect(breakers.admit('dead')).toEqual({ admitted: true, probe: false });
      breakers.record('dead', 'failure');
    }
    // Opened by the third failure at t = 20: skipped until 20 + 1000 = 1020.
    time = 500;
    expect(breakers.admit('dead')).toEqual({
      admitted: false,
      agentId: 'dead',
      reason: 'circuit-open',
      failures: 3,
      retryAt: 1020,
    });
    time = 1020;
    expect(breakers.admit('dead')).toEqual({ admitted: true, probe: true });
    // While the probe is out, nobody else gets through (until a whole cooldown has passed).
    time = 1100;
    expect(breakers.admit('dead')).toMatchObject({ admitted: false, retryAt: 2020 });
    // The probe fails at 1200: open again, next probe at 2200.
    time = 1200;
    breakers.record('dead', 'failure');
    expect(breakers.state('dead')).toEqual({ status: 'open', failures: 4, openedAt: 1200 });
    time = 2199;
    expect(breakers.admit('dead').admitted).toBe(false);
    time = 2200;
    expect(breakers.admit('dead')).toEqual({ admitted: true, probe: true });
    breakers.record('dead', 'success');
    expect(breakers.state('dead')).toEqual({ status: 'closed', failures: 0 });
    // Other agents were never touched.
    expect(breakers.state('alive')).toEqual(closedBreaker);
  });

  it('a success in between resets the count (failures must be in a row)', () => {
    let state: BreakerState = closedBreaker;
    for (const outcome of ['failure', 'failure', 'success', 'failure', 'failure'] as const)
      state = recordCall(state, outcome, 0, options);
    expect(state).toEqual({ status: 'closed', failures: 2 });
  });

  it('a late failure of a call admitted before the circuit opened does not extend the cooldown', () => {
    const open: BreakerState = { status: 'open', failures: 3, openedAt: 100 };
    expect(recordCall(open, 'failure', 900, options)).toEqual({ status: 'open', failures: 4, openedAt: 100 });
  });

  it('refuses a threshold below 1 and a negative cooldown, naming the field', () => {
    expect(() => resolveBreakerOptions({ failureThreshold: 0 })).toThrow(
      /failureThreshold must be an integer ≥ 1, got 0/,
    );
    expect(() => resolveBreakerOptions({ cooldownMs: -1 })).toThrow(/cooldownMs must be a finite number ≥ 0, got -1/);
  });

  // A reference model written apart from the implementation: the breaker is a function of the
  // history of admissions and outcomes, so it is replayed from the list of events.
  type Event = { kind: 'admit'; dt: number } | { kind: 'record'; dt: number; outcome: 'success' | 'failure' };
  const events = fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('admit' as const), dt: fc.integer({ min: 0, max: 700 }) }),
      fc.record({
        kind: fc.constant('record' as const),
        dt: fc.integer({ min: 0, max: 700 }),
        outcome: fc.constantFrom('success' as const, 'failure' as const),
      }),
    ),
    { maxLength: 60 },
  );

  it('properties: skips only while open or probing; opens exactly at the threshold; one probe per cooldown', () => {
    fc.assert(
      fc.property(
        events,
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 2000 }),
        (list, threshold, cooldown) => {
          const resolved = resolveBreakerOptions({ failureThreshold: threshold, cooldownMs: cooldown });
          let state: BreakerState = closedBreaker;
          let time = 0;
          let inRow = 0;
          let lastProbe = Number.NEGATIVE_INFINITY;
          for (const event of list as Event[]) {
            time += event.dt;
            if (event.kind === 'admit') {
              const before = state;
              const admission = admitCall(state, time, resolved);
              state = admission.state;
              if (before.status === 'closed')
                expect(admission).toEqual({ admitted: true, probe: false, state: before });
              else {
                const since = before.status === 'open' ? before.openedAt : before.probeAt;
                // Admitted exactly when a cooldown has passed since it opened or since the last probe.
                expect(admission.admitted).toBe(time - since >= cooldown);
                if (admission.admitted) {
                  expect(admission.probe).toBe(true);
                  // At most one probe per cooldown.
                  expect(time - lastProbe).toBeGreaterThanOrEqual(cooldown);
                  lastProbe = time;
                  expect(state.status).toBe('half-open');
                } else expect(admission.retryAt).toBe(since + cooldown);
              }
            } else {
              const before = state;
              state = recordCall(state, event.outcome, time, resolved);
              inRow = event.outcome === 'success' ? 0 : inRow + 1;
              expect(state.failures).toBe(inRow);
              if (event.outcome === 'success') expect(state.status).toBe('closed');
              else if (before.status === 'closed') expect(state.status).toBe(inRow >= threshold ? 'open' : 'closed');
              else expect(state.status).toBe('open');
            }
            // Never open or probing with fewer failures in a row than the threshold.
            if (state.status !== 'closed') expect(state.failures).toBeGreaterThanOrEqual(threshold);
          }
        },
      ),
      { seed: 38, numRuns: 400 },
    );
  });

  it('property: an agent that always fails is called at most threshold + ceil(T / cooldown) times in T ms', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 50, max: 1000 }),
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 200 }),
        (threshold, cooldown, gaps) => {
          let time = 0;
          const breakers = createCircuitBreakers({
            now: () => time,
            failureThreshold: threshold,
            cooldownMs: cooldown,
          });
          let calls = 0;
          for (const gap of gaps) {
            time += gap;
            if (breakers.admit('dead').admitted) {
              calls += 1;
              breakers.record('dead', 'failure');
            }
          }
          // Up to the threshold, then one probe per cooldown at most over the time elapsed.
          expect(calls).toBeLessThanOrEqual(threshold + Math.ceil(time / cooldown));
        },
      ),
      { seed: 2038, numRuns: 300 },
    );
  });
});
