import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createHashedNgramEmbedder } from '../../embeddings/hashed-ngram.js';
import { cosineDistance } from '../../embeddings/vector.js';
import { createInProcessBus } from '../../transport/in-process-bus.js';
import { encodeWire, RapsWireError, rapsSubjects } from './wire.js';
import { createScriptedAgent } from './_test-agents.js';
import type { RapsEvent } from './events.js';
import { startRapsNode } from './node.js';
import { runRaps, type RunRapsOptions } from './run-raps.js';

const task: Task = { id: 't1', kind: 'number', prompt: 'What is 2 + 2?' };

function team() {
  return [
    createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'] }),
    createScriptedAgent({ id: 'B', answer: '4', distrusts: ['C'] }),
    createScriptedAgent({ id: 'C', answer: '9', distrusts: ['A', 'B'] }),
  ];
}

function options(agents: ReturnType<typeof team>, extra: Partial<RunRapsOptions> = {}): RunRapsOptions {
  return {
    agents: agents.map((agent) => agent.identity),
    hostAgents: agents,
    subscriptions: { A: 'arithmetic answers', B: 'arithmetic answers', C: 'arithmetic answers' },
    tasks: [task],
    topK: 2,
    floor: -1,
    maxRounds: 2,
    doneQuorum: 1,
    refine: false,
    witness: false,
    ...extra,
  };
}

