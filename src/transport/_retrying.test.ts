import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, TransportError } from '../core/errors.js';
import { retrying } from './_retrying.js';

// A fake clock: sleeping advances it, so the retry budget runs without wall time.
function fakeTime() {
  let current = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    time: {
      now: () => current,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        current += ms;
      },
    },
  };
}

describe('retrying', () => {
  it('backs off 100, 200, 400, 800, 1000 ms and gives up once the next try would start past the budget', async () => {
    // Budget 2500 ms from t = 0. Failures at t = 0, 100, 300, 700, 1500: each is followed by a sleep, since
    // t + delay <= 2500 (0+100, 100+200, 300+400, 700+800, 1500+1000 = 2500). At t = 2500 the next delay is 1000:
    // 2500 + 1000 > 2500, so the sixth failure throws. Six attempts, five sleeps.
    const { sleeps, time } = fakeTime();
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw new Error('connection refused');
    };
    const result = retrying(2500, failing, 'publish m1 to raps.x', time);
    await expect(result).rejects.toThrow(TransportError);
    await expect(result).rejects.toThrow(/could not publish m1 to raps\.x within 2500 ms: connection refused/);
    expect(sleeps).toEqual([100, 200, 400, 800, 1000]);
    expect(attempts).toBe(6);
  });

  it('returns the first success', async () => {
    const { sleeps, time } = fakeTime();
    let attempts = 0;
    const value = await retrying(
      10_000,
      async () => {
        attempts++;
        if (attempts < 3) throw new Error('not yet');
        return 'ok';
      },
      'connect to JetStream',
      time,
    );
    expect(value).toBe('ok');
    expect(sleeps).toEqual([100, 200]);
  });

  it('rethrows a ReputeError at once: the attempt has found a failure that waiting does not fix', async () => {
    const { sleeps, time } = fakeTime();
    let attempts = 0;
    const refused = new InvalidArgumentError({ parameter: 'data', value: '2000000 bytes', message: 'too large' });
    const result = retrying(
      10_000,
      async () => {
        attempts++;
        throw refused;
      },
      'publish m1 to raps.x',
      time,
    );
    await expect(result).rejects.toBe(refused);
    expect(attempts).toBe(1);
    expect(sleeps).toEqual([]);
  });
});
