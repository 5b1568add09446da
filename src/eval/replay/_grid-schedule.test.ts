import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGridSchedule, type GridUnit } from './_grid-schedule.js';
import type { ReplayMethod } from './method.js';
import type { GridPlan } from './plan-grid.js';
import type { AttackName, Condition, ConditionResult, MethodRun } from './types.js';

const method = (name: string, family?: 'minirep' | 'baseline'): ReplayMethod => ({
  name,
  description: name,
  ...(family === undefined ? {} : { family }),
  create: () => {
    throw new Error('not replayed in these tests');
  },
});
const methods = [method('majority'), method('beta', 'baseline'), method('minirep', 'minirep'), method('drf')];

function grid(attacks: readonly (AttackName | null)[]): Condition[] {
  return attacks.map((attack, index) => ({
    index,
    id: `c${index}`,
    composition: 'all-strong',
    placement: attack === null ? null : 'B',
    attack,
    team: [],
    attackers: [],
  }));
}

// A unit's result as a worker would send it: one run per method the unit names, and an attack list
// (one entry per task; here one task) when the unit was asked to report ADAPT's attacks.
function resultOf(unit: GridUnit, missing = 7): ConditionResult {
  return {
    index: unit.index,
    missing,
    runs: unit.methods.map((name) => ({ method: name }) as MethodRun),
    ...(unit.reportAttacks ? { attacks: [{ active: true, payloads: { [`a${unit.index}`]: 'x' } }] } : {}),
  };
}

const plans = () => {
  const made: number[] = [];
  const plan = (index: number) => {
    made.push(index);
    return { index } as unknown as GridPlan;
  };
  return { made, plan };
};

function drain(take: (lane: number) => GridUnit | undefined, lane: number): GridUnit[] {
  const units: GridUnit[] = [];
  for (let unit = take(lane); unit !== undefined; unit = take(lane)) units.push(unit);
  return units;
}

