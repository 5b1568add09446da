import { describe, expect, it } from 'vitest';
import type { Aggregator } from '../../aggregation/aggregator.js';
import { everyoneSelector, prepareFixtureGrid } from '../../testing/_test-replay-grid.js';
import { resolveReplayMethods } from './methods.js';
import type { ReplayMethod } from './method.js';
import type { AttackPlan } from './attacks.js';
import { planGrid, type GridPlan } from './plan-grid.js';
import { feedbackSuccess, runCondition } from './run-condition.js';
import type { Condition, PreparedReplay } from './types.js';
import { createReputationModel } from '../../reputation/registry.js';
import type { Evidence, ReputationModel } from '../../reputation/reputation-model.js';

describe('feedbackSuccess', () => {
  it('consensus: 1 exactly when the agent gave the decided answer', () => {
    expect(feedbackSuccess('consensus', { key: '4', decided: '4', truth: 0, verdict: undefined })).toBe(1);
    expect(feedbackSuccess('consensus', { key: '5', decided: '4', truth: 1, verdict: 1 })).toBe(0);
    expect(feedbackSuccess('consensus', { key: null, decided: null, truth: 0, verdict: undefined })).toBe(0);
  });

  it('truth: the proposal’s correctness', () => {
    expect(feedbackSuccess('truth', { key: '5', decided: '4', truth: 1, verdict: 0 })).toBe(1);
  });

  it('verifier: the verdict the proposal got before aggregation, and an internal error without one', () => {
    expect(feedbackSuccess('verifier', { key: 'x', decided: 'y', truth: 1, verdict: 0 })).toBe(0);
    expect(feedbackSuccess('verifier', { key: 'x', decided: 'y', truth: 0, verdict: 1 })).toBe(1);
    expect(() => feedbackSuccess('verifier', { key: 'x', decided: 'y', truth: 0, verdict: undefined })).toThrow(
      /needs a verifier/,
    );
  });
});

describe('runCondition counts the paper metrics per task', () => {
  // Four honest agents (a is the attacker); reference '1' everywhere and every honest key is '1'.
  // Attack plan: a proposes '9' on tasks 1, 2, 4, 5 (active) and is honest on tasks 0, 3.
  // A scripted aggregator fixes, per task, a's final weight (0 = outside the pool) and the answer:
  //   t1: a weight 0   → no payload in the pool
  //   t2: a weight 1   → in the pool, decision '9' (a payload hit)
  //   t4: a weight 0.5 → in the pool, decision '1'
  //   t5: a weight 0   → not in the pool
  // PoolExp = pooled / active = 2/4. PayloadHit = hits / pooled = 1/2.
  // NextExcl over active tasks with a later active task: t1 → t2 (a pooled: no), t2 → t4 (pooled: no),
  // t4 → t5 (a absent: yes); t5 has no later active task and is omitted → 1/3.
  const agents = ['a', 'b', 'c', 'd'].map((id) => ({ id, model: id }));
  const tasks = Array.from({ length: 6 }, (_, index) => ({
    id: `t${index}`,
    kind: 'number' as const,
    prompt: '',
    reference: '1',
    keys: ['1', '1', '1', '1'],
    texts: ['', '', '', ''],
    present: [true, true, true, true],
    scores: { '1': { exact: 1, f1: 1 } },
  }));
  const prepared: PreparedReplay = { schemaVersion: 1, agents, accuracy: [1, 1, 1, 1], tasks };
  const active = [false, true, true, false, true, true];
  const plans = active.map(
    (on): AttackPlan => (on ? { active: true, payloads: { a: '9' } } : { active: false, payloads: {} }),
  );
  const payloadScores = tasks.map(() => new Map([['9', { exact: 0, f1: 0 }]]));
  const plan: GridPlan = { schemaVersion: 1, conditions: [{ kind: 'fixed', plans }], payloadScores };
  const condition: Condition = {
    index: 0,
    id: 'x/B/STRONG',
    composition: 'all-strong',
    placement: 'B',
    attack: 'STRONG',
    team: ['a', 'b', 'c', 'd'],
    attackers: ['a'],
  };
  const script: Record<string, { weight: number; answer: string }> = {
    t1: { weight: 0, answer: '1' },
    t2: { weight: 1, answer: '9' },
    t4: { weight: 0.5, answer: '1' },
    t5: { weight: 0, answer: '1' },
  };
  const scripted: Aggregator = {
    name: 'scripted',
    aggregate: ({ task, proposals }) => {
      const entry = script[task.id] ?? { weight: 1, answer: '1' };
      return {
        taskId: task.id,
        answer: entry.answer,
        support: {},
        reasons: proposals.map((proposal) => ({
          agentId: proposal.agentId,
          weight: proposal.agentId === 'a' ? entry.weight : 1,
        })),
      };
    },
  };
  const method: ReplayMethod = {
    name: 'scripted',
    description: 'test',
    create: () => ({ selector: everyoneSelector, aggregator: scripted, k: 4, weighted: false }),
  };

  it('pins PoolExp, PayloadHit and NextExcl on a hand-made condition', () => {
    const [run] = runCondition({
      prepared,
      condition,
      methods: [method],
      settings: {
        seed: 1,
        feedback: 'consensus',
        verifier: { kind: 'none', model: 'correlated', sensitivity: 0.85, specificity: 0.8 },
      },
      plan,
    }).runs;
    expect(Array.from(run?.active ?? [])).toEqual([0, 1, 1, 0, 1, 1]);
    expect(run?.poolExpTasks).toBe(2);
    expect(run?.payloadHitTasks).toBe(1);
    expect(run?.nextExclTasks).toBe(1);
    expect(run?.nextExclEligible).toBe(3);
    // Decisions: '9' on t2 is wrong, every other task decides '1'.
    expect(Array.from(run?.exact ?? [])).toEqual([1, 1, 0, 1, 1, 1]);
    // Ours: weight share of a over active tasks with positive weight: t1 0/3, t2 1/4, t4 0.5/3.5, t5 0/3.
    expect((run?.weightShareSum ?? 0) / (run?.weightShareCount ?? 1)).toBeCloseTo((0 + 1 / 4 + 0.5 / 3.5 + 0) / 4, 12);
  });

  it('sends observations (each peer sees each other success) only to models that read them, and only under external feedback', () => {
    const batches: Evidence[][] = [];
    const inner = createReputationModel('eigentrust', { agents: ['a', 'b', 'c', 'd'] });
    const spy = {
      name: 'spy',
      observe: (batch: readonly Evidence[]) => {
        batches.push([...batch]);
        inner.observe(batch);
      },
      weights: (ids?: readonly string[]) => inner.weights(ids),
      scores: () => inner.scores(),
    } as unknown as ReputationModel;
    const observing: ReplayMethod = {
      name: 'observing',
      description: 'test',
      create: () => ({
        selector: everyoneSelector,
        aggregator: scripted,
        model: spy,
        reads: ['rating', 'observation'],
        k: 4,
        weighted: false,
      }),
    };
    const verifier = { kind: 'none' as const, model: 'correlated' as const, sensitivity: 0.85, specificity: 0.8 };
    const observationsOf = (batch: Evidence[]) =>
      batch.flatMap((item) => (item.type === 'outcome' && item.observer !== undefined ? [item] : []));
    runCondition({
      prepared,
      condition,
      methods: [observing],
      settings: { seed: 1, feedback: 'truth', verifier },
      plan,
    });
    expect(batches).toHaveLength(6);
    // t2: a proposed the wrong payload '9' (truth 0), b, c and d the reference '1' (truth 1); 4 · 3 pairs.
    const t2 = observationsOf(batches[2] as Evidence[]);
    expect(t2).toHaveLength(12);
    expect(t2.filter((item) => item.subject === 'a').map((item) => [item.observer, item.success])).toEqual([
      ['b', 0],
      ['c', 0],
      ['d', 0],
    ]);
    expect(t2.filter((item) => item.subject !== 'a').every((item) => item.success === 1)).toBe(true);
    // No outcomes without an observer (not declared) and no observations under consensus feedback.
    expect(batches.flat().some((item) => item.type === 'outcome' && item.observer === undefined)).toBe(false);
    batches.length = 0;
    runCondition({
      prepared,
      condition,
      methods: [observing],
      settings: { seed: 1, feedback: 'consensus', verifier },
      plan,
    });
    expect(batches.flatMap(observationsOf)).toEqual([]);
    expect(batches.flat().filter((item) => item.type === 'rating')).toHaveLength(6 * 12);
  });
});

