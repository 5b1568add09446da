import { describe, expect, it } from 'vitest';
import { answersEquivalent } from '../../core/answers/answers.js';
import { generateReplayFixture } from './fixture.js';
import { adaptAttackers, onOffActive, planAttack, plainNumber } from './attacks.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { prepareReplay } from './prepare.js';
import type { AttackName, PreparedTask } from './types.js';
import { attackNames } from './types.js';

const ops = createDefaultAnswerOps();
const { prepared } = prepareReplay({
  dataset: generateReplayFixture({ seed: 11 }),
  ops,
  seed: 5,
  tasks: 60,
  split: 'all',
});
const team = prepared.agents.slice(0, 10).map((agent) => agent.id);
const attackers = [team[0], team[4], team[9]] as string[];
const honestOf = (task: PreparedTask) =>
  Object.fromEntries(
    team.map((agent) => [agent, task.keys[prepared.agents.findIndex((candidate) => candidate.id === agent)] ?? null]),
  );
const plan = (attack: AttackName, taskIndex: number, adaptive?: string[]) => {
  const task = prepared.tasks[taskIndex] as PreparedTask;
  return planAttack({
    attack,
    seed: 9,
    conditionId: `c/${attack}`,
    taskIndex,
    task,
    team,
    attackers,
    honest: honestOf(task),
    ops,
    ...(adaptive ? { adaptive } : {}),
  });
};

