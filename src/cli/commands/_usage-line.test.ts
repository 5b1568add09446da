import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/store.js';
import { formatUsageLine, runUsage } from './_shared.js';

let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

describe('the usage line of a run', () => {
  it('says how many calls failed after billing and how many left their usage unreported', () => {
    store = openStore({ path: ':memory:' });
    store.createRun({ id: 'r', kind: 'run', config: null });
    store.recordUsage({ runId: 'r', inputTokens: 100, outputTokens: 10, cost: 0.002, cached: false });
    store.recordUsage({ runId: 'r', inputTokens: 80, outputTokens: 5, cost: 0.001, cached: false, status: 'failed' });
    store.recordUsage({
      runId: 'r',
      inputTokens: 0,
      outputTokens: 0,
      cost: 0,
      cached: false,
      usageReported: false,
    });
    const usage = runUsage(store, 'r');
    // 3 calls, 180 in / 15 out, 0.002 + 0.001 = 0.003; one failed, one unreported.
    expect(usage).toEqual({
      calls: 3,
      cachedCalls: 0,
      inputTokens: 180,
      outputTokens: 15,
      cost: expect.closeTo(0.003, 12),
      failedCalls: 1,
      unreportedUsageCalls: 1,
    });
    expect(formatUsageLine(usage)).toBe(
      'LLM calls 3 (0 from cache), tokens in 180 / out 15, cost 0.0030 (1 failed but possibly billed; 1 with usage the provider did not report: tokens and cost are lower bounds)',
    );
    expect(formatUsageLine({ ...usage, failedCalls: 0, unreportedUsageCalls: 0 })).toBe(
      'LLM calls 3 (0 from cache), tokens in 180 / out 15, cost 0.0030',
    );
  });
});
