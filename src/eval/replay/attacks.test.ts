import { describe, expect, it } from 'vitest';
import { answersEquivalent } from '../../core/answers/answers.js';
import { generateReplayFixture } from './fixture.js';
import { adaptActive, onOffActive, planAttack, plainNumber } from './attacks.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { prepareReplay } from './prepare.js';
import type { AttackName, PreparedTask } from './types.js';
import { attackNames } from './types.js';

const ops = createDefaultAnswerOps();
const { prepared } = prepareReplay({ dataset: generateReplayFixture({ seed: 11 }), ops, seed: 5, tasks: 60 });
const team = prepared.agents.slice(0, 10).map((agent) => agent.id);
const attackers = [team[0], team[4], team[9]] as string[];
const honestOf = (task: PreparedTask) => Object.fromEntries(team.map((agent) => [agent, task.keys[prepared.agents.findIndex((candidate) => candidate.id === agent)] ?? null]));
const plan = (attack: AttackName, taskIndex: number, weights?: Record<string, number>) => {
  const task = prepared.tasks[taskIndex] as PreparedTask;
  return planAttack({ attack, seed: 9, conditionId: `c/${attack}`, taskIndex, task, team, attackers, honest: honestOf(task), ops, ...(weights ? { weights } : {}) });
};

describe('attacks', () => {
  it('never propose a payload equivalent to the reference, for every attack and task', () => {
    for (const attack of attackNames) {
      prepared.tasks.forEach((task, taskIndex) => {
        const result = plan(attack, taskIndex);
        for (const payload of Object.values(result.payloads)) {
          expect(answersEquivalent(task.kind, payload, task.reference), `${attack} task ${taskIndex}: ${payload} vs ${task.reference}`).toBe(false);
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
      const expected = [...counts.entries()].filter(([, count]) => count === top).map(([key]) => key).sort()[0];
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

  it('BOUND proposes an off-by-one or boundary value around the reference', () => {
    prepared.tasks.forEach((task, taskIndex) => {
      const reference = plainNumber(task.reference) as number;
      for (const payload of Object.values(plan('BOUND', taskIndex).payloads)) {
        expect([reference + 1, reference - 1, 0, 1, reference + 2, reference - 2]).toContain(plainNumber(payload));
      }
    });
  });

  it('ONOFF is honest before task 30, then on 5 tasks and off 5', () => {
    expect(Array.from({ length: 30 }, (_, index) => onOffActive(index)).some(Boolean)).toBe(false);
    // 30..34 on, 35..39 off, 40..44 on.
    expect([30, 34, 35, 39, 40, 44, 45].map(onOffActive)).toEqual([true, true, false, false, true, true, false]);
    expect(plan('ONOFF', 12).active).toBe(false);
    expect(Object.keys(plan('ONOFF', 31).payloads).sort()).toEqual(attackers.slice().sort());
  });

  it('ADAPT attacks only while the attackers weigh at least as much as the honest members', () => {
    const equal = Object.fromEntries(team.map((agent) => [agent, 0.1]));
    const low = Object.fromEntries(team.map((agent) => [agent, attackers.includes(agent) ? 0.02 : 0.134]));
    // Means: attackers 0.02 < honest 0.134 → inactive; equal split → active.
    expect(adaptActive(low, team, attackers)).toBe(false);
    expect(adaptActive(equal, team, attackers)).toBe(true);
    expect(plan('ADAPT', 3, low)).toEqual({ active: false, payloads: {} });
    expect(plan('ADAPT', 3, equal).active).toBe(true);
  });

  it('works on choice tasks: letters within the options, never the reference', () => {
    const task: PreparedTask = { id: 'c1', kind: 'choice', prompt: '', reference: 'C', options: 4, keys: ['C', 'A', 'B', 'C'], texts: ['', '', '', ''], present: [true, true, true, true], scores: { C: { exact: 1, f1: 1 }, A: { exact: 0, f1: 0 }, B: { exact: 0, f1: 0 } } };
    for (const attack of attackNames) {
      for (let taskIndex = 30; taskIndex < 40; taskIndex++) {
        const result = planAttack({ attack, seed: 1, conditionId: 'x', taskIndex, task, team: ['p', 'q', 'r', 's'], attackers: ['p', 's'], honest: { p: 'C', q: 'A', r: 'B', s: 'C' }, ops });
        for (const payload of Object.values(result.payloads)) expect(['A', 'B', 'D']).toContain(payload);
      }
    }
  });
});
