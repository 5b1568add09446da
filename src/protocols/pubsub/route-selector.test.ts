import { describe, expect, it } from 'vitest';
import type { Task } from '../../core/task.js';
import type { RapsEvent } from './events.js';
import { createPromptRouteSelector, type RouteSelector } from './route-selector.js';
import { runRaps } from './run-raps.js';
import { createScriptedAgent } from './_test-agents.js';

describe('createPromptRouteSelector', () => {
  it('asks the generator with every candidate intent and parses the JSON id list it returns', async () => {
    const prompts: string[] = [];
    const selector = createPromptRouteSelector({
      generate: async (prompt) => {
        prompts.push(prompt);
        return 'Sure. ["b", "c", "a"] are the best.';
      },
    });
    const publication = { schemaVersion: 1 as const, id: 't:0:p', from: 'p', round: 0, text: 'SQL injection found' };
    const candidates = [
      { agentId: 'a', subscription: 'style', similarity: 0.1, trust: 0.5 },
      { agentId: 'b', subscription: 'security', similarity: 0.4, trust: 0.5 },
      { agentId: 'c', subscription: 'databases', similarity: 0.2, trust: 0.5 },
    ];
    expect(await selector({ publication, candidates, topK: 2 })).toEqual(['b', 'c']);
    expect(prompts[0]).toContain('- b: security');
    expect(prompts[0]).toContain('at most 2 subscriber ids');
    const silent = createPromptRouteSelector({ generate: async () => 'no idea' });
    expect(await silent({ publication, candidates, topK: 2 })).toEqual([]);
  });

  it('routes by the selector inside a run, only among candidates that passed floor and trust', async () => {
    const agents = ['A', 'B', 'C', 'D'].map((id) => createScriptedAgent({ id, answer: '4' }));
    const task: Task = { id: 't', kind: 'number', prompt: '2 + 2' };
    const events: RapsEvent[] = [];
    // The selector always names D first and an unknown agent Z.
    const result = await runRaps({
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      subscriptions: { A: 'numbers', B: 'numbers', C: 'numbers', D: 'numbers' },
      tasks: [task],
      topK: 1,
      floor: -1,
      maxRounds: 1,
      refine: false,
      routeSelector: async ({ publication }) => (publication.from === 'D' ? ['A'] : ['Z', 'D']),
      onEvent: (event) => events.push(event),
    });
    const routes = events.filter((event): event is Extract<RapsEvent, { type: 'route' }> => event.type === 'route');
    expect(routes.map((event) => `${event.publisher}->${event.recipients.join(',')}`)).toEqual([
      'A->D',
      'B->D',
      'C->D',
      'D->A',
    ]);
    expect(routes[0]?.reasons[0]?.note).toMatch(/^chosen by route selector/);
    // A bad choice is the selector's (the broker's configuration's) fault, not the publisher's: no agent error.
    expect(events.filter((event) => event.type === 'agent-error')).toEqual([]);
    const routeErrors = events.filter(
      (event): event is Extract<RapsEvent, { type: 'route-error' }> => event.type === 'route-error',
    );
    expect(routeErrors.map((event) => [event.publisher, event.source, event.fallback])).toEqual([
      ['A', 'route-selector', false],
      ['B', 'route-selector', false],
      ['C', 'route-selector', false],
    ]);
    expect(routeErrors[0]?.error).toMatch(/route selector chose Z, not among the candidates; ignored/);
    expect(result.totals.routed).toBe(4);
    expect(result.totals.agentErrors).toBe(0);
    expect(result.totals.routeErrors).toBe(3);
  });

  it('blames a failing route selector on the broker, not on the publisher: similarity routing, no belief changes', async () => {
    const team = () => [
      createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'B', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'C', answer: '9', distrusts: ['A', 'B'] }),
    ];
    const task: Task = { id: 't', kind: 'number', prompt: '2 + 2' };
    const run = async (routeSelector?: RouteSelector) => {
      const agents = team();
      const events: RapsEvent[] = [];
      const result = await runRaps({
        agents: agents.map((agent) => agent.identity),
        hostAgents: agents,
        subscriptions: { A: 'numbers', B: 'numbers', C: 'numbers' },
        tasks: [task],
        topK: 2,
        floor: -1,
        maxRounds: 2,
        doneQuorum: 1,
        refine: false,
        witness: false,
        ...(routeSelector === undefined ? {} : { routeSelector }),
        onEvent: (event) => events.push(event),
      });
      return { result, events };
    };
    const plain = await run();
    for (const broken of [
      async () => {
        throw new Error('selector model unreachable');
      },
      // Not a list of ids (a selector written against another contract).
      async () => 'A' as unknown as readonly string[],
    ] satisfies RouteSelector[]) {
      const { result, events } = await run(broken);
      // Each publication falls back to the broker's similarity top-k, so the run is the plain run:
      // round 0 all 6 deliveries, round 1 only A -> B and B -> A (C is below tau for both); same beliefs.
      expect(result.rounds.map((round) => round.routed)).toEqual([6, 2]);
      expect(result.beliefs).toEqual(plain.result.beliefs);
      expect(result.decisions).toEqual(plain.result.decisions);
      expect(result.totals.agentErrors).toBe(0);
      expect(events.filter((event) => event.type === 'agent-error')).toEqual([]);
      const routeErrors = events.filter(
        (event): event is Extract<RapsEvent, { type: 'route-error' }> => event.type === 'route-error',
      );
      // One per publication: 3 publishers x 2 rounds.
      expect(routeErrors).toHaveLength(6);
      expect(result.totals.routeErrors).toBe(6);
      expect(routeErrors[0]).toMatchObject({ source: 'route-selector', fallback: true, publisher: 'A', round: 0 });
    }
  });

  it('keeps probation when a route selector chooses: a distrusting receiver on probation is still a candidate', async () => {
    const agents = [
      createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'B', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'C', answer: '9', distrusts: ['A', 'B'] }),
    ];
    const offered: string[] = [];
    const result = await runRaps({
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      subscriptions: { A: 'numbers', B: 'numbers', C: 'numbers' },
      tasks: [{ id: 't', kind: 'number', prompt: '2 + 2' }],
      topK: 2,
      floor: -1,
      maxRounds: 2,
      doneQuorum: 1,
      refine: false,
      witness: false,
      // Probation 1: every distrusting receiver is re-tested, so round 1 delivers all 6 as round 0 did
      // (E_A[C] = E_B[C] = E_C[A] = E_C[B] = 1/3 < 0.4 after round 0, but each draw < 1 keeps it).
      probation: 1,
      routeSelector: async ({ publication, candidates }) => {
        offered.push(`${publication.id}:${candidates.map((candidate) => candidate.agentId).join(',')}`);
        return candidates.map((candidate) => candidate.agentId);
      },
    });
    expect(offered.filter((entry) => entry.startsWith('t:1:'))).toEqual(['t:1:A:B,C', 't:1:B:A,C', 't:1:C:A,B']);
    expect(result.rounds.map((round) => round.routed)).toEqual([6, 6]);
  });
});