describe('createGridSchedule', () => {
  it('hands out whole conditions in grid order with one lane', () => {
    const { plan } = plans();
    const schedule = createGridSchedule({ conditions: grid([null, 'RAND', 'ADAPT']), methods, lanes: 1, plan });
    const all = ['majority', 'beta', 'minirep', 'drf'];
    expect(drain(schedule.take, 0)).toEqual([
      { index: 0, methods: all },
      { index: 1, methods: all },
      { index: 2, methods: all },
    ]);
  });

  it('keeps conditions whole when every method is of one family, whatever the lanes', () => {
    const { plan } = plans();
    const schedule = createGridSchedule({
      conditions: grid([null, 'RAND']),
      methods: [method('majority'), method('beta')],
      lanes: 3,
      plan,
    });
    expect(schedule.take(2)).toEqual({ index: 0, methods: ['majority', 'beta'] });
    expect(schedule.take(0)).toEqual({ index: 1, methods: ['majority', 'beta'] });
    expect(schedule.take(1)).toBeUndefined();
  });

  it('gives the calling thread the minirep units, ADAPT first, and the workers the baselines', () => {
    const { plan } = plans();
    const schedule = createGridSchedule({ conditions: grid([null, 'ADAPT', 'DIV']), methods, lanes: 2, plan });
    const baselines = ['majority', 'beta', 'drf'];
    expect(drain(schedule.take, 0)).toEqual([
      { index: 1, methods: ['minirep'], reportAttacks: true },
      { index: 0, methods: ['minirep'] },
      { index: 2, methods: ['minirep'] },
      // Its own units handed out, lane 0 takes the workers'; ADAPT's waits for MiniRep's attacks.
      { index: 0, methods: baselines },
      { index: 2, methods: baselines },
    ]);
    expect(schedule.take(1)).toBeUndefined();
    const reported = resultOf({ index: 1, methods: ['minirep'], reportAttacks: true });
    expect(schedule.merge(reported)).toBeUndefined();
    expect(schedule.take(1)).toEqual({ index: 1, methods: baselines, attacks: reported.attacks });
    expect(schedule.take(1)).toBeUndefined();
  });

  it('hands a worker the ADAPT baselines as soon as their attacks are in, before its other units', () => {
    const { plan } = plans();
    const schedule = createGridSchedule({ conditions: grid(['RAND', 'ADAPT', 'DIV']), methods, lanes: 2, plan });
    const baselines = ['majority', 'beta', 'drf'];
    expect(schedule.take(1)).toEqual({ index: 0, methods: baselines });
    const driver = schedule.take(0) as GridUnit;
    expect(driver).toEqual({ index: 1, methods: ['minirep'], reportAttacks: true });
    schedule.merge(resultOf(driver));
    expect(schedule.take(1)).toMatchObject({ index: 1, methods: baselines });
    expect(schedule.take(1)).toEqual({ index: 2, methods: baselines });
  });

  it('lets a worker take the calling thread units once its own are handed out', () => {
    const { plan } = plans();
    const schedule = createGridSchedule({ conditions: grid([null, 'RAND']), methods, lanes: 2, plan });
    expect(drain(schedule.take, 1)).toEqual([
      { index: 0, methods: ['majority', 'beta', 'drf'] },
      { index: 1, methods: ['majority', 'beta', 'drf'] },
      { index: 0, methods: ['minirep'] },
      { index: 1, methods: ['minirep'] },
    ]);
  });

  it('plans a condition once, for its first unit, and forgets the plan after its last', () => {
    const { made, plan } = plans();
    const schedule = createGridSchedule({ conditions: grid([null, 'ADAPT']), methods, lanes: 2, plan });
    expect(schedule.planFor(0)).toEqual({ index: 0 });
    expect(schedule.planFor(1)).toEqual({ index: 1 });
    expect(schedule.planFor(0)).toEqual({ index: 0 });
    expect(made).toEqual([0, 1]);
    // Condition 0's two units are out, so a third request plans it again.
    schedule.planFor(0);
    expect(made).toEqual([0, 1, 0]);
    expect(() => schedule.planFor(5)).toThrow(/no condition 5/);
  });

  it('merges the units of a condition into one result with runs in report order and no attack list', () => {
    const { plan } = plans();
    const schedule = createGridSchedule({ conditions: grid(['RAND', 'ADAPT']), methods, lanes: 2, plan });
    expect(schedule.merge(resultOf({ index: 0, methods: ['majority', 'beta', 'drf'] }))).toBeUndefined();
    const merged = schedule.merge(resultOf({ index: 0, methods: ['minirep'] }));
    expect(merged).toEqual({
      index: 0,
      missing: 7,
      runs: ['majority', 'beta', 'minirep', 'drf'].map((method) => ({ method })),
    });
    expect(schedule.merge(resultOf({ index: 1, methods: ['minirep'], reportAttacks: true }))).toBeUndefined();
    const adapt = schedule.merge(resultOf({ index: 1, methods: ['majority', 'beta', 'drf'] }));
    expect(adapt).toEqual({
      index: 1,
      missing: 7,
      runs: ['majority', 'beta', 'minirep', 'drf'].map((method) => ({ method })),
    });
    const single = createGridSchedule({ conditions: grid(['ADAPT']), methods, lanes: 1, plan });
    const whole = resultOf({ index: 0, methods: ['majority', 'beta', 'minirep', 'drf'] });
    expect(single.merge(whole)).toBe(whole);
    expect(() => schedule.merge(resultOf({ index: 9, methods: ['minirep'] }))).toThrow(/condition 9/);
  });

  it('covers every (condition, method) exactly once and merges each condition once, in any lane order', () => {
    const attack = fc.constantFrom<AttackName | null>(null, 'RAND', 'STRONG', 'DIV', 'ADAPT');
    fc.assert(
      fc.property(
        fc.array(attack, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.subarray(methods, { minLength: 1 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        (attacks, lanes, chosen, laneDraws) => {
          const { made, plan } = plans();
          const schedule = createGridSchedule({ conditions: grid(attacks), methods: chosen, lanes, plan });
          const covered = new Map<string, number>();
          const merged: ConditionResult[] = [];
          let draw = 0;
          for (;;) {
            const lane = (laneDraws[draw++ % Math.max(1, laneDraws.length)] ?? 0) % lanes;
            const unit = schedule.take(lane) ?? schedule.take(0);
            if (unit === undefined) break;
            schedule.planFor(unit.index);
            // An ADAPT unit without MiniRep replays the attacks its condition's MiniRep unit reported.
            if (unit.attacks !== undefined)
              expect(unit.attacks).toEqual(resultOf({ ...unit, reportAttacks: true }).attacks);
            for (const name of unit.methods) {
              const key = `${unit.index}/${name}`;
              covered.set(key, (covered.get(key) ?? 0) + 1);
            }
            const result = schedule.merge(resultOf(unit));
            if (result !== undefined) merged.push(result);
          }
          const names = chosen.map((entry) => entry.name);
          expect(covered.size).toBe(attacks.length * names.length);
          expect([...covered.values()].every((count) => count === 1)).toBe(true);
          expect(made).toEqual([...new Set(made)]);
          expect(made.length).toBe(attacks.length);
          expect(merged.map((result) => result.index).sort((left, right) => left - right)).toEqual(
            attacks.map((_, index) => index),
          );
          for (const result of merged) {
            expect(result.runs.map((run) => run.method)).toEqual(names);
            expect(result.attacks).toBeUndefined();
          }
        },
      ),
    );
  });
});
