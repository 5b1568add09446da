import type { Agent } from '../../agents/agent.js';
import { createSimulatedAgent, simulatedAccuracy, type SimulatedProfile } from '../../agents/simulated-agent.js';
import { createSimulationWorld, type SimulationWorld } from '../../agents/simulation-world.js';
import type { AgentId } from '../../core/agent-identity.js';
import type { Task } from '../../core/task.js';
import { generateTasks } from '../../tasks/generate-tasks.js';

/** One simulated pool member: its capability profile and price are hidden from the protocol. */
export interface SimulatedMember {
  /** Agent id, unique in the pool. */
  readonly id: AgentId;
  /** Accuracy at difficulty 0.5 (the simulator's `skill`). */
  readonly skill: number;
  /** Price per call. @default 0 */
  readonly cost?: number;
  /** Probability that its verdicts as a rater are right. @default 0.8 */
  readonly judgeAccuracy?: number;
  /** Wraps the simulated agent (e.g. a colluding rater). */
  readonly wrap?: (agent: Agent) => Agent;
}

/** A generated task set with a simulated pool and the ground truth the experiments score against. */
export interface SimulatedSetting {
  /** Simulated agents, one per member, in member order. */
  readonly pool: Agent[];
  /** Generated tasks in round order. */
  readonly tasks: Task[];
  /** The simulation world holding each task's hidden truth (e.g. for `isCorrect`). */
  readonly world: SimulationWorld;
  /** Expected accuracy of each agent over the task set: mean of p(d) over the tasks' difficulties. */
  readonly trueAccuracy: Record<AgentId, number>;
  /** Price per call of each agent, ≥ 0 (0 when the member gave none). */
  readonly costs: Record<AgentId, number>;
}

/**
 * Builds generated tasks and a pool of simulated agents, each its own model (no clone groups), so
 * the DRF experiments share one setup. Labels (skill, accuracy) go only into `trueAccuracy`, never
 * to the agents' identities or the protocol.
 */
export function buildSimulatedSetting({
  members,
  taskCount,
  seed,
}: {
  members: readonly SimulatedMember[];
  taskCount: number;
  seed: number;
}): SimulatedSetting {
  const referenced = generateTasks({ count: taskCount, seed, idPrefix: `drf-${seed}` });
  const world = createSimulationWorld({ tasks: referenced, seed });
  const tasks = referenced.map((item) => item.task);
  const pool = members.map((member) => {
    const profile: SimulatedProfile = { skill: member.skill, judgeAccuracy: member.judgeAccuracy ?? 0.8 };
    const agent = createSimulatedAgent({
      identity: { id: member.id, model: `model-${member.id}`, cost: member.cost ?? 0 },
      profile,
      world,
      seed,
    });
    return member.wrap ? member.wrap(agent) : agent;
  });
  const trueAccuracy = Object.fromEntries(
    members.map((member) => [
      member.id,
      tasks.reduce((sum, task) => sum + simulatedAccuracy({ skill: member.skill }, task.difficulty ?? 0.5), 0) /
        tasks.length,
    ]),
  );
  const costs = Object.fromEntries(members.map((member) => [member.id, member.cost ?? 0]));
  return { pool, tasks, world, trueAccuracy, costs };
}

/**
 * Wraps an agent into a colluding rater: it rates the proposals of its `partners` 1.0 and every
 * other agent's 0.0, whatever they say; proposing is unchanged.
 */
export function colludingRater(agent: Agent, partners: readonly AgentId[]): Agent {
  const allies = new Set(partners);
  return {
    ...agent,
    identity: agent.identity,
    kind: agent.kind,
    propose: (request) => agent.propose(request),
    revise: (request) => agent.revise(request),
    audit: (request) => agent.audit(request),
    refineSubscription: (request) => agent.refineSubscription(request),
    async rate({ task, proposal }) {
      const ally = allies.has(proposal.agentId);
      return {
        value: {
          rater: agent.identity.id,
          ratee: proposal.agentId,
          taskId: task.id,
          score: ally ? 1 : 0,
          reason: ally ? 'colluding partner' : 'not a partner',
        },
        usage: { inputTokens: 0, outputTokens: 0, cost: 0, cached: false },
      };
    },
  };
}