describe('runCondition: ADAPT in two calls', () => {
  it('replays the other methods on the attacks MiniRep reported, as one call would', () => {
    // ADAPT attacks from task index 30 on (after the 30th task), so 45 tasks give 15 where attackers may act.
    const { ops, prepared, conditions, settings } = prepareFixtureGrid({ fixtureSeed: 21, seed: 5, tasks: 45 });
    const adapt = conditions.filter((condition) => condition.attack === 'ADAPT').slice(0, 3);
    expect(adapt).toHaveLength(3);
    for (const condition of adapt) {
      const plan = planGrid({ prepared, conditions: [condition], seed: settings.seed, ops });
      const whole = runCondition({
        prepared,
        condition,
        methods: resolveReplayMethods(['majority', 'beta', 'minirep', 'eigentrust']),
        settings,
        plan,
      });
      const first = runCondition({
        prepared,
        condition,
        methods: resolveReplayMethods(['minirep']),
        settings,
        plan,
        reportAttacks: true,
      });
      const attacks = first.attacks as readonly AttackPlan[];
      expect(attacks).toHaveLength(45);
      expect(attacks.slice(0, 30).every((attack) => !attack.active)).toBe(true);
      expect(attacks.some((attack) => attack.active)).toBe(true);
      const second = runCondition({
        prepared,
        condition,
        methods: resolveReplayMethods(['majority', 'beta', 'eigentrust']),
        settings,
        plan,
        attacks,
      });
      expect(second.attacks).toBeUndefined();
      const byName = new Map([...first.runs, ...second.runs].map((run) => [run.method, run]));
      expect(whole.runs.map((run) => byName.get(run.method))).toEqual(whole.runs);
      expect(second.missing).toBe(whole.missing);
    }
    const condition = adapt[0] as Condition;
    const plan = planGrid({ prepared, conditions: [condition], seed: settings.seed, ops });
    expect(() =>
      runCondition({ prepared, condition, methods: resolveReplayMethods(['majority']), settings, plan, attacks: [] }),
    ).toThrow(/0 ADAPT attacks given for the 45 tasks/);
  });
});