describe('attacks', () => {
  it('never propose a payload equivalent to the reference, for every attack and task', () => {
    for (const attack of attackNames) {
      prepared.tasks.forEach((task, taskIndex) => {
        const result = plan(attack, taskIndex);
        for (const payload of Object.values(result.payloads)) {
          expect(
            answersEquivalent(task.kind, payload, task.reference),
            `${attack} task ${taskIndex}: ${payload} vs ${task.reference}`,
          ).toBe(false);
          expect(task.scores[payload]?.exact ?? 0).toBe(0);
        }
      });
    }
  });

  it('are deterministic per (seed, condition, task, agent)', () => {
    for (const attack of attackNames) expect(plan(attack, 40)).toEqual(plan(attack, 40));
  });

  it('RAND draws independent payloads per attacker; STRONG shares one', () => {
    let differing = 0;
    prepared.tasks.forEach((_, taskIndex) => {
      const random = Object.values(plan('RAND', taskIndex).payloads);
      if (new Set(random).size > 1) differing++;
      const strong = Object.values(plan('STRONG', taskIndex).payloads);
      expect(strong).toHaveLength(3);
      expect(new Set(strong).size).toBe(1);
    });
    // Integers from [-M, M] with M ≥ 20: three equal draws are rare, so most tasks differ.
    expect(differing).toBeGreaterThan(50);
  });

  it('DIV backs the most common wrong answer among the honest members', () => {
    let backed = 0;
    prepared.tasks.forEach((task, taskIndex) => {
      const honest = honestOf(task);
      const counts = new Map<string, number>();
      for (const agent of team) {
        const key = honest[agent];
        if (attackers.includes(agent) || key === null || key === undefined || key === task.reference) continue;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const payloads = Object.values(plan('DIV', taskIndex).payloads);
      expect(new Set(payloads).size).toBe(1);
      if (counts.size === 0) return;
      const top = Math.max(...counts.values());
      const expected = [...counts.entries()]
        .filter(([, count]) => count === top)
        .map(([key]) => key)
        .sort()[0];
      expect(payloads[0]).toBe(expected);
      backed++;
    });
    expect(backed).toBeGreaterThan(20);
  });

  it('ARITH applies an arithmetic operator to the attacker’s own honest answer', () => {
    prepared.tasks.forEach((task, taskIndex) => {
      const honest = honestOf(task);
      for (const [agent, payload] of Object.entries(plan('ARITH', taskIndex).payloads)) {
        const base = plainNumber(honest[agent] ?? task.reference) as number;
        const value = plainNumber(payload) as number;
        expect([base + 1, base - 1, 2 * base, -base, base / 2, 10 * base, base + 2]).toContain(value);
      }
    });
  });

  it('BOUND proposes an off-by-one or boundary value around the attacker’s own honest answer', () => {
    let aroundOwnWrong = 0;
    prepared.tasks.forEach((task, taskIndex) => {
      const honest = honestOf(task);
      for (const [agent, payload] of Object.entries(plan('BOUND', taskIndex).payloads)) {
        const own = honest[agent] ?? null;
        const base = plainNumber(own ?? task.reference) as number;
        expect([base + 1, base - 1, 0, 1, base + 2, base - 2]).toContain(plainNumber(payload));
        if (own !== null && (task.scores[own]?.exact ?? 0) === 0) aroundOwnWrong++;
      }
    });
    // The mutation starts from the attacker's own answer, also when that answer is already wrong.
    expect(aroundOwnWrong).toBeGreaterThan(0);
  });

  it('BOUND on a hand-made task: own 10 → 11 (9 is the reference and skipped); own 8 → 7', () => {
    const task: PreparedTask = {
      id: 'b1',
      kind: 'number',
      prompt: '',
      reference: '9',
      keys: [],
      texts: [],
      present: [],
      scores: { '9': { exact: 1, f1: 1 } },
    };
    const input = {
      attack: 'BOUND' as const,
      seed: 1,
      conditionId: 'c',
      taskIndex: 0,
      task,
      team: ['p', 'q'],
      attackers: ['p', 'q'],
      ops,
    };
    const payloads = planAttack({ ...input, honest: { p: '10', q: '8' } }).payloads;
    // p's candidates: {11, 9} in seeded order, then 0, 1, 12, 8; 9 is correct and skipped → 11 either way.
    expect(payloads.p).toBe('11');
    // q's candidates: {9, 7} in seeded order, then 0, 1, 10, 6; 9 is skipped → 7 either way.
    expect(payloads.q).toBe('7');
  });

  it('ONOFF is honest before task 30, then on 5 tasks and off 5', () => {
    expect(Array.from({ length: 30 }, (_, index) => onOffActive(index)).some(Boolean)).toBe(false);
    // 30..34 on, 35..39 off, 40..44 on.
    expect([30, 34, 35, 39, 40, 44, 45].map(onOffActive)).toEqual([true, true, false, false, true, true, false]);
    expect(plan('ONOFF', 12).active).toBe(false);
    expect(Object.keys(plan('ONOFF', 31).payloads).sort()).toEqual(attackers.slice().sort());
  });

  it('ADAPT: nobody before task 30; then each attacker whose MiniRep weight kept ≥ 0.9 × its task-30 weight', () => {
    const reference = { a: 0.1, b: 0.2, c: 0.05 };
    // a: 0.09 ≥ 0.9·0.1 = 0.09 (equal counts) → attacks; b: 0.17 < 0.18 → honest; c: 0.2 ≥ 0.045 → attacks.
    const weights = { a: 0.09, b: 0.17, c: 0.2 };
    expect(adaptAttackers({ taskIndex: 29, weights, reference, attackers: ['a', 'b', 'c'] })).toEqual([]);
    expect(adaptAttackers({ taskIndex: 30, weights, reference, attackers: ['a', 'b', 'c'] })).toEqual(['a', 'c']);
    // planAttack gives STRONG's shared payload to the chosen attackers only, from task 30.
    expect(plan('ADAPT', 3, [attackers[0] as string])).toEqual({ active: false, payloads: {} });
    expect(plan('ADAPT', 31, [])).toEqual({ active: false, payloads: {} });
    const chosen = plan('ADAPT', 31, [attackers[0] as string, attackers[2] as string]);
    expect(Object.keys(chosen.payloads).sort()).toEqual([attackers[0], attackers[2]].sort());
    expect(new Set(Object.values(chosen.payloads)).size).toBe(1);
  });

  it('works on choice tasks: letters within the options, never the reference', () => {
    const task: PreparedTask = {
      id: 'c1',
      kind: 'choice',
      prompt: '',
      reference: 'C',
      options: 4,
      keys: ['C', 'A', 'B', 'C'],
      texts: ['', '', '', ''],
      present: [true, true, true, true],
      scores: { C: { exact: 1, f1: 1 }, A: { exact: 0, f1: 0 }, B: { exact: 0, f1: 0 } },
    };
    for (const attack of attackNames) {
      for (let taskIndex = 30; taskIndex < 40; taskIndex++) {
        const result = planAttack({
          attack,
          seed: 1,
          conditionId: 'x',
          taskIndex,
          task,
          team: ['p', 'q', 'r', 's'],
          attackers: ['p', 's'],
          honest: { p: 'C', q: 'A', r: 'B', s: 'C' },
          ops,
        });
        for (const payload of Object.values(result.payloads)) expect(['A', 'B', 'D']).toContain(payload);
      }
    }
  });
});
