import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { computeLimits, createSeedSummariser, summarise } from './metrics.js';
import type { Condition, ConditionResult, PreparedReplay } from './types.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { methodRun } from '../../testing/_test-replay-grid.js';

const team = ['a', 'b', 'c'];
const condition = (index: number, attack: 'RAND' | 'STRONG' | 'DIV' | null): Condition => ({
  index,
  id: attack === null ? 'all-strong/clean' : `all-strong/B/${attack}`,
  composition: 'all-strong',
  placement: attack === null ? null : 'B',
  attack,
  team,
  attackers: attack === null ? [] : ['a'],
});
const run = methodRun;

// Clean, RAND and STRONG conditions of the all-strong team, as the describes below use them.
const conditions = [condition(0, null), condition(1, 'RAND'), condition(2, 'STRONG')];
// The clean condition of both describes: majority right on tasks 1, 2, 4; minirep on 1, 2, 3.
const clean: ConditionResult = {
  index: 0,
  missing: 0,
  runs: [run('majority', [1, 1, 0, 1]), run('minirep', [1, 1, 1, 0])],
};

describe('summarise (the MiniRep paper §C.3 definitions)', () => {
  // Four tasks. Per-task correctness (1 = right); `active` marks tasks where the attack fired:
  //   clean:  majority 1 1 0 1 (0.75)   minirep 1 1 1 0 (0.75)
  //   RAND:   majority 1 0 0 1 (0.50)   minirep 1 1 1 0 (0.75)   active 1 1 1 1
  //   STRONG: majority 0 0 0 1 (0.25)   minirep 1 0 1 0 (0.50)   active 0 1 1 1
  const all = [1, 1, 1, 1];
  const late = [0, 1, 1, 1];
  const results: ConditionResult[] = [
    clean,
    {
      index: 1,
      missing: 0,
      runs: [
        run('majority', [1, 0, 0, 1], {
          active: all,
          poolExpTasks: 4,
          payloadHitTasks: 1,
          nextExclTasks: 0,
          nextExclEligible: 3,
          weightShareSum: 1.2,
          weightShareCount: 4,
        }),
        run('minirep', [1, 1, 1, 0], {
          active: all,
          poolExpTasks: 1,
          payloadHitTasks: 0,
          nextExclTasks: 2,
          nextExclEligible: 3,
          weightShareSum: 0.4,
          weightShareCount: 4,
        }),
      ],
    },
    {
      index: 2,
      missing: 0,
      runs: [
        run('majority', [0, 0, 0, 1], {
          active: late,
          poolExpTasks: 3,
          payloadHitTasks: 2,
          nextExclTasks: 0,
          nextExclEligible: 2,
          weightShareSum: 0.9,
          weightShareCount: 3,
        }),
        run('minirep', [1, 0, 1, 0], {
          active: late,
          poolExpTasks: 2,
          payloadHitTasks: 1,
          nextExclTasks: 2,
          nextExclEligible: 2,
          weightShareSum: 0.2,
          weightShareCount: 2,
        }),
      ],
    },
  ];
  const { methods, rows, retention, byComposition } = summarise({ conditions, results, descriptions: {} });

  it('averages clean over compositions and attacked over attack conditions', () => {
    expect(methods.majority?.clean).toBeCloseTo(0.75, 12);
    // (0.5 + 0.25) / 2 = 0.375; minirep (0.75 + 0.5) / 2 = 0.625
    expect(methods.majority?.attacked).toBeCloseTo(0.375, 12);
    expect(methods.minirep?.attacked).toBeCloseTo(0.625, 12);
  });

  it('computes paired loss and the retention advantage R_b = loss_b − loss_minirep', () => {
    // majority loss: ((0.75-0.5) + (0.75-0.25)) / 2 = 0.375; minirep (0 + 0.25) / 2 = 0.125
    expect(methods.majority?.loss).toBeCloseTo(0.375, 12);
    expect(methods.minirep?.loss).toBeCloseTo(0.125, 12);
    // R_majority = 0.375 − 0.125 = 0.25; no entry for minirep itself
    expect(retention).toEqual({ majority: expect.closeTo(0.25, 12) });
  });

  it('counts strict wins over attacked conditions only, also per composition', () => {
    // RAND 0.75 > 0.5 and STRONG 0.5 > 0.25: minirep wins both; the clean tie counts for nobody.
    expect(methods.minirep?.strictWins).toBe(2);
    expect(methods.majority?.strictWins).toBe(0);
    // Neither win is significant: each is one task ahead of four, and a paired resample of the four
    // tasks misses that task with probability (3/4)^4 ≈ 0.32 > 0.025, so the interval reaches 0.
    expect(methods.minirep?.significantWins).toBe(0);
    expect(byComposition['all-strong']?.minirep).toEqual({
      clean: 0.75,
      attacked: 0.625,
      strictWins: 2,
      significantWins: 0,
    });
    expect(byComposition['all-strong']?.majority).toEqual({
      clean: 0.75,
      attacked: 0.375,
      strictWins: 0,
      significantWins: 0,
    });
  });

  it('computes CF-Harm over active-attack tasks only: attacked score below the paired clean score', () => {
    // majority RAND (4 active): task 1 (0 < 1) → 1/4. STRONG (tasks 1–3 active): task 1 → 1/3;
    // task 0 also drops (0 < 1) but the attack was not active there, so it does not count.
    // mean (1/4 + 1/3) / 2 = 7/24
    expect(
      rows.find((row) => row.condition === 'all-strong/B/STRONG' && row.method === 'majority')?.cfHarm,
    ).toBeCloseTo(1 / 3, 12);
    expect(methods.majority?.cfHarm).toBeCloseTo(7 / 24, 12);
    // minirep RAND: none → 0; STRONG (tasks 1–3): task 1 → 1/3; mean 1/6
    expect(methods.minirep?.cfHarm).toBeCloseTo(1 / 6, 12);
  });

  it('computes PoolExp per active task, PayloadHit given a pooled payload, NextExcl per eligible task, per condition then averaged', () => {
    // PoolExp: majority 4/4 and 3/3 → 1; minirep 1/4 and 2/3 → (1/4 + 2/3) / 2 = 11/24
    expect(methods.majority?.poolExp).toBeCloseTo(1, 12);
    expect(methods.minirep?.poolExp).toBeCloseTo(11 / 24, 12);
    // PayloadHit (denominator: the pooled tasks): majority 1/4 and 2/3 → 11/24; minirep 0/1 and 1/2 → 1/4
    expect(methods.majority?.payloadHit).toBeCloseTo(11 / 24, 12);
    expect(methods.minirep?.payloadHit).toBeCloseTo(0.25, 12);
    // NextExcl: minirep 2/3 and 2/2 → 5/6; majority 0
    expect(methods.minirep?.nextExcl).toBeCloseTo(5 / 6, 12);
    expect(methods.majority?.nextExcl).toBe(0);
    // Ours, v1's PoolExp: the attackers' weight share, 1.2/4 = 0.3 and 0.9/3 = 0.3 → 0.3
    expect(methods.majority?.attackerWeightShare).toBeCloseTo(0.3, 12);
  });

  it('leaves clean rows without attack metrics and byAttack per attack', () => {
    const clean = rows.find((row) => row.attack === 'clean' && row.method === 'majority');
    expect(clean).toMatchObject({
      poolExp: null,
      payloadHit: null,
      nextExcl: null,
      loss: 0,
      relativeDrop: null,
      activeTasks: 0,
      cfHarm: null,
      strictWin: 0,
    });
    expect(methods.minirep?.byAttack).toEqual({ RAND: 0.75, STRONG: 0.5 });
  });

  it('computes the relative drop per condition before averaging, and omits undefined ratios', () => {
    // Composition X: clean 1.0, attacked 0.5 → loss 0.5, drop 0.5/1.0 = 0.5.
    // Composition Y: clean 0.25, attacked 0.0 → loss 0.25, drop 0.25/0.25 = 1.0.
    // Per condition then averaged: (0.5 + 1.0) / 2 = 0.75 (the ratio of means would be 0.375/0.625 = 0.6).
    const other = (index: number, composition: 'all-strong' | 'all-weak', attack: 'RAND' | null): Condition => ({
      ...condition(index, attack),
      id: `${composition}/${attack ?? 'clean'}`,
      composition,
    });
    const summary = summarise({
      conditions: [
        other(0, 'all-strong', null),
        other(1, 'all-strong', 'RAND'),
        other(2, 'all-weak', null),
        other(3, 'all-weak', 'RAND'),
      ],
      results: [
        { index: 0, missing: 0, runs: [run('majority', [1, 1, 1, 1])] },
        {
          index: 1,
          missing: 0,
          runs: [run('majority', [1, 1, 0, 0], { active: [1, 1, 1, 1], poolExpTasks: 2, payloadHitTasks: 2 })],
        },
        { index: 2, missing: 0, runs: [run('majority', [1, 0, 0, 0])] },
        // No payload entered the pool here: PayloadHit is undefined and left out of the mean.
        { index: 3, missing: 0, runs: [run('majority', [0, 0, 0, 0], { active: [1, 1, 1, 1], poolExpTasks: 0 })] },
      ],
      descriptions: {},
    });
    expect(summary.methods.majority?.loss).toBeCloseTo(0.375, 12);
    expect(summary.methods.majority?.relativeDrop).toBeCloseTo(0.75, 12);
    // PayloadHit: only the first condition is defined (2/2 = 1); PoolExp (2/4 + 0/4) / 2 = 0.25
    expect(summary.methods.majority?.payloadHit).toBeCloseTo(1, 12);
    expect(summary.methods.majority?.poolExp).toBeCloseTo(0.25, 12);
    expect(summary.retention).toEqual({});
  });

  it('reports a metric no attacked condition defines as null, not 0', () => {
    // No payload ever entered the pool and no task was eligible for NextExcl: both undefined everywhere.
    const summary = summarise({
      conditions: [condition(0, null), condition(1, 'RAND')],
      results: [
        { index: 0, missing: 0, runs: [run('majority', [1, 1])] },
        { index: 1, missing: 0, runs: [run('majority', [1, 1], { active: [1, 1], poolExpTasks: 0 })] },
      ],
      descriptions: {},
    });
    expect(summary.methods.majority?.poolExp).toBe(0);
    expect(summary.methods.majority?.payloadHit).toBeNull();
    expect(summary.methods.majority?.nextExcl).toBeNull();
    expect(summary.methods.majority?.attackerWeightShare).toBeNull();
  });

  it('excludes ties within 1e-12 from strict wins', () => {
    const tie = summarise({
      conditions: [condition(0, null), condition(1, 'DIV')],
      results: [
        { index: 0, missing: 0, runs: [run('majority', [1]), run('minirep', [1])] },
        { index: 1, missing: 0, runs: [run('majority', [0.5 + 1e-13]), run('minirep', [0.5])] },
      ],
      descriptions: {},
    });
    expect(tie.methods.majority?.strictWins).toBe(0);
    expect(tie.methods.minirep?.strictWins).toBe(0);
  });
});

