import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import type { Evidence } from '../core/reputation-model.js';
import { createMiniRepModel } from '../reputation/minirep.js';
import { createMiniRepAggregator } from './minirep-aggregator.js';
import {
  createEvidenceShrinkage,
  evidenceKeepShares,
  shrinkTowardsMean,
  widenedPoolSize,
} from './minirep-shrinkage.js';

describe('evidence shrinkage: hand-computed values', () => {
  it('keeps τ̂²/(τ̂² + c·σ²) of each agent', () => {
    // a 9 of 10, b 1 of 10: p̂ = 9.5/11, 1.5/11, p̄ = 0.5, σ² = 0.25/11 = 0.0227273,
    // spread = 2·(4/11)² = 0.2644628; c = 1: τ̂² = 0.2417355, s = 0.2417355/0.2644628 = 0.9140625
    const pair = [
      { agentId: 'a', agree: 9, seen: 10 },
      { agentId: 'b', agree: 1, seen: 10 },
    ];
    expect(evidenceKeepShares(pair, 1).get('a')).toBeCloseTo(0.9140625, 9);
    expect(evidenceKeepShares(pair, 1).get('b')).toBeCloseTo(0.9140625, 9);
    // c = 0.1: τ̂² = 0.2644628 − 0.0022727 = 0.2621901, s = 0.2621901/(0.2621901 + 0.0022727) = 0.99140625
    expect(evidenceKeepShares(pair, 0.1).get('a')).toBeCloseTo(0.99140625, 9);
    // a 4 of 4, b 0 of 4, c unseen: p̂ = 0.9, 0.1, 0.5; σ² = 0.05, 0.05, 0.25 (mean 7/60);
    // spread = (0.16 + 0.16)/2 = 0.16; τ̂² = 0.16 − 7/60 = 13/300; s_a = s_b = 13/28, s_c = 13/88
    const three = evidenceKeepShares(
      [
        { agentId: 'a', agree: 4, seen: 4 },
        { agentId: 'b', agree: 0, seen: 4 },
        { agentId: 'c', agree: 0, seen: 0 },
      ],
      1,
    );
    expect(three.get('a')).toBeCloseTo(13 / 28, 9);
    expect(three.get('b')).toBeCloseTo(13 / 28, 9);
    expect(three.get('c')).toBeCloseTo(13 / 88, 9);
  });

  it('keeps nothing without evidence, with equal evidence, or with one agent', () => {
    const none = evidenceKeepShares(
      [
        { agentId: 'a', agree: 0, seen: 0 },
        { agentId: 'b', agree: 0, seen: 0 },
      ],
      0.1,
    );
    expect([...none.values()]).toEqual([0, 0]);
    // equal estimates: no spread, τ̂² = 0
    const equal = evidenceKeepShares(
      [
        { agentId: 'a', agree: 5, seen: 10 },
        { agentId: 'b', agree: 5, seen: 10 },
      ],
      1,
    );
    expect([...equal.values()]).toEqual([0, 0]);
    expect(evidenceKeepShares([{ agentId: 'a', agree: 9, seen: 10 }], 1).get('a')).toBe(0);
  });

  it('pulls factors towards their mean and widens the pool', () => {
    // f̄ = 0.75: a keeps half its distance (0.875), b none (0.75)
    const shrunk = shrinkTowardsMean(
      [
        { agentId: 'a', factor: 1 },
        { agentId: 'b', factor: 0.5 },
      ],
      new Map([
        ['a', 0.5],
        ['b', 0],
      ]),
    );
    expect(shrunk.get('a')).toBeCloseTo(0.875, 12);
    expect(shrunk.get('b')).toBeCloseTo(0.75, 12);
    expect(widenedPoolSize(7, 10, 0.5)).toBe(9); // 7 + round(1.5)
    expect(widenedPoolSize(7, 10, 0)).toBe(10);
    expect(widenedPoolSize(7, 10, 1)).toBe(7);
    expect(widenedPoolSize(7, 5, 0)).toBe(7);
  });

  it('refuses a bad option, naming it', () => {
    expect(() => createEvidenceShrinkage({ strictness: -1 })).toThrow(/shrinkage\.strictness/);
    expect(() => createEvidenceShrinkage({ signal: 'votes' as 'plurality' })).toThrow(/shrinkage\.signal/);
    expect(() => createEvidenceShrinkage({ decay: 0 })).toThrow(/shrinkage\.decay/);
  });

  it('learns from cross-model agreement and round-trips its snapshot', () => {
    const team: AgentIdentity[] = ['a', 'b', 'c'].map((id) => ({ id, model: `m-${id}` }));
    const model = createMiniRepModel({ agents: team.map((agent) => agent.id) });
    const aggregator = createMiniRepAggregator({ model, shrinkage: {} });
    const task = { id: 't1', kind: 'number' as const, prompt: 'q' };
    const proposals: Proposal[] = [
      { agentId: 'a', taskId: 't1', round: 0, text: '1', answer: '1' },
      { agentId: 'b', taskId: 't1', round: 0, text: '1', answer: '1' },
      { agentId: 'c', taskId: 't1', round: 0, text: '2', answer: '2' },
    ];
    const decision = aggregator.aggregate({ task, proposals, agents: team });
    model.observe(aggregator.feedback(decision));
    // f₂: a and b each share their answer with 1 of the 2 other groups (0.5), c with none (0).
    const snapshot = aggregator.snapshot();
    expect(snapshot.shrinkage?.agents).toEqual([
      ['a', 0.5, 1],
      ['b', 0.5, 1],
      ['c', 0, 1],
    ]);
    const other = createMiniRepAggregator({ model, shrinkage: {} });
    other.restore(snapshot);
    expect(other.snapshot()).toEqual(snapshot);
    // A snapshot without the shrinkage part is refused by an aggregator that keeps one.
    const { shrinkage: _dropped, ...withoutShrinkage } = snapshot;
    expect(() => other.restore(withoutShrinkage)).toThrow(/snapshot\.shrinkage/);
  });
});

