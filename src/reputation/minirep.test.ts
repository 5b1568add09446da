import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { runReputationModelContract } from '../testing/reputation-contract.js';
import { createMiniRepModel, initialMiniRepState, miniRepModelDefaults, updateMiniRepState } from './minirep.js';
import { createReputationModel } from './registry.js';
import type { BehaviourEvidence } from './reputation-model.js';

runReputationModelContract('minirep', (agents) => createMiniRepModel({ agents }));

const behaviour = (taskId: string, subject: string, fields: Partial<BehaviourEvidence> = {}): BehaviourEvidence => ({
  type: 'behaviour',
  taskId,
  subject,
  valid: true,
  flagged: false,
  risk: 0,
  quality: 1,
  ...fields,
});

describe('minirep model: quality averages and score', () => {
  it('moves the slow and fast averages by hand-computed amounts', () => {
    const model = createMiniRepModel({ agents: ['a', 'b'] });
    model.observe([behaviour('t1', 'a'), behaviour('t1', 'b', { quality: 0 })]);
    // a: L = 0.95·0.5 + 0.05·1 = 0.525; R = 0.7·0.5 + 0.3·1 = 0.65; H = 0.7·0.525 + 0.3·0.65 = 0.3675 + 0.195 = 0.5625
    expect(model.state('a')).toMatchObject({
      longTerm: expect.closeTo(0.525, 12),
      recent: expect.closeTo(0.65, 12),
      records: [],
      cooldown: 0,
      evidenceCount: 1,
    });
    expect(model.score('a')).toBeCloseTo(0.5625, 12);
    // b: L = 0.475; R = 0.35; H = 0.3325 + 0.105 = 0.4375
    expect(model.score('b')).toBeCloseTo(0.4375, 12);
    // weights: 0.5625 / (0.5625 + 0.4375) = 0.5625 and 0.4375
    expect(model.weights()).toEqual({ a: expect.closeTo(0.5625, 12), b: expect.closeTo(0.4375, 12) });
  });

  it('takes an outcome success as the quality of the same task and agent', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { quality: 1 }), { type: 'outcome', taskId: 't1', subject: 'a', success: 0 }]);
    // quality 0: R = 0.7·0.5 = 0.35, L = 0.475, H = 0.7·0.475 + 0.3·0.35 = 0.4375
    expect(model.score('a')).toBeCloseTo(0.4375, 12);
    expect(model.state('a').evidenceCount).toBe(1);
  });

  it('ignores ratings and witness reports', () => {
    const model = createMiniRepModel({ agents: ['a', 'b'] });
    model.observe([{ type: 'rating', rating: { rater: 'a', ratee: 'b', taskId: 't1', score: 0 } }]);
    expect(model.score('b')).toBe(0.5);
  });
});

