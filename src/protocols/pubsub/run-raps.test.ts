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
import { type RapsCarriedState, runRaps, type RunRapsOptions } from './run-raps.js';

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
      // Why C reached nobody: both receivers' trust in C is 1/3 < 0.4 (floor -1: nobody below it).
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
    expect(round1Routes.find((event) => event.publisher === 'A')?.reasons[0]?.components).toMatchObject({
      trust: expect.closeTo(2 / 3, 12),
    });
  });

  it('says in the route event why a publication reached nobody: below the floor, or no other subscriber', async () => {
    // floor 0.99: the publications ("A says the answer is 4") are far from "arithmetic answers", so every
    // publication has 0 recipients and both other subscribers are below the floor.
    const events: RapsEvent[] = [];
    await runRaps(options(team(), { floor: 0.99, maxRounds: 1, onEvent: (event) => events.push(event) }));
    const routes = events.filter((event): event is Extract<RapsEvent, { type: 'route' }> => event.type === 'route');
    expect(routes.map((event) => [event.publisher, event.recipients, event.belowFloor, event.distrusted])).toEqual([
      ['A', [], 2, []],
      ['B', [], 2, []],
      ['C', [], 2, []],
    ]);
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
    const events: RapsEvent[] = [];
    const recovered = await runRaps(
      options(team(), { tasks: [task, second], recovery: 0.5, onEvent: (event) => events.push(event) }),
    );
    expect(recovered.rounds.map((round) => round.routed)).toEqual([6, 2, 6, 2]);
    // Each halving is reported: in t1 round 1, E = 1/3 -> 1 / 2.5 = 0.4 for the four filtered beliefs
    // (receiver>publisher, publications in roster order: A's kept from C, B's from C, C's from A and B).
    const recoveries = events.filter(
      (event): event is Extract<RapsEvent, { type: 'recovery' }> => event.type === 'recovery',
    );
    expect(recoveries.filter((event) => event.taskId === 't1')).toEqual(
      ['C>A', 'C>B', 'A>C', 'B>C'].map((pair) => ({
        schemaVersion: 1,
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

  describe('replies that do not match their command', () => {
    // C runs "elsewhere": a node that answers its commands with forged replies. A and B are hosted.
    const forgingNode = async (
      bus: ReturnType<typeof createInProcessBus>,
      forge: { from?: string; auditor?: string; subject?: string },
    ) => {
      const subjects = rapsSubjects('raps');
      await bus.subscribe(
        subjects.commands('C'),
        async (delivery) => {
          const command = JSON.parse(new TextDecoder().decode(delivery.data));
          if (command.kind === 'publish')
            await bus.publish(
              subjects.publications,
              encodeWire({
                schemaVersion: 1,
                id: `t1:${command.round}:C`,
                from: forge.from ?? 'C',
                round: command.round,
                taskId: 't1',
                text: `${forge.from ?? 'C'} says the answer is 9`,
                answer: '9',
              }),
              { id: `pub:${command.id}` },
            );
          else if (command.kind === 'deliver')
            await bus.publish(
              subjects.reports,
              encodeWire({
                schemaVersion: 2,
                kind: 'audited',
                commandId: command.id,
                agentId: forge.auditor ?? 'C',
                messageId: command.message.id,
                subject: forge.subject ?? command.message.from,
                reliable: false,
                reason: 'forged',
              }),
              { id: `report:${command.id}` },
            );
        },
        { durable: 'forging-node-C' },
      );
    };
    const run = async (forge: Parameters<typeof forgingNode>[1]) => {
      const bus = createInProcessBus();
      await forgingNode(bus, forge);
      const agents = team();
      const events: RapsEvent[] = [];
      const result = await runRaps({
        ...options(agents),
        hostAgents: agents.slice(0, 2),
        transport: bus,
        onEvent: (event) => events.push(event),
      });
      const errors = events
        .filter((event): event is Extract<RapsEvent, { type: 'agent-error' }> => event.type === 'agent-error')
        .map((event) => `${event.round} ${event.agentId}: ${event.error}`);
      const publishers = events.flatMap((event) => (event.type === 'route' ? [event.publisher] : []));
      return { result, errors, publishers };
    };

    it("refuses a publication in another agent's name, so nobody can be slandered by impersonation", async () => {
      // C answers its publish command with a message "from A" saying 9. Refused: C publishes nothing.
      // Only A and B publish; A -> B, C and B -> A, C (top-2, floor -1). B audits A reliable twice:
      // r = 1, then 0.9 * 1 + 1 = 1.9 -> E_B[A] = 2.9 / 3.9. A never hears C: E_A[C] = 1/2 (the prior).
      const { result, errors, publishers } = await run({ from: 'A' });
      expect(errors).toEqual([
        expect.stringMatching(/^0 C: publication t1:0:C claims to be from "A"; an agent publishes only as itself/),
        expect.stringMatching(/^1 C: publication t1:1:C claims to be from "A"/),
      ]);
      expect(publishers).toEqual(['A', 'B', 'A', 'B']);
      expect(result.beliefs.B?.A).toBeCloseTo(2.9 / 3.9, 12);
      expect(result.beliefs.A?.C).toBeCloseTo(1 / 2, 12);
      expect(result.decisions[0]?.answers).toEqual({ A: '4', B: '4', C: null });
      expect(result.totals.publications).toBe(4);
    });

    it("refuses an audit report naming another auditor, so no agent writes into another's watchdog", async () => {
      // C reports its audits as if A had made them, about B (or as an agent outside the team, which used to
      // crash the run). Refused: A's belief about B comes from A's own audits only, r = 1.9 -> 2.9 / 3.9;
      // C's audits are lost, so C keeps hearing A and B (E_C = 1/2).
      for (const auditor of ['A', 'Z']) {
        const { result, errors } = await run({ auditor, subject: 'B' });
        expect(result.beliefs.A?.B, auditor).toBeCloseTo(2.9 / 3.9, 12);
        expect(result.beliefs.C?.A, auditor).toBeCloseTo(1 / 2, 12);
        expect(errors[0], auditor).toMatch(
          new RegExp(`^0 C: audit report for .* names auditor "${auditor}" and subject "B"; expected auditor "C"`),
        );
        // 2 deliveries to C per round (A's and B's publications), 2 rounds.
        expect(errors, auditor).toHaveLength(4);
      }
    });

    it('refuses an audit report about another subject than the delivered message', async () => {
      // C is delivered A's and B's publications and reports every verdict (unreliable) as one about B. The
      // verdict on B's message stands: E_C[B] = 1 / (2 + 1) = 1/3, so round 1 no longer routes B to C. The one
      // on A's message (rounds 0 and 1) is refused: E_C[A] stays 1/2, no second verdict lands on B.
      const { result, errors } = await run({ subject: 'B' });
      expect(errors).toEqual([
        expect.stringMatching(
          /^0 C: audit report for message t1:0:A names auditor "C" and subject "B"; expected auditor "C" and subject "A" of the delivered message t1:0:A/,
        ),
        expect.stringMatching(/^1 C: audit report for message t1:1:A names auditor "C" and subject "B"/),
      ]);
      expect(result.beliefs.C?.B).toBeCloseTo(1 / 3, 12);
      expect(result.beliefs.C?.A).toBeCloseTo(1 / 2, 12);
    });
  });

  const stateAfterOneTask = async (): Promise<RapsCarriedState> => {
    let saved: RapsCarriedState | undefined;
    await runRaps(
      options(team(), {
        onTaskDone: ({ state }) => {
          saved = state;
        },
      }),
    );
    if (saved === undefined) throw new Error('runRaps finished no task');
    return saved;
  };

  it("keeps the run's beta options when it resumes from a state saved with other ones", async () => {
    const saved = await stateAfterOneTask();
    // After t1 (τ = 0.4, λ = 0.9): E_A[C] = E_B[C] = E_C[A] = E_C[B] = 1 / (2 + 1) = 1/3 (s = 1). Resumed with
    // τ = 0.2 and λ = 0.5: 1/3 >= 0.2, so t2 round 0 delivers all 6; A audits C unreliable: s = 0.5 * 1 + 1 = 1.5,
    // E = 1 / 3.5 >= 0.2; round 1 again: s = 0.5 * 1.5 + 1 = 1.75 -> E_A[C] = 1 / 3.75. The snapshot's τ = 0.4
    // would have routed 2 (only A <-> B), and its λ = 0.9 would give s = 0.9 * 1.9 + 1 = 2.71 had C been routed.
    const second: Task = { id: 't2', kind: 'number', prompt: 'What is 3 + 1?' };
    const resumed = await runRaps(
      options(team(), { tasks: [second], initialState: saved, beta: { tau: 0.2, lambda: 0.5 } }),
    );
    expect(resumed.rounds.map((round) => round.routed)).toEqual([6, 6]);
    expect(resumed.beliefs.A?.C).toBeCloseTo(1 / 3.75, 12);
  });

  it('refuses a saved state of another team before any message is sent', async () => {
    const saved = await stateAfterOneTask();
    const agents = [
      createScriptedAgent({ id: 'A', answer: '4' }),
      createScriptedAgent({ id: 'B', answer: '4' }),
      createScriptedAgent({ id: 'D', answer: '4' }),
    ];
    const published: string[] = [];
    await expect(
      runRaps({
        ...options(agents as ReturnType<typeof team>),
        subscriptions: { A: 'x', B: 'y', D: 'z' },
        initialState: saved,
        onEvent: (event) => {
          if (event.type === 'publish') published.push(event.agentId);
        },
      }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
      parameter: 'initialState.beliefs.agents',
      message: expect.stringMatching(/saved for agents A, B, C, not for this team \(A, B, D\)/),
    });
    expect(published).toEqual([]);
  });

  it('merges witness reports only about subjects the observer audited itself with witnessSubjectMinDirectEvidence (ours)', async () => {
    // Round 0 of team(): everyone hears everyone, so each observer audits each peer once (r + s = 1). Round 0's
    // witness step then has reports about the third agent from both others, e.g. A hears B about C.
    const base = await runRaps(options(team(), { witness: true }));
    expect(base.totals.witnessChecks).toBeGreaterThan(0);
    // m = 1: every report is about a subject the observer audited once (r + s = 1 >= 1): nothing is withheld.
    const one = await runRaps(options(team(), { witness: true, witnessSubjectMinDirectEvidence: 1 }));
    expect(one.totals.witnessChecks).toBe(base.totals.witnessChecks);
    expect(one.beliefs).toEqual(base.beliefs);
    // m = 3: two rounds give at most 1 + 0.9 = 1.9 verdicts about anyone, so no report is merged.
    const three = await runRaps(options(team(), { witness: true, witnessSubjectMinDirectEvidence: 3 }));
    expect(three.totals.witnessChecks).toBe(0);
    expect(three.beliefs).toEqual((await runRaps(options(team(), { witness: false }))).beliefs);
  });

  it('refuses bad witness options and blank subscriptions, naming the field', async () => {
    const cases: Array<[Partial<RunRapsOptions>, string, RegExp]> = [
      [{ maxWitnesses: -1 }, 'maxWitnesses', /maxWitnesses must be an integer in \[0, /],
      [{ maxWitnesses: Number.NaN }, 'maxWitnesses', /got NaN/],
      [{ maxWitnesses: 1.5 }, 'maxWitnesses', /got 1.5/],
      [{ witnessMinDirectEvidence: -2 }, 'witnessMinDirectEvidence', /must be a finite number >= 0, got -2/],
      // A string is truthy: 'false' from a config file would have switched the step on.
      [{ witness: 'false' as never }, 'witness', /witness must be true or false, got "false"/],
      [{ refine: 'no' as never }, 'refine', /refine must be true or false, got "no"/],
      // NaN (e.g. Number('abc')) would seed every probation draw with the same string 'NaN'.
      [{ seed: Number.NaN }, 'seed', /seed must be a finite number, got NaN/],
      [
        { witnessSubjectMinDirectEvidence: Number.NaN },
        'witnessSubjectMinDirectEvidence',
        /must be a finite number >= 0, got NaN/,
      ],
      [{ witnessBehaviour: { Z: 'inverted' } }, 'witnessBehaviour.Z', /"Z" is not one of the agents \(A, B, C\)/],
      [
        { witnessBehaviour: { A: 'liar' as never } },
        'witnessBehaviour.A',
        /must be 'honest' or 'inverted', got "liar"/,
      ],
      [
        { subscriptions: { A: ' ', B: 'x', C: 'y' } },
        'subscriptions.A',
        /subscriptions.A is blank; declare what the agent wants to hear/,
      ],
    ];
    for (const [extra, parameter, message] of cases)
      await expect(runRaps(options(team(), extra)), parameter).rejects.toMatchObject({
        code: 'invalid_argument',
        parameter,
        message: expect.stringMatching(message),
      });
  });

  it('continues bit-identically from the state saved after a task, with every option that carries state on', async () => {
    // Four agents, refinement, witnesses, recovery, a coverage slot and seeded probation: the run over
    // t2, t3 resumed from the state after t1 must give the same decisions, rounds, beliefs and events.
    const tasks: Task[] = ['t1', 't2', 't3'].map((id) => ({ id, kind: 'number', prompt: `What is ${id}?` }));
    const build = (extra: Partial<RunRapsOptions>): RunRapsOptions => {
      const agents = [
        createScriptedAgent({ id: 'A', answer: '4', distrusts: ['D'], refineWord: 'alpha' }),
        createScriptedAgent({ id: 'B', answer: '4', distrusts: ['D'], refineWord: 'beta' }),
        createScriptedAgent({ id: 'C', answer: '4' }),
        createScriptedAgent({ id: 'D', answer: '9', distrusts: ['A', 'B'] }),
      ];
      return {
        agents: agents.map((agent) => agent.identity),
        hostAgents: agents,
        subscriptions: { A: 'arithmetic answers', B: 'arithmetic sums', C: 'numbers', D: 'arithmetic answers' },
        tasks,
        topK: 2,
        coverageSlots: 1,
        floor: -1,
        maxRounds: 3,
        doneQuorum: 1,
        recovery: 0.8,
        probation: 0.3,
        seed: 5,
        ...extra,
      };
    };
    const states: RapsCarriedState[] = [];
    const fullEvents: RapsEvent[] = [];
    const full = await runRaps(
      build({
        onEvent: (event) => fullEvents.push(event),
        // Through JSON, as a session stores it.
        onTaskDone: ({ state }) => states.push(JSON.parse(JSON.stringify(state)) as RapsCarriedState),
      }),
    );
    const [afterFirst] = states;
    if (afterFirst === undefined) throw new Error('no state after t1');
    const resumedEvents: RapsEvent[] = [];
    const resumed = await runRaps(
      build({ tasks: tasks.slice(1), initialState: afterFirst, onEvent: (event) => resumedEvents.push(event) }),
    );
    expect(full.totals.refinements).toBeGreaterThan(0);
    expect(full.totals.witnessChecks).toBeGreaterThan(0);
    expect(fullEvents.some((event) => event.type === 'recovery')).toBe(true);
    expect(resumed.decisions).toEqual(full.decisions.slice(1));
    expect(resumed.rounds).toEqual(full.rounds.filter((round) => round.taskId !== 't1'));
    expect(resumed.beliefs).toEqual(full.beliefs);
    expect(resumed.subscriptions).toEqual(full.subscriptions);
    expect(resumedEvents).toEqual(fullEvents.filter((event) => !('taskId' in event) || event.taskId !== 't1'));
  });
});
