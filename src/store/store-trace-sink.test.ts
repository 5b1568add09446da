import { afterEach, describe, expect, it } from 'vitest';
import type { SpanData } from '../core/trace.js';
import { createTracer } from '../core/trace.js';
import { createScriptedAgent } from '../protocols/pubsub/_test-agents.js';
import { runRaps } from '../protocols/pubsub/run-raps.js';
import { openStore, type Store } from './store.js';
import { createStoreTraceSink } from './store-trace-sink.js';

let stores: Store[] = [];
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
});

function memoryStore(): Store {
  const store = openStore({ path: ':memory:', now: () => 1_000 });
  stores.push(store);
  store.createRun({ id: 'r', kind: 'raps', config: {} });
  return store;
}

type RouteSpan = Extract<SpanData, { type: 'route' }>;
type RecoverySpan = Extract<SpanData, { type: 'recovery' }>;

describe('createStoreTraceSink', () => {
  it('keeps why RAPS starved a peer: route spans with distrustReasons and belowFloor, recovery spans, each under its task', async () => {
    // Three scripted agents: A and B judge C unreliable, C judges A and B unreliable (see run-raps.test.ts).
    // Round 0: priors 1/2 >= tau, everyone hears everyone. Round 1: E_A[C] = E_B[C] = 1/3 < 0.4 (s = 1), so C's
    // publication reaches nobody; recovery rho = 0.5 then ages the four filtered beliefs: s = 0.5, E = 1/2.5 = 0.4.
    const store = memoryStore();
    const sink = createStoreTraceSink({ store, runId: 'r', mode: 'buffered', method: 'raps' });
    const agents = [
      createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'B', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'C', answer: '9', distrusts: ['A', 'B'] }),
    ];
    await runRaps({
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      subscriptions: { A: 'arithmetic answers', B: 'arithmetic answers', C: 'arithmetic answers' },
      tasks: [{ id: 't1', kind: 'number', prompt: 'What is 2 + 2?' }],
      topK: 2,
      floor: -1,
      maxRounds: 2,
      doneQuorum: 1,
      refine: false,
      witness: false,
      recovery: 0.5,
      trace: sink,
    });
    // Buffered mode hands a task's spans over by task id: every RAPS span must carry it.
    const taken = sink.take({ taskId: 't1' });
    expect(sink.pending()).toEqual([]);
    store.appendEvents('r', taken);

    const routes = store.events('r', { type: 'route', taskId: 't1' }).map((event) => event.data as RouteSpan);
    expect(routes).toHaveLength(6);
    const starved = routes.find((route) => route.round === 1 && route.publisher === 'C');
    expect(starved).toMatchObject({
      taskId: 't1',
      recipients: [],
      distrusted: ['A', 'B'],
      distrustReasons: [
        { agentId: 'A', weight: 0, components: { trust: expect.closeTo(1 / 3, 12) } },
        { agentId: 'B', weight: 0, components: { trust: expect.closeTo(1 / 3, 12) } },
      ],
      belowFloor: 0,
      broadcast: 2,
    });
    expect(store.events('r', { type: 'audit', taskId: 't1' })).toHaveLength(8);
    const recoveries = store.events('r', { type: 'recovery', taskId: 't1' }).map((event) => event.data as RecoverySpan);
    expect(recoveries.map((span) => `${span.receiver}>${span.publisher}`)).toEqual(['C>A', 'C>B', 'A>C', 'B>C']);
    expect(recoveries[0]).toMatchObject({
      round: 1,
      rho: 0.5,
      beliefBefore: expect.closeTo(1 / 3, 12),
      beliefAfter: expect.closeTo(0.4, 12),
    });
  });

  it('still reads route events recorded before distrustReasons and belowFloor existed', () => {
    const store = memoryStore();
    // As an older Repute wrote it: no distrustReasons, no belowFloor.
    const old: RouteSpan = {
      type: 'route',
      taskId: 't0',
      round: 0,
      publisher: 'C',
      messageId: 't0:0:C',
      recipients: [],
      reasons: [],
      distrusted: ['A'],
      broadcast: 2,
    };
    store.appendEvents('r', [old]);
    const tracer = createTracer({ sink: createStoreTraceSink({ store, runId: 'r' }) });
    tracer.record({ ...old, taskId: 't1', distrustReasons: [], belowFloor: 1 });
    const [before, after] = store.events('r', { type: 'route' }).map((event) => event.data as RouteSpan);
    expect(before).toEqual(old);
    expect(before?.belowFloor).toBeUndefined();
    expect(after).toMatchObject({ taskId: 't1', belowFloor: 1, distrustReasons: [] });
  });
});