describe('runRaps', () => {
  it('applies audits, filters distrusted publishers and decides from agents above tau (hand-computed)', async () => {
    const events: RapsEvent[] = [];
    const result = await runRaps(options(team(), { onEvent: (event) => events.push(event) }));
    // Round 0: prior E = 1/2 >= tau, so all 6 deliveries happen. A, B find C unreliable; C finds A, B unreliable.
    // Round 1: E_C[A] = E_C[B] = 1/3 < 0.4 and E_A[C] = E_B[C] = 1/3: only A -> B and B -> A remain.
    expect(result.rounds.map((round) => [round.routed, round.broadcast, round.audits])).toEqual([
      [6, 6, 6],
      [2, 6, 2],
    ]);
    // A about B: r = 1 then 0.9 * 1 + 1 = 1.9 -> E = 2.9 / 3.9; A about C: s = 1 -> E = 1/3 (no new evidence).
    expect(result.beliefs.A?.B).toBeCloseTo(2.9 / 3.9, 12);
    expect(result.beliefs.A?.C).toBeCloseTo(1 / 3, 12);
    expect(result.beliefs.C?.A).toBeCloseTo(1 / 3, 12);
    // rep(C) = (1/3 + 1/3) / 2 = 1/3 < 0.4: C is not eligible; A and B agree on 4.
    expect(result.finalReputation.C).toBeCloseTo(1 / 3, 12);
    expect(result.finalReputation.A).toBeCloseTo((2.9 / 3.9 + 1 / 3) / 2, 12);
    expect(result.decisions).toMatchObject([{ taskId: 't1', answer: '4', eligible: ['A', 'B'], rounds: 2 }]);
    const round1Routes = events.filter(
      (event): event is Extract<RapsEvent, { type: 'route' }> => event.type === 'route' && event.round === 1,
    );
    expect(round1Routes.find((event) => event.publisher === 'C')).toMatchObject({
      recipients: [],
      distrusted: ['A', 'B'],
    });
    expect(round1Routes.find((event) => event.publisher === 'A')?.reasons[0]?.components).toMatchObject({
      trust: expect.closeTo(2 / 3, 12),
    });
  });

  it('stops at the round limit when the DONE quorum is never reached', async () => {
    // Round 0 never says DONE, so with maxRounds 1 the task ends after one round.
    const result = await runRaps(options(team(), { maxRounds: 1 }));
    expect(result.decisions[0]?.rounds).toBe(1);
    expect(result.rounds[0]?.done).toBe(0);
  });

  it('lets the decider own the decision when adversaries are the majority', async () => {
    const agents = [
      createScriptedAgent({ id: 'A', answer: '4', distrusts: ['B', 'C'] }),
      createScriptedAgent({ id: 'B', answer: '9', distrusts: ['A'] }),
      createScriptedAgent({ id: 'C', answer: '9', distrusts: ['A'] }),
    ];
    const teamView = await runRaps(options(agents as ReturnType<typeof team>));
    const deciderView = await runRaps(options(agents as ReturnType<typeof team>, { decider: 'A' }));
    expect(teamView.decisions[0]?.answer).toBe('9');
    expect(deciderView.decisions[0]).toMatchObject({ answer: '4', eligible: ['A'] });
    expect(deciderView.rounds[0]?.deciderView).toMatchObject({ A: 1, B: expect.closeTo(1 / 3, 12) });
  });

  it('logs subscription drift as the cosine distance between old and new embeddings', async () => {
    const agents = team().map((agent, index) =>
      index === 0 ? createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'], refineWord: 'geometry' }) : agent,
    );
    const events: RapsEvent[] = [];
    const result = await runRaps(
      options(agents, { refine: true, maxRounds: 1, onEvent: (event) => events.push(event) }),
    );
    const refine = events.filter((event): event is Extract<RapsEvent, { type: 'refine' }> => event.type === 'refine');
    expect(refine.map((event) => event.agentId)).toEqual(['A']);
    const embedder = createHashedNgramEmbedder();
    const expected = cosineDistance(
      embedder.embedSync('arithmetic answers'),
      embedder.embedSync('arithmetic answers geometry'),
    );
    expect(expected).toBeGreaterThan(0.05);
    expect(refine[0]?.drift).toBeCloseTo(expected, 6);
    expect(result.subscriptions.A).toBe('arithmetic answers geometry');
    const off = await runRaps(options(team(), { refine: false, maxRounds: 1 }));
    expect(off.totals.refinements).toBe(0);
  });

  it('delivers each publication at most once to a handler and keeps the outcome under lost acks (property)', async () => {
    const clean = await runRaps(options(team()));
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.double({ min: 0, max: 0.6, noNaN: true }), async (seed, lostAckRate) => {
        const agents = team();
        const result = await runRaps(
          options(agents, {
            transport: createInProcessBus({ lostAckRate, rng: createRng(seed), redeliveryDelayMs: 0 }),
          }),
        );
        for (const agent of agents) expect(new Set(agent.audited).size).toBe(agent.audited.length);
        expect(result.decisions).toEqual(clean.decisions);
        expect(result.beliefs).toEqual(clean.beliefs);
        for (const round of result.rounds) expect(round.routed).toBeLessThanOrEqual(round.broadcast);
      }),
      { numRuns: 15 },
    );
  });

  it('rejects and counts malformed wire messages without failing the run', async () => {
    const bus = createInProcessBus();
    const subjects = rapsSubjects('raps');
    const encoder = new TextEncoder();
    await bus.publish(subjects.publications, encoder.encode('{not json'), { id: 'garbage-1' });
    await bus.publish(subjects.publications, encodeWire({ schemaVersion: 2, id: 'x', from: 'A', round: 0, text: '' }), {
      id: 'garbage-2',
    });
    await bus.publish(subjects.reports, encodeWire({ schemaVersion: 2, kind: 'audited', commandId: 'c' }), {
      id: 'garbage-3',
    });
    const events: RapsEvent[] = [];
    const result = await runRaps(options(team(), { transport: bus, onEvent: (event) => events.push(event) }));
    expect(result.totals.malformed).toBe(3);
    expect(result.decisions[0]?.answer).toBe('4');
    const errors = events
      .filter((event): event is Extract<RapsEvent, { type: 'malformed' }> => event.type === 'malformed')
      .map((event) => event.error);
    expect(errors[0]).toMatch(/raps.raps.pub: message garbage-1 is not UTF-8 JSON/);
    expect(errors[1]).toMatch(
      /message garbage-2 rejected: field schemaVersion.*\(schemaVersion 2; only 1 is understood\)/,
    );
    expect(errors[2]).toMatch(/message garbage-3 rejected: field/);
  });

  it('stops at once with a TransportError naming schemaVersion when an agent process sends reports of another version', async () => {
    const bus = createInProcessBus();
    const subjects = rapsSubjects('raps');
    // C runs "elsewhere" on an older build: it answers every command with a schemaVersion 1 report.
    await bus.subscribe(
      subjects.commands('C'),
      async (delivery) => {
        const command = JSON.parse(new TextDecoder().decode(delivery.data)) as { id: string };
        await bus.publish(
          subjects.reports,
          encodeWire({ schemaVersion: 1, kind: 'failed', commandId: command.id, agentId: 'C', error: 'C: HTTP 429' }),
          { id: `report:${command.id}` },
        );
      },
      { durable: 'old-node-C' },
    );
    const agents = team();
    // The default reply timeout is 120 s: the run must not wait for it (the test would time out first).
    const running = runRaps({ ...options(agents), hostAgents: agents.slice(0, 2), transport: bus });
    await expect(running).rejects.toThrow(RapsWireError);
    await expect(running).rejects.toMatchObject({ code: 'transport', field: 'schemaVersion', value: 1 });
    await expect(running).rejects.toThrow(
      /has schemaVersion 1, but this coordinator reads RAPS reports of schemaVersion 2/,
    );
  });

  it('loses nothing when an agent node crashes mid-command and a new one takes over', async () => {
    const clean = await runRaps(options(team()));
    const bus = createInProcessBus();
    let release: () => void = () => {};
    let crashed = false;
    const stalls = new Promise<void>((resolve) => (release = resolve));
    const agents = team();
    const crashy = createScriptedAgent({
      id: 'B',
      answer: '4',
      distrusts: ['C'],
      onAudit: async () => {
        if (!crashed) {
          crashed = true;
          await stalls; // the process "dies" while handling its first delivery
        }
      },
    });
    const first = await startRapsNode({ transport: bus, runId: 'raps', agent: crashy });
    const others = await Promise.all(
      [agents[0]!, agents[2]!].map((agent) => startRapsNode({ transport: bus, runId: 'raps', agent })),
    );
    const running = runRaps({ ...options(agents), hostAgents: [], transport: bus });
    while (!crashed) await new Promise((resolve) => setTimeout(resolve, 5));
    await first.stop();
    const restarted = await startRapsNode({
      transport: bus,
      runId: 'raps',
      agent: createScriptedAgent({ id: 'B', answer: '4', distrusts: ['C'] }),
    });
    const result = await running;
    release();
    expect(result.decisions).toEqual(clean.decisions);
    expect(result.beliefs).toEqual(clean.beliefs);
    expect(restarted.stats.handled).toBeGreaterThan(0);
    for (const node of [restarted, ...others]) await node.stop();
  });

  it('refuses a missing subscription, an unknown decider and a bad run id', async () => {
    await expect(runRaps({ ...options(team()), subscriptions: { A: 'x', B: 'y' } })).rejects.toThrow(
      /subscriptions.C is missing/,
    );
    await expect(runRaps(options(team(), { decider: 'Z' }))).rejects.toThrow(/decider "Z" is not one of the agents/);
    await expect(runRaps(options(team(), { runId: 'a.b' }))).rejects.toThrow(/runId may only contain/);
  });

  it('refuses two agent ids that share a command subject token (a.b and a_b), naming both', async () => {
    const agents = [
      createScriptedAgent({ id: 'a.b', answer: '4' }),
      createScriptedAgent({ id: 'a_b', answer: '4' }),
      createScriptedAgent({ id: 'C', answer: '4' }),
    ];
    const subscriptions = { 'a.b': 'arithmetic answers', a_b: 'arithmetic answers', C: 'arithmetic answers' };
    await expect(runRaps({ ...options(agents), subscriptions })).rejects.toMatchObject({
      parameter: 'agents[1].id',
      message: expect.stringMatching(/agent ids "a\.b" and "a_b" map to the same message subject token "a_b"/),
    });
  });

  it('lets a receiver revise only on publishers it still trusts with attention: trusted (ours)', async () => {
    const heard: Record<string, string[][]> = { A: [], B: [], C: [] };
    const recording = team().map((agent) => ({
      ...agent,
      revise: async (request: Parameters<typeof agent.revise>[0]) => {
        heard[agent.identity.id]?.push(request.peers.map((peer) => peer.agentId));
        return agent.revise(request);
      },
    }));
    // Round 0: all six deliveries; A and B audit C unreliable (E = 1/3 < 0.4), C audits A and B unreliable.
    // Round 1 revise with 'trusted': A hears only B, B only A, C nobody; with 'all': everything delivered in round 0.
    await runRaps(options(recording, { attention: 'trusted' }));
    expect(heard).toEqual({ A: [['B']], B: [['A']], C: [[]] });
    for (const key of Object.keys(heard)) heard[key] = [];
    await runRaps(options(recording));
    expect(heard).toEqual({ A: [['B', 'C']], B: [['A', 'C']], C: [['A', 'B']] });
  });

  it('refuses unknown attention and teamView values', async () => {
    await expect(runRaps(options(team(), { attention: 'some' as never }))).rejects.toThrow(
      /attention must be 'all' or 'trusted'/,
    );
    await expect(runRaps(options(team(), { teamView: 'x' as never }))).rejects.toThrow(
      /teamView must be 'all' or 'informed'/,
    );
  });

  it('ages filtered-away beliefs towards the prior with recovery rho, so the publisher is re-tested (ours)', async () => {
    const second: Task = { id: 't2', kind: 'number', prompt: 'What is 3 + 1?' };
    // t1 round 0: all 6 deliveries; E_A[C] = E_B[C] = E_C[A] = E_C[B] = 1/3 (s = 1). t1 round 1: only A -> B, B -> A;
    // then rho = 0.5 halves the four filtered beliefs: s = 0.5 -> E = 1 / 2.5 = 0.4 >= tau, so t2 round 0 delivers all 6.
    // There A audits C again: s = 0.9 * 0.5 + 1 = 1.45 -> E = 1 / 3.45 < tau; t2 round 1 filters C again and halves: s = 0.725.
    const recovered = await runRaps(options(team(), { tasks: [task, second], recovery: 0.5 }));
    expect(recovered.rounds.map((round) => round.routed)).toEqual([6, 2, 6, 2]);
    expect(recovered.beliefs.A?.C).toBeCloseTo(1 / 2.725, 12);
    // Without recovery (the RAPS base) the filter is permanent: E_A[C] stays 1/3.
    const plain = await runRaps(options(team(), { tasks: [task, second] }));
    expect(plain.rounds.map((round) => round.routed)).toEqual([6, 2, 2, 2]);
    expect(plain.beliefs.A?.C).toBeCloseTo(1 / 3, 12);
    await expect(runRaps(options(team(), { recovery: 2 }))).rejects.toThrow(/recovery/);
  });

  it('gives coverage slots to the subscriber with the least evidence about the publisher (ours)', async () => {
    const agents = ['A', 'B', 'C', 'D'].map((id) => createScriptedAgent({ id, answer: '4' }));
    const events: RapsEvent[] = [];
    await runRaps({
      ...options(agents as ReturnType<typeof team>),
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      // B's intent repeats A's publication text; C shares some words; D none.
      subscriptions: { A: 'anything', B: 'A says the answer is 4', C: 'the answer is', D: 'zebra quokka xylophone' },
      topK: 2,
      coverageSlots: 1,
      onEvent: (event) => events.push(event),
    });
    const routesOfA = events.filter(
      (event): event is Extract<RapsEvent, { type: 'route' }> => event.type === 'route' && event.publisher === 'A',
    );
    // Round 0: similarity slot -> B; coverage: C and D both hold 0 evidence about A, C is more similar -> C.
    // Round 1: B and C each audited A once (r + s = 1), D holds 0 -> the coverage slot goes to D.
    expect(routesOfA.map((event) => event.recipients)).toEqual([
      ['B', 'C'],
      ['B', 'D'],
    ]);
    expect(routesOfA[1]?.reasons[1]?.components).toMatchObject({ evidence: 0 });
    await expect(runRaps(options(team(), { topK: 2, coverageSlots: 2 }))).rejects.toThrow(/coverageSlots/);
    await expect(
      runRaps(options(team(), { topK: 2, coverageSlots: 1, routeSelector: async () => [] })),
    ).rejects.toThrow(/cannot be combined with a routeSelector/);
  });
});
