import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import { createMiniRepModel } from '../reputation/minirep.js';
import { createMiniRepAggregator } from './minirep-aggregator.js';
import { createPeerHistory, peerAgreement } from './minirep-peer-history.js';

describe('peerAgreement', () => {
  it('scores agreement with the plurality of the other clone groups, by hand', () => {
    // a: others B {1: 1}, C {2: 1} → two answers tied → 1/2; b likewise; c: others A {1}, B {1} → '1' leads, c said '2' → 0.
    const three = peerAgreement([
      { agentId: 'a', group: 'A', answer: '1' },
      { agentId: 'b', group: 'B', answer: '1' },
      { agentId: 'c', group: 'C', answer: '2' },
    ]);
    expect(Object.fromEntries(three)).toEqual({ a: 0.5, b: 0.5, c: 0 });
    // Clones vote as one group: A = {x1: '1', x2: '1', x3: '2'} gives '1' 2/3 and '2' 1/3; B says '2', C says '2'.
    // For b: others A {1: 2/3, 2: 1/3} + C {2: 1} → '2' has 4/3 > 2/3 → 1. For x1: others B, C → '2' = 2 → 0.
    // An unparseable proposal scores 0; an agent with no other group answering is left out.
    const clones = peerAgreement([
      { agentId: 'x1', group: 'A', answer: '1' },
      { agentId: 'x2', group: 'A', answer: '1' },
      { agentId: 'x3', group: 'A', answer: '2' },
      { agentId: 'b', group: 'B', answer: '2' },
      { agentId: 'c', group: 'C', answer: '2' },
      { agentId: 'n', group: 'N', answer: null },
    ]);
    expect(Object.fromEntries(clones)).toEqual({ x1: 0, x2: 0, x3: 1, b: 1, c: 1, n: 0 });
    expect(peerAgreement([{ agentId: 'a', group: 'A', answer: '1' }]).size).toBe(0);
  });

  it('gives every score in [0, 1] and ignores the order of the entries', () => {
    const entry = fc.record({ group: fc.constantFrom('A', 'B', 'C'), answer: fc.constantFrom('1', '2', '3', null) });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 8 }), (list) => {
        const entries = list.map((item, index) => ({ agentId: `a${index}`, ...item }));
        const forward = peerAgreement(entries);
        for (const value of forward.values()) expect(value >= 0 && value <= 1).toBe(true);
        expect(Object.fromEntries(peerAgreement(entries.slice().reverse()))).toEqual(Object.fromEntries(forward));
      }),
    );
  });
});

describe('createPeerHistory', () => {
  it('computes p and the log-odds weight by hand', () => {
    const history = createPeerHistory();
    // Unseen: p = a₀/(a₀ + b₀) = 2/3, weight ln 2 = 0.693147
    expect(history.probability('new')).toBeCloseTo(2 / 3, 12);
    expect(history.weight('new')).toBeCloseTo(0.693147, 6);
    history.observe('a', 1);
    // p = (1 + 2)/(1 + 3) = 0.75, weight ln 3 = 1.098612
    expect(history.weight('a')).toBeCloseTo(1.098612, 6);
    history.observe('a', 0);
    // c = 0.98·1 + 0 = 0.98, n = 0.98·1 + 1 = 1.98: p = 2.98/4.98 = 0.598394, ln(p/(1 − p)) = 0.398776
    expect(history.probability('a')).toBeCloseTo(0.598394, 6);
    expect(history.weight('a')).toBeCloseTo(0.398776, 6);
    for (let index = 0; index < 50; index++) history.observe('b', 0);
    expect(history.weight('b')).toBe(0.05);
    const restored = createPeerHistory();
    restored.restore(history.snapshot());
    expect(restored.weight('a')).toBe(history.weight('a'));
  });

  it('refuses bad options and observations', () => {
    expect(() => createPeerHistory({ decay: 0 })).toThrow(/peerHistory\.decay/);
    expect(() => createPeerHistory({ minWeight: 2, maxWeight: 1 })).toThrow(/maxWeight/);
    expect(() => createPeerHistory().observe('a', 2)).toThrow(/\[0, 1\]/);
  });
});

describe("MiniRep with history: 'log-odds' (MiniRep-LO)", () => {
  const team: AgentIdentity[] = [
    { id: 'strong1', model: 'S1' },
    { id: 'strong2', model: 'S2' },
    { id: 'w1', model: 'W1' },
    { id: 'w2', model: 'W2' },
    { id: 'w3', model: 'W3' },
  ];
  const propose = (taskId: string, agentId: string, answer: string): Proposal => ({
    agentId,
    taskId,
    round: 0,
    text: answer,
    answer,
  });

  const warmUp = (history: 'ema' | 'log-odds') => {
    const model = createMiniRepModel({ agents: team.map((agent) => agent.id) });
    const aggregator = createMiniRepAggregator({ model, history, bloc: false, k: 5 });
    // 20 tasks: the strong pair agrees with one weak agent in turn, the other two weak agents answer alone.
    for (let index = 0; index < 20; index++) {
      const taskId = `warm${index}`;
      const agreeing = `w${(index % 3) + 1}`;
      const proposals = team.map((agent) =>
        propose(
          taskId,
          agent.id,
          agent.id.startsWith('strong') || agent.id === agreeing ? 'right' : `${agent.id}-${index}`,
        ),
      );
      const decision = aggregator.aggregate({
        task: { id: taskId, kind: 'exact', prompt: '' },
        proposals,
        agents: team,
      });
      expect(decision.answer).toBe('right');
      model.observe(aggregator.feedback(decision));
    }
    return aggregator;
  };

  it('learns from agreement with the other groups and then lets a reliable pair outvote a wrong majority', () => {
    // Then the three weak agents agree on a wrong answer and the pair on the right one.
    const proposals = team.map((agent) => propose('test', agent.id, agent.id.startsWith('strong') ? 'right' : 'wrong'));
    const task = { id: 'test', kind: 'exact' as const, prompt: '' };
    // Strong pair: y = 1 on all 20 tasks: c = n = Σ 0.98^k (k < 20) = 16.6196, p = 18.6196/19.6196 = 0.94903, ln(p/(1 − p)) = 2.9242.
    // Weak agents: y = 1 on 7 or 6 of the 20 tasks, p ≈ 0.4, log-odds < 0 → ℓ_min = 0.05. 2 · 2.93 ≫ 3 · 0.05.
    const lo = warmUp('log-odds');
    expect(lo.aggregate({ task, proposals, agents: team }).answer).toBe('right');
    // The paper's design (EMA history, compressed: H ≈ 0.79 vs ≈ 0.6) follows the 3-agent majority here.
    expect(warmUp('ema').aggregate({ task, proposals, agents: team }).answer).toBe('wrong');
    expect(lo.snapshot().peerHistory?.agents.length).toBe(5);
  });

  it('refuses an unknown history mode', () => {
    expect(() =>
      createMiniRepAggregator({ model: createMiniRepModel({ agents: ['a'] }), history: 'median' as never }),
    ).toThrow(/'ema'.*'log-odds'/);
  });
});