describe('evidence shrinkage: property', () => {
  it('with zero evidence, MiniRep-ES decides as a plain vote whatever the history', () => {
    const answer = fc.option(fc.constantFrom('1', '2', '3', '10', 'x'), { nil: null, freq: 6 });
    fc.assert(
      fc.property(
        fc.array(answer, { minLength: 1, maxLength: 12 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 12, maxLength: 12 }),
        (answers, qualities) => {
          const team: AgentIdentity[] = answers.map((_, index) => ({ id: `a${index}`, model: `m${index}` }));
          const model = createMiniRepModel({ agents: team.map((agent) => agent.id) });
          // Arbitrary, unequal histories, given to the model directly (the shrinkage sees none of it).
          const evidence: Evidence[] = team.map((agent, index) => ({
            type: 'behaviour',
            taskId: 'past',
            subject: agent.id,
            valid: true,
            flagged: false,
            risk: 0,
            quality: qualities[index] ?? 0.5,
          }));
          for (let round = 0; round < 5; round++) model.observe(evidence);
          const aggregator = createMiniRepAggregator({ model, shrinkage: {} });
          const proposals: Proposal[] = answers.map((value, index) => ({
            agentId: `a${index}`,
            taskId: 't',
            round: 0,
            text: String(value),
            answer: value,
          }));
          const decision = aggregator.aggregate({
            task: { id: 't', kind: 'number', prompt: 'q' },
            proposals,
            agents: team,
          });
          // The plain vote: most proposals, ties to the key first in UTF-16 order, null when none parsed.
          const counts = new Map<string, number>();
          for (const value of answers) if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
          const top = Math.max(0, ...counts.values());
          const expected =
            [...counts]
              .filter(([, count]) => count === top)
              .map(([key]) => key)
              .sort()[0] ?? null;
          expect(decision.answer).toBe(expected);
        },
      ),
      { numRuns: 200, seed: 36 },
    );
  });
});
