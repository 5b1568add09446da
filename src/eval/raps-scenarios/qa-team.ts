import type { Agent } from '../../agents/agent.js';
import { createSimulatedAgent, type SimulatedProfile } from '../../agents/simulated-agent.js';
import { createSimulationWorld, type SimulationWorld } from '../../agents/simulation-world.js';
import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { generateTasks } from '../../tasks/generate-tasks.js';

/** Standing intents a question-answering agent may start from (one per agent, cycling). */
export const qaIntents: readonly string[] = [
  'solving linear equations for x and checking the final numeric answer',
  'sums and mixed arithmetic operations with integers, verified step by step',
  'products, powers and arithmetic series; I want worked solutions with a boxed final answer',
  'fraction sums and rational answers in lowest terms',
  'systems of two linear equations and substitution checks',
  'double-checking other agents final answers to arithmetic word problems',
  'step by step derivations with a boxed final answer for algebra problems',
  'numeric results of multiplication and division problems',
];

/** A simulated question-answering team over built-in arithmetic and algebra tasks. */
export interface QaTeam {
  /** Simulated agents in roster order: honest first, the adversaries last. */
  readonly agents: readonly Agent[];
  /** Identities of the agents, aligned with `agents` (three model families, so clone groups exist). */
  readonly identities: readonly AgentIdentity[];
  /** Ids of the adversarial agents (the last `adversaries` of the roster). */
  readonly adversaries: readonly AgentId[];
  /** Ids of the honest agents, in roster order. */
  readonly honest: readonly AgentId[];
  /** Initial subscription (standing intent) text per agent. */
  readonly subscriptions: Readonly<Record<AgentId, string>>;
  /** Generated tasks, in order. */
  readonly tasks: readonly Task[];
  /** Simulation world holding each task's hidden truth (e.g. for `isCorrect`). */
  readonly world: SimulationWorld;
}

const knownQaTeamOptions = defineOptionKeys<Parameters<typeof buildQaTeam>[0]>()([
  'size',
  'adversaries',
  'seed',
  'taskCount',
  'judgeAccuracy',
  'skillLow',
  'skillHigh',
]);

/**
 * Builds `size` simulated agents (the last `adversaries` push one coordinated wrong payload per task
 * and audit in their coalition's favour), the built-in task generator's first `taskCount` tasks and
 * one standing intent per agent. Everything derives from `seed`, so another process builds the same team.
 *
 * @example
 * const team = buildQaTeam({ size: 5, adversaries: 3, seed: 2027, taskCount: 30 });
 */
export function buildQaTeam(options: {
  size: number;
  adversaries: number;
  seed: number;
  taskCount: number;
  judgeAccuracy?: number;
  skillLow?: number;
  skillHigh?: number;
}): QaTeam {
  assertKnownOptions('', options, knownQaTeamOptions, 'buildQaTeam');
  const { size, adversaries, seed, taskCount, judgeAccuracy = 0.85, skillLow = 0.7, skillHigh = 0.9 } = options;
  assertInteger('size', size, 2, 10_000);
  assertInteger('adversaries', adversaries, 0, size - 1);
  assertInteger('taskCount', taskCount, 1, 100_000);
  const referenced = generateTasks({ count: taskCount, seed: deriveSeed(seed, 'raps-tasks') });
  const world = createSimulationWorld({ tasks: referenced, seed });
  const rng = createRng(deriveSeed(seed, 'raps-team', size));
  const width = String(size).length;
  const identities: AgentIdentity[] = [];
  const agents: Agent[] = [];
  const subscriptions: Record<AgentId, string> = {};
  const honest: AgentId[] = [];
  const adversarial: AgentId[] = [];
  for (let index = 0; index < size; index++) {
    const isAdversary = index >= size - adversaries;
    const id = `${isAdversary ? 'adv' : 'agent'}-${String(index + 1).padStart(width, '0')}`;
    // Three model families, so clone groups exist.
    const identity: AgentIdentity = { id, model: ['atlas', 'nimbus', 'orca'][index % 3] as string };
    const profile: SimulatedProfile = {
      skill: skillLow + (skillHigh - skillLow) * rng(),
      judgeAccuracy,
      conformity: 0.3,
      ...(isAdversary ? { adversary: { strategy: 'payload', claimAgreement: true } } : {}),
    };
    identities.push(identity);
    agents.push(createSimulatedAgent({ identity, profile, world, seed }));
    subscriptions[id] = qaIntents[index % qaIntents.length] as string;
    (isAdversary ? adversarial : honest).push(id);
  }
  return {
    agents,
    identities,
    adversaries: adversarial,
    honest,
    subscriptions,
    tasks: referenced.map((item) => item.task),
    world,
  };
}
