import { describe, expect, it } from 'vitest';
import { planAttack, sharedPayload } from './attacks.js';
import { replayMethods } from './methods.js';
import { planGrid } from './plan-grid.js';
import { runCondition } from './run-condition.js';
import { threadCpuMs } from './_thread-cpu.js';
import { findCondition, prepareFixtureGrid } from '../../testing/_test-replay-grid.js';

describe('planGrid', () => {
  const { ops, prepared, conditions, settings } = prepareFixtureGrid({ fixtureSeed: 5, seed: 9, tasks: 40 });
  const plan = planGrid({ prepared, conditions, seed: 9, ops });

  it('holds, per condition, the same plans planAttack makes on the fly, and ADAPT’s shared payloads', () => {
    const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
    for (const id of [
      'all-strong/clean',
      'all-weak/W/RAND',
      '7s3w/R1/ARITH',
      'random/B/ONOFF',
      'all-strong/R2/ADAPT',
    ]) {
      const condition = findCondition(conditions, id);
      const entry = plan.conditions[condition.index];
      prepared.tasks.forEach((task, taskIndex) => {
        const honest = Object.fromEntries(
          condition.team.map((agent) => [agent, task.keys[position.get(agent) ?? -1] ?? null]),
        );
        if (condition.attack === null) expect(entry).toEqual({ kind: 'clean' });
        else if (condition.attack === 'ADAPT') {
          expect(entry?.kind).toBe('adapt');
          if (entry?.kind === 'adapt')
            expect(entry.payloads[taskIndex]).toBe(
              sharedPayload({ seed: 9, conditionId: condition.id, taskIndex, task, ops }),
            );
        } else {
          expect(entry?.kind).toBe('fixed');
          const direct = planAttack({
            attack: condition.attack,
            seed: 9,
            conditionId: condition.id,
            taskIndex,
            task,
            team: condition.team,
            attackers: condition.attackers,
            honest,
            ops,
          });
          if (entry?.kind === 'fixed') expect(entry.plans[taskIndex]).toEqual(direct);
        }
      });
    }
  });

  it('scores exactly the payload keys that are not honest keys of their task, with the kind’s scoring', () => {
    let scored = 0;
    plan.payloadScores.forEach((scores, taskIndex) => {
      const task = prepared.tasks[taskIndex];
      if (task === undefined) throw new Error('missing task');
      for (const [key, score] of scores) {
        scored++;
        expect(Object.hasOwn(task.scores, key)).toBe(false);
        expect(score).toEqual(ops.score(task.kind, key, task.reference));
      }
    });
    // Every attacked condition plans at least one payload per task it attacks, so some keys are new.
    expect(scored).toBeGreaterThan(0);
  });

  it('gives runCondition the same results with the plan and without ops as planning on the fly', () => {
    const methods = [replayMethods.minirep, replayMethods.drf, replayMethods.majority].map(
      (method) => method as NonNullable<typeof method>,
    );
    for (const id of ['7s3w/B/DIV', 'random/W/ADAPT', 'all-weak/R2/BOUND']) {
      const condition = findCondition(conditions, id);
      const planned = runCondition({ prepared, condition, methods, settings, plan });
      const onTheFly = runCondition({ prepared, condition, methods, settings: { ...settings, ops } });
      expect(planned).toEqual(onTheFly);
      expect(planned.runs.some((run) => run.payloadHitTasks > 0)).toBe(true);
    }
  });
});

describe('ADAPT: one plan per condition, chosen from MiniRep’s state', () => {
  const { ops, prepared, conditions, settings } = prepareFixtureGrid({ fixtureSeed: 5, seed: 9, tasks: 60 });
  const plan = planGrid({ prepared, conditions, seed: 9, ops });
  const pick = (...names: string[]) =>
    names.map((name) => replayMethods[name] as NonNullable<(typeof replayMethods)[string]>);

  it('applies the same active tasks to every method, with or without minirep among them, and none before task 30', () => {
    for (const id of ['all-strong/B/ADAPT', '7s3w/W/ADAPT', 'random/R1/ADAPT']) {
      const condition = findCondition(conditions, id);
      const withMiniRep = runCondition({
        prepared,
        condition,
        methods: pick('majority', 'minirep', 'beta'),
        settings,
        plan,
      });
      const shadow = runCondition({ prepared, condition, methods: pick('majority', 'beta'), settings, plan });
      const active = withMiniRep.runs[1]?.active ?? [];
      for (const run of [...withMiniRep.runs, ...shadow.runs]) expect(run.active).toEqual(active);
      expect(shadow.runs).toEqual([withMiniRep.runs[0], withMiniRep.runs[2]]);
      expect(active.slice(0, 30).every((value) => value === 0)).toBe(true);
      expect(active.slice(30).some((value) => value === 1)).toBe(true);
    }
  });

  it('starts ONOFF at task 30 too', () => {
    const condition = findCondition(conditions, 'all-strong/B/ONOFF');
    const [run] = runCondition({ prepared, condition, methods: pick('majority'), settings, plan }).runs;
    // 60 tasks: on at 30–34, 40–44, 50–54.
    expect(Array.from(run?.active ?? [])).toEqual(
      Array.from({ length: 60 }, (_, index) => (index >= 30 && (index - 30) % 10 < 5 ? 1 : 0)),
    );
  });
});

describe('threadCpuMs', () => {
  it('reads the calling thread’s CPU time on Linux, growing with busy work', () => {
    const before = threadCpuMs();
    if (process.platform !== 'linux') {
      expect(before).toBeUndefined();
      return;
    }
    const cpuStart = process.cpuUsage();
    let sink = 0;
    // Spin until the process has used 200 ms of CPU; this thread does nearly all of it.
    while (process.cpuUsage(cpuStart).user < 200_000)
      for (let index = 0; index < 10_000; index++) sink += Math.sqrt(index);
    const after = threadCpuMs();
    const processCpu = process.cpuUsage(cpuStart);
    expect(sink).toBeGreaterThan(0);
    expect(before).toBeGreaterThanOrEqual(0);
    // 10 ms ticks. V8's own threads (GC, compilers) take a share of the process's 200 ms that grows
    // with the machine's load (70 of 200 ms was seen in CI), so this thread's share is bounded loosely
    // from below and, as a part of the process, from above.
    const thread = (after ?? 0) - (before ?? 0);
    expect(thread).toBeGreaterThanOrEqual(30);
    expect(thread).toBeLessThanOrEqual((processCpu.user + processCpu.system) / 1000 + 20);
  });
});