describe('minirep model: cooldown, max-of-records risk, suspicion decay', () => {
  it('keeps a flagged valid proposal in cooldown for exactly the next 3 tasks', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { flagged: true, risk: 0.6 })]);
    const seen: number[] = [];
    for (const taskId of ['t2', 't3', 't4', 't5']) {
      seen.push(model.cooldown('a'));
      model.observe([behaviour(taskId, 'a')]);
    }
    // before t2, t3, t4: 3, 2, 1 (in cooldown); before t5: 0
    expect(seen).toEqual([3, 2, 1, 0]);
  });

  it('does not start a cooldown for a flagged unparseable proposal', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { flagged: true, valid: false, risk: 0.6 })]);
    expect(model.cooldown('a')).toBe(0);
    expect(model.risk('a')).toBe(0.6);
  });

  it('counts the maximum record as the risk, never the mean', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { flagged: true, risk: 0.9 })]);
    model.observe([behaviour('t2', 'a', { risk: 0.2 })]);
    model.observe([behaviour('t3', 'a', { risk: 0.3 })]);
    // records 0.9, 0.2, 0.3: risk = max = 0.9 (their mean would be 0.467)
    expect(model.state('a').records).toEqual([0.9, 0.2, 0.3]);
    expect(model.risk('a')).toBe(0.9);
    const history = model.history('a');
    expect(model.score('a')).toBeCloseTo(history * (1 - 0.9), 12);
  });

  it('records the flagged risk floor for a flag without a reported risk', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { flagged: true, risk: 0 })]);
    expect(model.risk('a')).toBe(miniRepModelDefaults.flaggedRisk);
  });

  it('decays suspicion only after 3 consecutive clean proposals', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { flagged: true, risk: 0.8 })]);
    model.observe([behaviour('t2', 'a')]);
    model.observe([behaviour('t3', 'a')]);
    expect(model.risk('a')).toBe(0.8); // two clean proposals: no decay yet
    model.observe([behaviour('t4', 'a', { risk: 0.3 })]); // not clean (0.3 ≥ 0.2): streak resets, record 0.3
    model.observe([behaviour('t5', 'a')]);
    model.observe([behaviour('t6', 'a')]);
    expect(model.risk('a')).toBe(0.8);
    model.observe([behaviour('t7', 'a')]); // third clean in a row: records × 0.5
    expect(model.state('a').records).toEqual([0.4, 0.15]);
    expect(model.risk('a')).toBe(0.4);
    for (const taskId of ['t8', 't9', 't10']) model.observe([behaviour(taskId, 'a')]);
    expect(model.risk('a')).toBe(0.2); // 0.4 · 0.5 after three more
  });

  it('is the same update as the pure updateMiniRepState', () => {
    const next = updateMiniRepState(
      initialMiniRepState(),
      { quality: 1, valid: true, flagged: true, risk: 0.7 },
      miniRepModelDefaults,
    );
    expect(next).toEqual({
      longTerm: expect.closeTo(0.525, 12),
      recent: expect.closeTo(0.65, 12),
      records: [0.7],
      cooldown: 3,
      cleanStreak: 0,
      flags: 1,
      evidenceCount: 1,
    });
  });

  it('explains history, risk and cooldown', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { flagged: true, risk: 0.6, quality: 0 })]);
    const explanation = model.explain('a');
    expect(explanation.components).toMatchObject({ risk: 0.6, cooldown: 3, flags: 1 });
    expect(explanation.summary).toMatch(/in cooldown for 3 more task/);
  });
});

describe('minirep model: options and registry', () => {
  it('refuses a cooldown shorter than 3 tasks and rates outside (0, 1]', () => {
    expect(() => createMiniRepModel({ agents: ['a'], cooldownTasks: 2 })).toThrow(/cooldownTasks.*at least 3/);
    expect(() => createMiniRepModel({ agents: ['a'], recentRate: 0 })).toThrow(InvalidArgumentError);
    expect(() => createMiniRepModel({ agents: ['a'], suspicionDecay: 1 })).toThrow(/suspicionDecay/);
  });

  it('is registered as minirep', () => {
    const model = createReputationModel('minirep', { agents: ['a', 'b'] });
    expect(model.name).toBe('minirep');
    expect(model.scores()).toEqual({ a: 0.5, b: 0.5 });
  });
});

describe('minirep model: restore', () => {
  it('refuses fractional or negative counts (cooldown, clean streak, flags, evidence) naming the field', () => {
    const model = createMiniRepModel({ agents: ['a'] });
    model.observe([behaviour('t1', 'a', { flagged: true, risk: 0.6, quality: 0 })]);
    const good = JSON.parse(JSON.stringify(model.snapshot()));
    // A cooldown of 2.5 tasks used to be accepted: it counted down 2.5 → 1.5 → 0.5 → 0, and `explain`
    // said "in cooldown for 0.5 more task(s)". (A negative count was refused before too.)
    for (const [field, value] of [
      ['cooldown', 2.5],
      ['cleanStreak', 1.5],
      ['flags', -1],
      ['evidenceCount', 0.25],
    ] as const) {
      const snapshot = JSON.parse(JSON.stringify(good));
      snapshot.state.agents[0][field] = value;
      const target = createMiniRepModel({ agents: ['a'] });
      expect(() => target.restore(snapshot)).toThrow(
        expect.objectContaining({ name: 'InvalidArgumentError', parameter: `snapshot.state.agents[0].${field}` }),
      );
    }
    const copy = createMiniRepModel({ agents: ['a'] });
    copy.restore(good);
    expect(copy.cooldown('a')).toBe(3);
  });
});
