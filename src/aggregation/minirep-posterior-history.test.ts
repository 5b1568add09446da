import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import { createMiniRepModel } from '../reputation/minirep.js';
import { createMiniRepAggregator } from './minirep-aggregator.js';
import { createPosteriorHistory, type PosteriorEntry } from './minirep-posterior-history.js';

const entry = (agentId: string, group: string, answer: string | null, evidence = 1): PosteriorEntry => ({
  agentId,
  group,
  answer,
  evidence,
});

describe('createPosteriorHistory', () => {
  it('computes p and the vote weight ln(p/((1 − p)·q)) by hand', () => {
    const history = createPosteriorHistory();
    // Unseen: p = a₀/(a₀ + b₀) = 2/4 = 0.5, weight ln(1/0.15) = 1.897120
    expect(history.probability('new')).toBeCloseTo(0.5, 12);
    expect(history.weight('new')).toBeCloseTo(1.89712, 5);
    history.observe('a', 1);
    // c = 1, n = 1: p = 3/5 = 0.6, weight ln(0.6/(0.4·0.15)) = ln 10 = 2.302585
    expect(history.weight('a')).toBeCloseTo(2.302585, 6);
    history.observe('a', 0);
    // c = 0.95, n = 1.95 + … = 0.95·1 + 1: p = 2.95/5.95 = 0.495798, weight ln(0.495798/(0.504202·0.15)) = 1.880313
    expect(history.probability('a')).toBeCloseTo(0.495798, 6);
    expect(history.weight('a')).toBeCloseTo(1.880313, 6);
    // Always wrong: p → small, ln(p/((1 − p)·q)) < 0 is clamped to 0.
    for (let index = 0; index < 40; index++) history.observe('b', 0);
    expect(history.weight('b')).toBe(0);
    // Always right with ℓ_max = 2: p = 11/12 after many tasks gives ln(11/0.15) = 4.29 > 2 → 2.
    const capped = createPosteriorHistory({ maxWeight: 2 });
    for (let index = 0; index < 200; index++) capped.observe('c', 1);
    expect(capped.weight('c')).toBe(2);
  });

  it('gives each proposal the leave-one-out posterior of its answer, by hand', () => {
    const history = createPosteriorHistory();
    // Every vote weighs w = ln(1/0.15) = 1.897120, e^w = 20/3.
    // a ('1'): others b → '1' scores w, c → '2' scores w, none scores 0:
    //   y_a = e^w / (2e^w + 1) = (20/3)/(43/3) = 0.465116; b likewise.
    // c ('2'): others a, b → '1' scores 2w (e^{2w} = 400/9); '2' scores 0; none 0: y_c = 1/(400/9 + 2) = 0.021531.
    const three = history.posteriors([entry('a', 'A', '1'), entry('b', 'B', '1'), entry('c', 'C', '2')]);
    expect(three.get('a')).toBeCloseTo(0.465116, 6);
    expect(three.get('b')).toBeCloseTo(0.465116, 6);
    expect(three.get('c')).toBeCloseTo(0.021531, 6);
    // Clones: x1, x2 in group A say '1', b says '2'. For b, A's support of '1' is w + ε·w = 1.1w:
    //   y_b = 1/(e^{1.1w} + 2) = 1/(8.059294 + 2) = 0.099410. For x1 its clone x2 does not count:
    //   '2' scores w, '1' scores 0: y = 1/(20/3 + 2) = 0.115385.
    const clones = history.posteriors([entry('x1', 'A', '1'), entry('x2', 'A', '1'), entry('b', 'B', '2')]);
    expect(clones.get('b')).toBeCloseTo(0.09941, 5);
    expect(clones.get('x1')).toBeCloseTo(0.115385, 6);
    // A vote with evidence factor 0 (e.g. a flagged bloc member at φ_f = 0) counts for nobody:
    //   a: '1' scores w (b), '2' scores 0 (c), none 0: y_a = (20/3)/(20/3 + 2) = 0.769231. Unparseable → 0.
    const flagged = history.posteriors([
      entry('a', 'A', '1'),
      entry('b', 'B', '1'),
      entry('c', 'C', '2', 0),
      entry('n', 'N', null),
    ]);
    expect(flagged.get('a')).toBeCloseTo(0.769231, 6);
    expect(flagged.get('n')).toBe(0);
  });

  it('keeps posteriors in [0, 1], ignores entry order and never lets an agent or its clones vouch for it', () => {
    const item = fc.record({
      group: fc.constantFrom('A', 'B', 'C', 'D'),
      answer: fc.constantFrom('1', '2', '3', null),
      evidence: fc.constantFrom(0, 0.5, 1),
    });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 8 }), fc.constantFrom('1', '2', '9'), (list, other) => {
        const history = createPosteriorHistory();
        history.observe('a0', 1);
        history.observe('a1', 0);
        const entries = list.map((value, index) => ({ agentId: `a${index}`, ...value }));
        const forward = history.posteriors(entries);
        for (const value of forward.values()) expect(value >= 0 && value <= 1).toBe(true);
        const backward = history.posteriors(entries.slice().reverse());
        for (const [agentId, value] of forward) expect(backward.get(agentId)).toBeCloseTo(value, 12);
        // Changing the answer of a clone of a0 (same group) leaves a0's posterior unchanged.
        const first = entries[0] as PosteriorEntry;
        const withClone = history.posteriors([...entries, entry('clone', first.group, other)]);
        expect(withClone.get(first.agentId)).toBeCloseTo(forward.get(first.agentId) as number, 12);
      }),
    );
  });

  it('restores a snapshot and rejects bad options and snapshots with the field named', () => {
    const history = createPosteriorHistory();
    history.observe('a', 1);
    history.observe('b', 0.25);
    const copy = createPosteriorHistory();
    copy.restore(history.snapshot());
    expect(copy.weight('a')).toBe(history.weight('a'));
    expect(copy.snapshot()).toEqual(history.snapshot());
    expect(() => createPosteriorHistory({ collision: 1 })).toThrow(/posteriorHistory\.collision/);
    expect(() => createPosteriorHistory({ decay: 0 })).toThrow(/posteriorHistory\.decay/);
    expect(() => history.observe('a', 2)).toThrow(/posteriorHistory\.observe\(a\)/);
    expect(() => copy.restore({ schemaVersion: 2 } as never)).toThrow(/schemaVersion 1/);
    expect(() => copy.restore({ schemaVersion: 1, agents: [['x', 3, 1]] })).toThrow(
      expect.objectContaining({ parameter: 'snapshot.agents.x' }),
    );
    // A non-array entry threw a bare TypeError; numeric strings passed ("0.5" >= 0, "1" >= "0.5") and
    // then made p = ("0.5" + 2) / ... from a concatenated string.
    const kept = JSON.stringify(copy.snapshot());
    for (const entry of [null, ['x', '0.5', '1'], ['x', 0.5, '1'], [7, 0.5, 1], ['x', 0.5]])
      expect(() => copy.restore({ schemaVersion: 1, agents: [entry] } as never), JSON.stringify(entry)).toThrow(
        expect.objectContaining({ name: 'InvalidArgumentError', parameter: 'snapshot.agents[0]' }),
      );
    expect(JSON.stringify(copy.snapshot())).toBe(kept);
  });
});

