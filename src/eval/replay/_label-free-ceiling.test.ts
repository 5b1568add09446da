import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateReplayFixture } from './fixture.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import {
  attackedReferences,
  cappedSupport,
  conditionAnswers,
  fitOneCoin,
  logOddsWeight,
  referenceWins,
  winner,
  type AttackedReferenceRow,
  type TeamAnswers,
} from './_label-free-ceiling.js';
import type { Condition, PreparedReplay, PreparedTask } from './types.js';

describe('logOddsWeight', () => {
  it('is clamp(ln(p / ((1 − p)·q)), 0, 6)', () => {
    // 0.8 / 0.2 = 4 -> ln 4 = 1.386294
    expect(logOddsWeight(0.8, 1)).toBeCloseTo(1.386294, 6);
    // 0.3 / (0.7 · 0.15) = 2.857143 -> ln = 1.049822
    expect(logOddsWeight(0.3, 0.15)).toBeCloseTo(1.049822, 6);
    // 0.4 / 0.6 < 1 -> negative log -> 0
    expect(logOddsWeight(0.4, 1)).toBe(0);
    // p = 1 is read as 0.999: ln 999 = 6.9 -> 6
    expect(logOddsWeight(1, 1)).toBe(6);
  });
});

describe('cappedSupport and winner', () => {
  const team = { agents: ['a', 'b', 'c'], groups: ['g', 'g', 'h'] };

  it('counts a clone beyond the strongest one at ε = 0.1', () => {
    // x: a (2) and its clone b (1) -> 2 + 0.1 · 1 = 2.1; y: c alone -> 3
    const support = cappedSupport(team, ['x', 'x', 'y'], [2, 1, 3]);
    expect(support.get('x')).toBeCloseTo(2.1, 12);
    expect(support.get('y')).toBe(3);
    expect(winner(support)).toBe('y');
  });

  it('skips missing answers and breaks exact ties by key order', () => {
    const support = cappedSupport(team, [null, 'z', 'm'], [5, 1, 1]);
    expect([...support.keys()]).toEqual(['z', 'm']);
    expect(winner(support)).toBe('m');
    expect(winner(new Map())).toBeNull();
  });
});

describe('fitOneCoin', () => {
  it('matches one EM step worked by hand', () => {
    // Start p = 0.6, q = 0.5 -> w = ln(0.6 / (0.4 · 0.5)) = ln 3. One task, three groups, keys x x y:
    // s(x) = 2 ln 3 -> e^s = 9, s(y) = ln 3 -> 3, total 1 + 9 + 3 = 13.
    // p_a = p_b = (1 + 9/13) / 3 = 22/39, p_c = (1 + 3/13) / 3 = 16/39.
    const team: TeamAnswers = { agents: ['a', 'b', 'c'], groups: ['g1', 'g2', 'g3'], answers: [['x', 'x', 'y']] };
    const [a, b, c] = fitOneCoin(team, { collision: 0.5, iterations: 1 });
    expect(a).toBeCloseTo(22 / 39, 12);
    expect(b).toBeCloseTo(22 / 39, 12);
    expect(c).toBeCloseTo(16 / 39, 12);
  });

  it('starts from per-member accuracies when given a list', () => {
    // Start p = (0.75, 0.6, 0.6), q = 0.5 -> w = (ln 6, ln 3, ln 3). Keys x x y: s(x) = ln 6 + ln 3 -> 18,
    // s(y) -> 3, total 1 + 18 + 3 = 22. p_a = (1 + 18/22) / 3 = 20/33, p_c = (1 + 3/22) / 3 = 25/66.
    const team: TeamAnswers = { agents: ['a', 'b', 'c'], groups: ['g1', 'g2', 'g3'], answers: [['x', 'x', 'y']] };
    const [a, , c] = fitOneCoin(team, { collision: 0.5, iterations: 1, start: [0.75, 0.6, 0.6] });
    expect(a).toBeCloseTo(20 / 33, 12);
    expect(c).toBeCloseTo(25 / 66, 12);
  });

  it('gives a member without an answer only the prior', () => {
    // The task adds 1 to the denominator and nothing to the numerator: (1 + 0) / (2 + 1) = 1/3.
    const team: TeamAnswers = { agents: ['a', 'b'], groups: ['g1', 'g2'], answers: [[null, 'x']] };
    expect(fitOneCoin(team, { collision: 0.5, iterations: 1 })[0]).toBeCloseTo(1 / 3, 12);
  });

  it('refuses a collision rate outside (0, 1.5]', () => {
    const team: TeamAnswers = { agents: ['a'], groups: ['g'], answers: [['x']] };
    expect(() => fitOneCoin(team, { collision: 0 })).toThrow(/collision must be in \(0, 1\.5\], got 0/);
  });

  it('does not depend on the order of the tasks or on the names of the answers', () => {
    const keys = fc.constantFrom('1', '2', '3', null);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keys, keys, keys, keys), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 1000 }),
        (answers, shift) => {
          const team: TeamAnswers = { agents: ['a', 'b', 'c', 'd'], groups: ['g', 'g', 'h', 'k'], answers };
          const fitted = fitOneCoin(team, { collision: 0.3, iterations: 10 });
          const reversed = fitOneCoin(
            { ...team, answers: answers.slice().reverse() },
            { collision: 0.3, iterations: 10 },
          );
          const renamed = fitOneCoin(
            {
              ...team,
              answers: answers.map((row) => row.map((key) => (key === null ? null : `v${Number(key) + shift}`))),
            },
            { collision: 0.3, iterations: 10 },
          );
          fitted.forEach((value, index) => {
            expect(reversed[index]).toBeCloseTo(value, 9);
            expect(renamed[index]).toBeCloseTo(value, 9);
          });
        },
      ),
      { seed: 9, numRuns: 100 },
    );
  });
});

