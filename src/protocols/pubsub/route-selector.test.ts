import { describe, expect, it } from 'vitest';
import type { Task } from '../../core/task.js';
import type { RapsEvent } from './events.js';
import { createPromptRouteSelector } from './route-selector.js';
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
    expect(
      events.filter((event) => event.type === 'agent-error').map((event) => (event as { error: string }).error)[0],
    ).toMatch(/route selector chose Z, not among the candidates; ignored/);
    expect(result.totals.routed).toBe(4);
  });
});