describe("MiniRep with history: 'posterior' (MiniRep-DS)", () => {
  const team: AgentIdentity[] = ['a', 'b', 'c', 'd', 'r'].map((id) => ({ id, model: `m-${id}` }));
  const proposals = (answers: Record<string, string>, taskId: string): Proposal[] =>
    Object.entries(answers).map(([agentId, answer]) => ({ taskId, agentId, round: 0, answer, text: answer }));

  it('starves an agent whose answers nobody else gives, and persists the history', () => {
    const model = createMiniRepModel({ agents: team.map((agent) => agent.id) });
    const aggregator = createMiniRepAggregator({ model, k: 5, history: 'posterior', bloc: false });
    for (let index = 0; index < 30; index++) {
      const task = { id: `t${index}`, kind: 'exact' as const, prompt: '' };
      const decision = aggregator.aggregate({
        task,
        proposals: proposals({ a: '1', b: '1', c: '1', d: '2', r: `x${index}` }, task.id),
        agents: team,
      });
      expect(decision.answer).toBe('1');
      model.observe(aggregator.feedback(decision));
    }
    const weightOf = (id: string) => {
      const task = { id: 'probe', kind: 'exact' as const, prompt: '' };
      const decision = aggregator.aggregate({
        task,
        proposals: proposals({ a: '1', b: '1', c: '1', d: '2', r: 'y' }, task.id),
        agents: team,
      });
      return decision.reasons.find((reason) => reason.agentId === id)?.weight ?? -1;
    };
    // r is alone on every task: its leave-one-out posterior stays near 1/(e^{3w}+…) ≈ 0, so its
    // p falls below q/(1 + q) and the weight is clamped to 0; a, b, c agree and keep a positive weight.
    expect(weightOf('r')).toBe(0);
    expect(weightOf('a')).toBeGreaterThan(weightOf('d'));
    const snapshot = aggregator.snapshot();
    expect(snapshot.posteriorHistory?.agents.map(([id]) => id)).toEqual(['a', 'b', 'c', 'd', 'r']);
    const restored = createMiniRepAggregator({ model, k: 5, history: 'posterior', bloc: false });
    restored.restore(snapshot);
    expect(restored.snapshot()).toEqual(snapshot);
    expect(() => createMiniRepAggregator({ model, history: 'bayes' as never })).toThrow(/'posterior' \(MiniRep-DS\)/);
  });
});