describe('conditionAnswers', () => {
  const task = (id: string, keys: (string | null)[]): PreparedTask => ({
    id,
    kind: 'math',
    prompt: '',
    reference: '1',
    keys,
    texts: keys.map((key) => key ?? ''),
    present: keys.map(() => true),
    scores: {},
  });
  const prepared: PreparedReplay = {
    schemaVersion: 1,
    agents: [
      { id: 'a', model: 'm1' },
      { id: 'b', model: 'm2' },
      { id: 'c', model: 'm3' },
    ],
    accuracy: [0.9, 0.8, 0.7],
    tasks: [task('t0', ['1', '2', '1']), task('t1', ['5', null, '6'])],
  };
  // Team c, b, a (not pool order) with b attacking: a payload on t0, honest on t1.
  const condition: Condition = {
    index: 3,
    id: 'x/B/STRONG',
    composition: 'all-strong',
    placement: 'B',
    attack: 'STRONG',
    team: ['c', 'b', 'a'],
    attackers: ['b'],
  };
  const plan = {
    kind: 'fixed' as const,
    plans: [
      { active: true, payloads: { b: '9' } },
      { active: false, payloads: {} },
    ],
  };

  it("puts each attacker's payload where the plan has one and its honest key elsewhere, in team order", () => {
    expect(conditionAnswers(prepared, condition, plan, { dropAttackers: false })).toEqual({
      agents: ['c', 'b', 'a'],
      groups: ['m3', 'm2', 'm1'],
      answers: [
        ['1', '9', '1'],
        ['6', null, '5'],
      ],
    });
  });

  it('leaves every attacker out on every task when asked', () => {
    expect(conditionAnswers(prepared, condition, plan, { dropAttackers: true }).answers).toEqual([
      ['1', null, '1'],
      ['6', null, '5'],
    ]);
  });
});

describe('referenceWins', () => {
  const row = (
    condition: string,
    attack: 'RAND' | 'DIV',
    oracle: number[],
    honestOnline: number[],
  ): AttackedReferenceRow => ({
    seed: 1,
    condition,
    composition: 'all-strong',
    attack,
    oracle,
    honestOnline,
  });
  const rows = [row('p', 'RAND', [0.8, 0.7], [0.75, 0.6]), row('q', 'DIV', [0.5, 0.6], [0.61, 0.6])];
  const best: Record<string, number> = { p: 0.75, q: 0.6 };

  it('counts a setting only when it is strictly above the best baseline', () => {
    // p: oracle 0.8 > 0.75 (win), 0.7 (no); online 0.75 = 0.75 (a tie is no win), 0.6 (no).
    // q: oracle 0.5 (no), 0.6 = 0.6 (no); online 0.61 > 0.6 (win), 0.6 (no).
    const { all, byAttack } = referenceWins(rows, (_, condition) => best[condition]);
    expect(all).toEqual({ conditions: 2, oracle: [1, 0], honestOnline: [1, 0] });
    expect(byAttack.get('RAND')).toEqual({ conditions: 1, oracle: [1, 0], honestOnline: [0, 0] });
    expect(byAttack.get('DIV')).toEqual({ conditions: 1, oracle: [0, 0], honestOnline: [1, 0] });
  });

  it('refuses a condition without a baseline accuracy, naming it', () => {
    expect(() => referenceWins(rows, (_, condition) => (condition === 'p' ? 0.5 : undefined))).toThrow(
      /seed 1, condition q/,
    );
  });
});

describe('attackedReferences', () => {
  it('gives the honest members the same online vote under every attack of one team and placement', () => {
    const rows = attackedReferences({
      dataset: generateReplayFixture({ seed: 5, tasks: 12 }),
      ops: createDefaultAnswerOps(),
      seeds: [3],
      tasks: 12,
      split: 'all',
      compositions: ['all-strong', 'random'],
      emCollisions: [0.3],
    });
    // 2 compositions × 4 placements × 6 attacks (ADAPT left out).
    expect(rows).toHaveLength(48);
    for (const reference of rows) {
      const placement = reference.condition.split('/').slice(0, 2).join('/');
      const first = rows.find((other) => other.condition.startsWith(`${placement}/`));
      expect(reference.honestOnline).toEqual(first?.honestOnline);
      for (const value of [...reference.oracle, ...reference.honestOnline]) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
      }
    }
  });
});
