import { describe, expect, it } from 'vitest';
import { computeLimits, summarise } from './metrics.js';
import type { Condition, ConditionResult, MethodRun, PreparedReplay } from './types.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';

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
const run = (method: string, f1: number[], extra: Partial<MethodRun> = {}): MethodRun => ({
  method,
  f1,
  exact: f1.slice(),
  poolExpSum: 0,
  poolExpCount: 0,
  payloadHitSum: 0,
  payloadHitCount: 0,
  nextExclSum: 0,
  nextExclCount: 0,
  attackerWeight: [],
  honestWeight: [],
  proposals: 0,
  ...extra,
});

describe('summarise', () => {
  // Four tasks. Per-task correctness (1 = right):
  //   clean:  majority 1 1 0 1 (0.75)   minirep 1 1 1 0 (0.75)
  //   RAND:   majority 1 0 0 1 (0.50)   minirep 1 1 1 0 (0.75)
  //   STRONG: majority 0 0 0 1 (0.25)   minirep 1 0 1 0 (0.50)
  const conditions = [condition(0, null), condition(1, 'RAND'), condition(2, 'STRONG')];
  const results: ConditionResult[] = [
    { index: 0, missing: 0, runs: [run('majority', [1, 1, 0, 1]), run('minirep', [1, 1, 1, 0])] },
    {
      index: 1,
      missing: 0,
      runs: [
        run('majority', [1, 0, 0, 1], { poolExpSum: 1.2, poolExpCount: 4, payloadHitSum: 1, payloadHitCount: 4, nextExclSum: 0, nextExclCount: 9 }),
        run('minirep', [1, 1, 1, 0], { poolExpSum: 0.4, poolExpCount: 4, payloadHitSum: 0, payloadHitCount: 4, nextExclSum: 6, nextExclCount: 9 }),
      ],
    },
    {
      index: 2,
      missing: 0,
      runs: [
        run('majority', [0, 0, 0, 1], { poolExpSum: 1.2, poolExpCount: 4, payloadHitSum: 3, payloadHitCount: 4, nextExclSum: 0, nextExclCount: 9 }),
        run('minirep', [1, 0, 1, 0], { poolExpSum: 0.2, poolExpCount: 2, payloadHitSum: 2, payloadHitCount: 4, nextExclSum: 3, nextExclCount: 9 }),
      ],
    },
  ];
  const { methods, rows } = summarise({ conditions, results, descriptions: {} });

  it('averages clean over compositions and attacked over attack conditions', () => {
    expect(methods.majority?.clean).toBeCloseTo(0.75, 12);
    // (0.5 + 0.25) / 2 = 0.375; minirep (0.75 + 0.5) / 2 = 0.625
    expect(methods.majority?.attacked).toBeCloseTo(0.375, 12);
    expect(methods.minirep?.attacked).toBeCloseTo(0.625, 12);
  });

  it('computes paired loss, relative drop and retention advantage', () => {
    // majority loss: ((0.75-0.5) + (0.75-0.25)) / 2 = 0.375; drop 0.375/0.75 = 0.5
    expect(methods.majority?.loss).toBeCloseTo(0.375, 12);
    expect(methods.majority?.relativeDrop).toBeCloseTo(0.5, 12);
    expect(methods.majority?.retentionAdvantage).toBeCloseTo(0, 12);
    // minirep loss: (0 + 0.25) / 2 = 0.125; drop 0.125/0.75 = 1/6; retention 0.625/0.75 = 5/6, minus majority's 0.5 = 1/3
    expect(methods.minirep?.loss).toBeCloseTo(0.125, 12);
    expect(methods.minirep?.relativeDrop).toBeCloseTo(1 / 6, 12);
    expect(methods.minirep?.retentionAdvantage).toBeCloseTo(1 / 3, 12);
  });

  it('counts strict wins over attacked conditions only', () => {
    // RAND 0.75 > 0.5 and STRONG 0.5 > 0.25: minirep wins both; the clean tie counts for nobody.
    expect(methods.minirep?.strictWins).toBe(2);
    expect(methods.majority?.strictWins).toBe(0);
  });

  it('computes CF-Harm as right-when-clean, wrong-when-attacked', () => {
    // majority RAND: task 2 flips → 1/4; STRONG: tasks 1, 2 flip → 2/4; mean 0.375
    expect(methods.majority?.cfHarm).toBeCloseTo(0.375, 12);
    // minirep RAND: none; STRONG: task 2 flips → 1/4; mean 0.125
    expect(methods.minirep?.cfHarm).toBeCloseTo(0.125, 12);
  });

  it('averages PoolExp, PayloadHit and NextExcl per condition, then over conditions', () => {
    // majority PoolExp 1.2/4 = 0.3 in both; minirep 0.4/4 = 0.1 and 0.2/2 = 0.1
    expect(methods.majority?.poolExp).toBeCloseTo(0.3, 12);
    expect(methods.minirep?.poolExp).toBeCloseTo(0.1, 12);
    // PayloadHit: majority (1/4 + 3/4)/2 = 0.5; minirep (0 + 2/4)/2 = 0.25
    expect(methods.majority?.payloadHit).toBeCloseTo(0.5, 12);
    expect(methods.minirep?.payloadHit).toBeCloseTo(0.25, 12);
    // NextExcl: minirep (6/9 + 3/9)/2 = 0.5
    expect(methods.minirep?.nextExcl).toBeCloseTo(0.5, 12);
    expect(methods.majority?.nextExcl).toBe(0);
  });

  it('leaves clean rows without attack metrics and byAttack per attack', () => {
    const clean = rows.find((row) => row.attack === 'clean' && row.method === 'majority');
    expect(clean).toMatchObject({ poolExp: null, payloadHit: null, nextExcl: null, loss: 0, cfHarm: 0 });
    expect(methods.minirep?.byAttack).toEqual({ RAND: 0.75, STRONG: 0.5 });
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
      scores: Object.fromEntries(keys.filter((key): key is string => key !== null).map((key) => [key, { exact: key === reference ? 1 : 0, f1: key === reference ? 1 : 0 }])),
    });
    const prepared: PreparedReplay = {
      schemaVersion: 1,
      agents: [{ id: 'x', model: 'x' }, { id: 'y', model: 'y' }, { id: 'z', model: 'z' }],
      accuracy: [0, 0, 0],
      tasks: [task('t1', '1', ['1', '2', '2']), task('t2', '5', ['5', '5', null]), task('t3', '9', ['8', '7', '6'])],
    };
    // coverage: t1 (x), t2 (x, y) → 2/3; plurality: t1 '2' wrong, t2 '5' right, t3 three-way tie → '6' (sorts first) wrong → 1/3;
    // best single: x right on t1, t2 → 2/3.
    expect(computeLimits(prepared, createDefaultAnswerOps())).toEqual({ coverage: 2 / 3, majorityAll: 1 / 3, bestSingle: 2 / 3, bestSingleAgent: 'x' });
  });
});
