import type { AgentId } from '../../core/agent-identity.js';
import type { AnswerOps } from './answer-ops.js';
import { planAttack, sharedPayload, type AttackPlan } from './attacks.js';
import type { Condition, KeyScore, PreparedReplay, PreparedTask } from './types.js';

/**
 * The attack side of one condition, decided in advance: for every attack but ADAPT the plan of each
 * task (it does not depend on the defending method), for ADAPT the shared payload of each task (ADAPT
 * only decides per method whether to use it, from that method's weights).
 */
export type ConditionPlan =
  | { readonly kind: 'clean' }
  | { readonly kind: 'fixed'; readonly plans: readonly AttackPlan[] }
  | { readonly kind: 'adapt'; readonly payloads: readonly string[] };

/**
 * Every answer-kind decision the grid needs, computed once in the calling thread and shipped to the
 * workers as plain data: the attack plans of each condition, and the score of every payload key
 * that is not an honest key of its task. With it, replaying a condition is table lookups only (no
 * parsing, no equivalence), so worker threads neither load nor warm up the math engine.
 */
export interface GridPlan {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Per condition, aligned with `Condition.index`. */
  readonly conditions: readonly ConditionPlan[];
  /** Per sampled task, the score of each payload key missing from the task's honest `scores`. */
  readonly payloadScores: readonly ReadonlyMap<string, KeyScore>[];
}

/**
 * Plans the attacks of every condition of the grid and scores every payload, with `ops`. The result
 * is a pure function of its input (every draw is seeded per seed, condition, task and agent).
 *
 * @example
 * const plan = planGrid({ prepared, conditions: buildGrid(prepared.agents, 2027), seed: 2027, ops });
 */
export function planGrid({
  prepared,
  conditions,
  seed,
  ops,
}: {
  prepared: PreparedReplay;
  conditions: readonly Condition[];
  seed: number;
  ops: AnswerOps;
}): GridPlan {
  const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
  const payloadScores = prepared.tasks.map(() => new Map<string, KeyScore>());
  const note = (taskIndex: number, key: string) => {
    const task = prepared.tasks[taskIndex];
    const known = payloadScores[taskIndex];
    if (task === undefined || known === undefined || Object.hasOwn(task.scores, key) || known.has(key)) return;
    known.set(key, ops.score(task.kind, key, task.reference));
  };
  const plans: ConditionPlan[] = [];
  for (const condition of conditions) {
    if (condition.attack === null || condition.attackers.length === 0) {
      plans[condition.index] = { kind: 'clean' };
    } else if (condition.attack === 'ADAPT') {
      const payloads = prepared.tasks.map((task, taskIndex) => {
        const payload = sharedPayload({ seed, conditionId: condition.id, taskIndex, task, ops });
        note(taskIndex, payload);
        return payload;
      });
      plans[condition.index] = { kind: 'adapt', payloads };
    } else {
      const attack = condition.attack;
      // Only DIV, ARITH and BOUND read the honest keys: the other attacks get no team-sized record per task.
      const readsHonest = attack === 'DIV' || attack === 'ARITH' || attack === 'BOUND';
      const teamPositions = condition.team.map((agent) => position.get(agent) ?? -1);
      const honestOf = (task: PreparedTask): Record<AgentId, string | null> => {
        const honest: Record<AgentId, string | null> = {};
        if (readsHonest)
          condition.team.forEach((agent, member) => {
            honest[agent] = task.keys[teamPositions[member] as number] ?? null;
          });
        return honest;
      };
      const taskPlans = prepared.tasks.map((task, taskIndex) => {
        const honest = honestOf(task);
        const plan = planAttack({
          attack,
          seed,
          conditionId: condition.id,
          taskIndex,
          task,
          team: condition.team,
          attackers: condition.attackers,
          honest,
          ops,
        });
        for (const payload of Object.values(plan.payloads)) note(taskIndex, payload);
        return plan;
      });
      plans[condition.index] = { kind: 'fixed', plans: taskPlans };
    }
  }
  return { schemaVersion: 1, conditions: plans, payloadScores };
}