describe('createSeedSummariser (streaming summarise)', () => {
  // Clean, RAND and STRONG of one composition, two methods, four tasks; attacked runs carry weights.
  //   majority attackers: RAND 0.1 0.2 0.3 0.4, STRONG 0.3 0.2 0.1 0.0 → mean 0.2 0.2 0.2 0.2
  //   majority honest:    RAND 0.3 0.3 0.3 0.3, STRONG 0.2 0.2 0.2 0.2 → mean 0.25 each
  const weights = (attackers: number[], honest: number[]) => ({
    attackerWeight: Float64Array.from(attackers),
    honestWeight: Float64Array.from(honest),
  });
  const results: ConditionResult[] = [
    clean,
    {
      index: 1,
      missing: 0,
      runs: [
        run('majority', [1, 0, 0, 1], {
          active: [1, 1, 1, 1],
          ...weights([0.1, 0.2, 0.3, 0.4], [0.3, 0.3, 0.3, 0.3]),
        }),
        run('minirep', [1, 1, 1, 0], { active: [1, 1, 1, 1], ...weights([0, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]) }),
      ],
    },
    {
      index: 2,
      missing: 0,
      runs: [
        run('majority', [0, 0, 0, 1], { active: [0, 1, 1, 1], ...weights([0.3, 0.2, 0.1, 0], [0.2, 0.2, 0.2, 0.2]) }),
        run('minirep', [1, 0, 1, 0], { active: [0, 1, 1, 1], ...weights([0, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]) }),
      ],
    },
  ];
  const methods = ['majority', 'minirep'];

  it('averages the weight trajectories per task over attacked conditions', () => {
    const { trajectories } = summarise({ conditions, results, descriptions: {} });
    // (0.1 + 0.3) / 2 = 0.2, (0.2 + 0.2) / 2, (0.3 + 0.1) / 2, (0.4 + 0) / 2; honest (0.3 + 0.2) / 2 = 0.25
    trajectories.majority?.attackers.forEach((value) => expect(value).toBeCloseTo(0.2, 12));
    trajectories.majority?.honest.forEach((value) => expect(value).toBeCloseTo(0.25, 12));
    expect(trajectories.minirep?.honest).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('gives the same summary, bit for bit, whatever order the results arrive in', () => {
    const expected = summarise({ conditions, results, descriptions: {} });
    fc.assert(
      fc.property(fc.shuffledSubarray(results, { minLength: results.length, maxLength: results.length }), (order) => {
        const summariser = createSeedSummariser({ conditions, methods, descriptions: {} });
        for (const result of order) summariser.add(result);
        expect(summariser.finish()).toEqual(expected);
      }),
    );
  });

  it('names the condition whose result never came', () => {
    const summariser = createSeedSummariser({ conditions, methods, descriptions: {} });
    summariser.add(results[0] as ConditionResult);
    summariser.add(results[2] as ConditionResult);
    expect(() => summariser.finish()).toThrow(/missing result for all-strong\/B\/RAND \/ majority/);
  });
});

describe('computeLimits', () => {
  it('reports coverage, majority of all agents and the best single agent', () => {
    const task = (id: string, reference: string, keys: (string | null)[]) => ({
      id,
      kind: 'number' as const,
      prompt: '',
      reference,
      keys,
      texts: keys.map(() => ''),
      present: keys.map(() => true),
      scores: Object.fromEntries(
        keys
          .filter((key): key is string => key !== null)
          .map((key) => [key, { exact: key === reference ? 1 : 0, f1: key === reference ? 1 : 0 }]),
      ),
    });
    const prepared: PreparedReplay = {
      schemaVersion: 1,
      agents: [
        { id: 'x', model: 'x' },
        { id: 'y', model: 'y' },
        { id: 'z', model: 'z' },
      ],
      accuracy: [0, 0, 0],
      tasks: [task('t1', '1', ['1', '2', '2']), task('t2', '5', ['5', '5', null]), task('t3', '9', ['8', '7', '6'])],
    };
    // coverage: t1 (x), t2 (x, y) → 2/3; plurality: t1 '2' wrong, t2 '5' right, t3 three-way tie → '6' (sorts first) wrong → 1/3;
    // best single: x right on t1, t2 → 2/3.
    expect(computeLimits(prepared, createDefaultAnswerOps())).toEqual({
      coverage: 2 / 3,
      majorityAll: 1 / 3,
      bestSingle: 2 / 3,
      bestSingleAgent: 'x',
      bestSingleInTeam: {},
    });
    // Best member of a team {y, z}: y right on t2 only → 1/3; z never → the team's best is 1/3.
    expect(computeLimits(prepared, createDefaultAnswerOps(), { yz: ['y', 'z'] }).bestSingleInTeam).toEqual({
      yz: 1 / 3,
    });
  });
});
