import { createDemoTeam, demoTeam, type DemoMember } from '../../agents/demo-team.js';
import { createSimulationWorld } from '../../agents/simulation-world.js';
import type { AgentId } from '../../core/agent-identity.js';
import { generateTasks } from '../../tasks/generate-tasks.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { createDebateMethod, debateMethodNames, type DebateMethodName } from '../../protocols/debate/methods.js';
import {
  runDebateSession,
  type DebateProgress,
  type DebateSessionStore,
} from '../../protocols/debate/run-debate-session.js';

/** The two conditions every method runs under. */
export type DemoCondition = 'clean' | 'attacked';

/** Per-method outcome of the demo. */
export interface DemoMethodSummary {
  /** Accuracy on the clean run, in [0, 1]. */
  readonly clean: number;
  /** Accuracy with the three adversaries attacking, in [0, 1]. */
  readonly attacked: number;
  /** Mean reputation per agent after each task (rows = tasks), per condition; absent without a model. */
  readonly reputation?: Readonly<Record<DemoCondition, Readonly<Record<AgentId, readonly number[]>>>>;
}

/** What `repute demo --json` prints. */
export interface DemoSummary {
  readonly schemaVersion: 1;
  readonly seed: number;
  readonly tasks: number;
  readonly rounds: number;
  readonly feedback: 'consensus';
  readonly agents: ReadonlyArray<{ readonly id: AgentId; readonly model: string; readonly adversarial: boolean }>;
  /** Method names in table order. */
  readonly methodOrder: readonly DebateMethodName[];
  readonly methods: Readonly<Record<string, DemoMethodSummary>>;
  /** Majority of all agents on the clean run, for reference. */
  readonly wallTimeMs: number;
}

/** Options of {@link runDemo}. */
export interface RunDemoOptions {
  /** Where runs, events and reputation go (an in-memory store is fine). */
  readonly store: DebateSessionStore;
  /** @default 2027 */
  readonly seed?: number;
  /** Built-in tasks, in [1, 10000]. @default 100 */
  readonly tasks?: number;
  /** Debate rounds after Propose. @default 2 */
  readonly rounds?: number;
  /** Methods to compare. @default every method of {@link debateMethodNames} */
  readonly methods?: readonly DebateMethodName[];
  /** Team members to simulate. @default demoTeam (10 agents, three adversaries) */
  readonly members?: readonly DemoMember[];
  /** Called after each task of each condition. @default none */
  readonly onProgress?: (progress: DebateProgress & { condition: DemoCondition }) => void;
  /** Wall clock for the summary's timing, in ms. @default performance.now */
  readonly now?: () => number;
}

const knownDemoOptions = defineOptionKeys<RunDemoOptions>()([
  'store',
  'seed',
  'tasks',
  'rounds',
  'methods',
  'members',
  'onProgress',
  'now',
]);

/**
 * The embedded main job: a simulated 10-agent team (clone groups, three adversaries) debates the
 * built-in tasks once per method, clean and under a coordinated attack (one shared wrong payload
 * per task plus false claims that everyone agrees), with consensus feedback only (no ground truth
 * reaches any decision); accuracy is graded against the generator's references afterwards.
 *
 * @example
 * const summary = await runDemo({ store: openStore({ path: ':memory:' }), seed: 2027 });
 * summary.methods.minirep.attacked; // 0.8...
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoSummary> {
  assertKnownOptions('', options, knownDemoOptions, 'runDemo');
  const {
    store,
    seed = 2027,
    tasks: count = 100,
    rounds = 2,
    methods = debateMethodNames,
    members = demoTeam,
    onProgress,
    now = () => performance.now(),
  } = options;
  assertInteger('tasks', count, 1, 10_000);
  assertInteger('rounds', rounds, 0, 20);
  const started = now();
  const referenced = generateTasks({ count, seed });
  const tasks = referenced.map((item) => item.task);
  const world = createSimulationWorld({ tasks: referenced, seed });
  const grade = (taskId: string, answer: string | null) => world.isCorrect(taskId, answer);
  const identities = members.map((member) => member.identity);
  const results: Record<string, DemoMethodSummary> = {};
  for (const name of methods) {
    const accuracy: Partial<Record<DemoCondition, number>> = {};
    const series: Partial<Record<DemoCondition, Record<AgentId, number[]>>> = {};
    for (const condition of ['clean', 'attacked'] as const) {
      const agents = createDemoTeam({ world, seed, attacked: condition === 'attacked', members });
      const method = createDebateMethod(name, { agents: identities });
      const summary = await runDebateSession({
        store,
        runId: `demo-${seed}-${condition}`,
        team: `demo-${condition}`,
        kind: 'demo',
        agents,
        tasks,
        method,
        rounds,
        seed,
        config: { seed, tasks: count, rounds, condition },
        grade,
        ...(onProgress ? { onProgress: (progress: DebateProgress) => onProgress({ ...progress, condition }) } : {}),
      });
      accuracy[condition] = summary.records.filter((record) => record.correct === true).length / summary.records.length;
      if (method.reputation) {
        const perAgent: Record<AgentId, number[]> = Object.fromEntries(identities.map((identity) => [identity.id, []]));
        for (const record of summary.records)
          for (const identity of identities) perAgent[identity.id]?.push(record.reputation[identity.id] ?? Number.NaN);
        series[condition] = perAgent;
      }
    }
    results[name] = {
      clean: accuracy.clean as number,
      attacked: accuracy.attacked as number,
      ...(series.clean && series.attacked ? { reputation: { clean: series.clean, attacked: series.attacked } } : {}),
    };
  }
  return {
    schemaVersion: 1,
    seed,
    tasks: count,
    rounds,
    feedback: 'consensus',
    agents: members.map((member) => ({
      id: member.identity.id,
      model: member.identity.model,
      adversarial: member.adversarial,
    })),
    methodOrder: [...methods],
    methods: results,
    wallTimeMs: Math.round(now() - started),
  };
}
