import { afterEach, describe, expect, it } from 'vitest';
import type { SpanData } from '../../core/trace.js';
import type { Task } from '../../core/task.js';
import { openStore, type Store } from '../../store/store.js';
import type { RapsCarriedState } from './raps-types.js';
import { runRapsSession } from './run-raps-session.js';
import { createScriptedAgent } from './_test-agents.js';

let stores: Store[] = [];
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
});

function memoryStore(): Store {
  const store = openStore({ path: ':memory:', now: () => 1_000 });
  stores.push(store);
  return store;
}

const tasks: Task[] = [{ id: 't1', kind: 'number', prompt: 'What is 2 + 2?' }];

function team() {
  return [
    createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'] }),
    createScriptedAgent({ id: 'B', answer: '4', distrusts: ['C'] }),
    createScriptedAgent({ id: 'C', answer: '9', distrusts: ['A', 'B'] }),
  ];
}

type RouteSpan = Extract<SpanData, { type: 'route' }>;
type RecoverySpan = Extract<SpanData, { type: 'recovery' }>;
type VoteSpan = Extract<SpanData, { type: 'vote' }>;

describe('runRapsSession', () => {
  it('stores why a peer was starved: distrustReasons and belowFloor on each route event, and every recovery', async () => {
    const store = memoryStore();
    const agents = team();
    await runRapsSession({
      store,
      runId: 'starved',
      team: 'trio',
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      tasks,
      protocol: { topK: 2, floor: -1, maxRounds: 2, doneQuorum: 1, refine: false, witness: false, recovery: 0.5 },
      seed: 1,
    });
    const routes = store.events('starved', { type: 'route', taskId: 't1' }).map((event) => event.data as RouteSpan);
    // Round 1: A and B audited C as unreliable in round 0 (s = 1, E = 1 / 3 < tau 0.4): C reaches nobody, and the
    // stored event says so with each receiver's trust; floor -1 leaves nobody below the floor.
    expect(routes.find((route) => route.round === 1 && route.publisher === 'C')).toMatchObject({
      recipients: [],
      distrusted: ['A', 'B'],
      distrustReasons: [
        {
          agentId: 'A',
          components: { trust: expect.closeTo(1 / 3, 12) },
          note: expect.stringMatching(/^filtered: trust 0.333 < tau 0.4/),
        },
        { agentId: 'B', components: { trust: expect.closeTo(1 / 3, 12) } },
      ],
      belowFloor: 0,
    });
    // Recovery rho = 0.5 halves each filtered belief after round 1: s = 0.5, E = 1 / 2.5 = 0.4.
    const recoveries = store
      .events('starved', { type: 'recovery', taskId: 't1' })
      .map((event) => event.data as RecoverySpan);
    expect(recoveries).toEqual(
      ['C>A', 'C>B', 'A>C', 'B>C'].map((pair) => ({
        type: 'recovery',
        taskId: 't1',
        round: 1,
        receiver: pair[0],
        publisher: pair[2],
        rho: 0.5,
        beliefBefore: expect.closeTo(1 / 3, 12),
        beliefAfter: expect.closeTo(0.4, 12),
      })),
    );
  });

  it('stores the number of subscribers below the floor when a publication reached nobody for that reason', async () => {
    // floor 0.99: "A says the answer is 4" is far from "arithmetic answers", so both other subscribers are below it.
    const store = memoryStore();
    const agents = team();
    await runRapsSession({
      store,
      runId: 'floor',
      team: 'trio',
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      tasks,
      protocol: { topK: 2, floor: 0.99, maxRounds: 1, refine: false, witness: false },
      seed: 1,
    });
    const routes = store.events('floor', { type: 'route' }).map((event) => event.data as RouteSpan);
    expect(routes.map((route) => [route.publisher, route.recipients, route.belowFloor, route.distrustReasons])).toEqual(
      [
        ['A', [], 2, []],
        ['B', [], 2, []],
        ['C', [], 2, []],
      ],
    );
  });

  it('does not store "peer reputation >= tau" for agents that count only because nobody reached tau', async () => {
    // A and B judge each other unreliable: after round 0, E_A[B] = E_B[A] = 1 / 3 (s = 1); round 1 routes nothing
    // (both below tau 0.4), so rep(A) = rep(B) = 1/3 and nobody is eligible: both publishers count as a fallback.
    const store = memoryStore();
    const agents = [
      createScriptedAgent({ id: 'A', answer: '4', distrusts: ['B'] }),
      createScriptedAgent({ id: 'B', answer: '4', distrusts: ['A'] }),
    ];
    const { records } = await runRapsSession({
      store,
      runId: 'none-trusted',
      team: 'duo',
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      tasks,
      protocol: {
        topK: 1,
        floor: -1,
        maxRounds: 2,
        doneQuorum: 1,
        refine: false,
        witness: false,
        subscriptions: { A: 'numbers', B: 'numbers' },
      },
      seed: 1,
    });
    expect(records[0]?.reputation).toEqual({ A: expect.closeTo(1 / 3, 12), B: expect.closeTo(1 / 3, 12) });
    expect(records[0]?.eligible).toEqual(['A', 'B']);
    const [vote] = store.events('none-trusted', { type: 'vote' }).map((event) => event.data as VoteSpan);
    expect(vote?.reasons.map((reason) => [reason.agentId, reason.weight, reason.note])).toEqual([
      [
        'A',
        expect.closeTo(1 / 3, 12),
        'no agent reached tau 0.4: every publisher counts, weighted by its peer reputation',
      ],
      [
        'B',
        expect.closeTo(1 / 3, 12),
        'no agent reached tau 0.4: every publisher counts, weighted by its peer reputation',
      ],
    ]);
  });

  it("continues a team's beliefs in a new run without re-merging witness reports the observers already took", async () => {
    // Witnesses repeat a report to an observer only after new evidence. A new run of the same team starts
    // from the team's saved beliefs; it must also know which reports were already merged, or round 0
    // merges every unchanged report a second time (s += omega * s_w again). With refine off the
    // subscriptions do not change, so two runs of one task each must end where one run of both tasks does.
    const second: Task = { id: 't2', kind: 'number', prompt: 'What is 3 + 1?' };
    const quartet = () => [
      createScriptedAgent({ id: 'A', answer: '4', distrusts: ['D'] }),
      createScriptedAgent({ id: 'B', answer: '4', distrusts: ['D'] }),
      createScriptedAgent({ id: 'C', answer: '4' }),
      createScriptedAgent({ id: 'D', answer: '9', distrusts: ['A', 'B'] }),
    ];
    const protocol = {
      topK: 2,
      floor: -1,
      maxRounds: 2,
      doneQuorum: 1,
      refine: false,
      subscriptions: { A: 'sums', B: 'sums', C: 'sums', D: 'sums' },
    };
    const run = async (store: Store, runId: string, runTasks: readonly Task[]) => {
      const agents = quartet();
      return runRapsSession({
        store,
        runId,
        team: 'quartet',
        agents: agents.map((agent) => agent.identity),
        hostAgents: agents,
        tasks: runTasks,
        protocol,
        seed: 1,
      });
    };
    const whole = await run(memoryStore(), 'whole', [tasks[0] as Task, second]);
    const split = memoryStore();
    await run(split, 'first', [tasks[0] as Task]);
    const later = await run(split, 'second', [second]);
    const counts = (state: RapsCarriedState | undefined) => state?.beliefs.state;
    expect(whole.result?.totals.witnessChecks).toBeGreaterThan(0);
    // C never hears D (its top-2 goes to others); A and B each audited D once as unreliable (s = 1) and report
    // it once: s_C[D] = 0.3 * 1 + 0.3 * 1 = 0.6 (the second run merging them again would make it 1.2).
    // E_C[D] = 1 / (2 + 0.6) = 1 / 2.6 (with 1.2: 1 / 3.2).
    expect(whole.result?.beliefs.C?.D).toBeCloseTo(1 / 2.6, 12);
    expect(later.result?.beliefs.C?.D).toBeCloseTo(1 / 2.6, 12);
    expect(counts(later.records.at(-1)?.state)).toEqual(counts(whole.records.at(-1)?.state));
    expect(later.records.at(-1)?.state.reported).toEqual(whole.records.at(-1)?.state.reported);
  });
});
