// The replayed pool of the DRF replay experiments (cost, budget): of the agents that answered every
// recorded task, ranked by dataset accuracy, the `poolSize` at evenly spaced ranks; their canonical
// answer keys per task and the dataset's correctness per (task, key). Accuracy chooses the pool
// only; no method sees it.
import type { Agent } from '../../agents/agent.js';
import { createReplayedAgent } from '../../agents/replayed-agent.js';
import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { canonicalAnswerKey } from '../../core/answers/answers.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, shuffle } from '../../core/rng.js';
import { taskSplit } from '../replay/splits.js';

/** One recorded task: every agent's answer and the dataset's correctness flag (a ProposalsRecord fits). */
export interface ReplayItem {
  /** Task id, unique in the dataset. */
  readonly id: string;
  /** Answer kind, which decides how answers are canonicalised. */
  readonly kind: AnswerKind;
  /** Task prompt. @default '' */
  readonly prompt?: string;
  /** Each agent's recorded answer (`null` or absent = none) and the dataset's correctness flag, by agent id. */
  readonly proposals: Readonly<Record<AgentId, { readonly answer?: string | null; readonly correct?: boolean }>>;
}

/** Recorded answers of many agents to the same tasks (a ProposalsDataset fits). */
export interface ReplayData {
  /** Dataset name, used in results and error messages. */
  readonly name: string;
  /** Agents that answered, with their identities. */
  readonly agents: readonly AgentIdentity[];
  /** Recorded tasks in dataset order. */
  readonly tasks: readonly ReplayItem[];
}

/** A replayed pool ready for DRF and the baselines. */
export interface ReplayPool {
  /** Tasks of the chosen split, in dataset order. */
  readonly splitTasks: readonly ReplayItem[];
  /** Agents with an answer to every task (the candidates of the pool). */
  readonly complete: readonly AgentIdentity[];
  /** The pool, best first, with each agent's accuracy on the whole dataset (used only to choose it). */
  readonly picks: ReadonlyArray<{ readonly agent: AgentIdentity; readonly accuracy: number }>;
  /** Pool agent ids, best first. */
  readonly poolIds: readonly AgentId[];
  /** Canonical answer key of each pool agent per task (`null` = unparseable). */
  readonly keys: ReadonlyMap<string, ReadonlyMap<AgentId, string | null>>;
  /** Keys the dataset flags correct, per task. */
  readonly correctKeys: ReadonlyMap<string, ReadonlySet<string>>;
  /** Whether a key is correct on a task (ground truth for scoring only). */
  isCorrect(taskId: string, key: string | null): boolean;
  /** Fresh replayed agents of the pool (price 1 each). */
  agents(): Agent[];
}

/**
 * Builds the replayed pool: refuses a pool larger than the agents with an answer to every task,
 * and data without a correctness flag on every proposal.
 *
 * @example
 * const pool = prepareReplayPool(await loadDataset(path), { poolSize: 10, split: 'heldout' });
 */
export function prepareReplayPool(
  data: ReplayData,
  options: {
    readonly poolSize: number;
    readonly split: 'heldout' | 'tuning' | 'all';
    readonly answerKey?: ((answer: string, kind: AnswerKind) => string | null) | undefined;
  },
): ReplayPool {
  const {
    poolSize,
    split,
    answerKey = (answer: string, kind: AnswerKind) => canonicalAnswerKey(kind, answer),
  } = options;
  const memo = new Map<string, string | null>();
  const keyOf = (answer: string, kind: AnswerKind): string | null => {
    const cacheKey = `${kind}\u0000${answer}`;
    if (!memo.has(cacheKey)) {
      let key: string | null;
      try {
        key = answerKey(answer, kind);
      } catch {
        // An answer the kind cannot canonicalise counts as unparseable, like the replay harness does.
        key = null;
      }
      memo.set(cacheKey, key);
    }
    return memo.get(cacheKey) as string | null;
  };
  const splitTasks = split === 'all' ? data.tasks : data.tasks.filter((task) => taskSplit(task.id) === split);
  const complete = data.agents.filter((agent) => data.tasks.every((task) => task.proposals[agent.id] !== undefined));
  if (complete.length < poolSize) {
    throw new InvalidArgumentError({
      parameter: 'poolSize',
      value: poolSize,
      message: `${data.name} has only ${complete.length} agents with an answer to every task; pass a poolSize of at most ${complete.length}`,
    });
  }
  const flagged = data.tasks.every((task) =>
    Object.values(task.proposals).every((proposal) => typeof proposal.correct === 'boolean'),
  );
  if (!flagged) {
    throw new InvalidArgumentError({
      parameter: 'data',
      value: data.name,
      message: `${data.name} lacks a correctness flag on some proposals; the replay experiments score against the dataset's flags`,
    });
  }
  const accuracyOf = (agentId: AgentId) =>
    data.tasks.filter((task) => task.proposals[agentId]?.correct === true).length / data.tasks.length;
  const ranked = complete
    .map((agent) => ({ agent, accuracy: accuracyOf(agent.id) }))
    .sort((left, right) => right.accuracy - left.accuracy || (left.agent.id < right.agent.id ? -1 : 1));
  const picks = Array.from(
    { length: poolSize },
    (_, index) => ranked[Math.round((index * (ranked.length - 1)) / (poolSize - 1))] as (typeof ranked)[number],
  );
  const poolIds = picks.map((pick) => pick.agent.id);

  // Canonical keys once per (task, agent); correctness per (task, key) from the dataset's flags.
  const keys = new Map<string, Map<AgentId, string | null>>();
  const correctKeys = new Map<string, Set<string>>();
  for (const item of data.tasks) {
    const perAgent = new Map<AgentId, string | null>();
    const right = new Set<string>();
    for (const agentId of poolIds) {
      const recorded = item.proposals[agentId];
      const key = recorded?.answer === undefined || recorded.answer === null ? null : keyOf(recorded.answer, item.kind);
      perAgent.set(agentId, key);
      if (key !== null && recorded?.correct === true) right.add(key);
    }
    keys.set(item.id, perAgent);
    correctKeys.set(item.id, right);
  }
  const answerMaps = new Map(
    poolIds.map((agentId) => [
      agentId,
      new Map(
        [...keys].map(([taskId, perAgent]) => [
          taskId,
          { text: perAgent.get(agentId) ?? '', answer: perAgent.get(agentId) ?? null },
        ]),
      ),
    ]),
  );
  return {
    splitTasks,
    complete,
    picks,
    poolIds,
    keys,
    correctKeys,
    isCorrect: (taskId, key) => key !== null && (correctKeys.get(taskId)?.has(key) ?? false),
    agents: () =>
      picks.map(({ agent }) =>
        createReplayedAgent({
          identity: { id: agent.id, model: agent.model, cost: 1 },
          answers: answerMaps.get(agent.id) as Map<string, { text: string; answer: string | null }>,
        }),
      ),
  };
}

/**
 * The order in which a plain plurality sees the agents' proposals on one task: a seeded shuffle per
 * (seed, task). `decideTeamAnswer` gives a tie to the earlier proposal, and the pool is ranked by
 * dataset accuracy, so passing the pool order would hand every tie to the more accurate agent, a
 * label the baselines must not see (on code, where programs rarely coincide, every decision is such a
 * tie). Until issue 41 the full team, majority and debate baselines used the pool order.
 */
export function tieBreakOrder(seed: number, taskId: string, agentIds: readonly AgentId[]): AgentId[] {
  return shuffle(createRng(deriveSeed(seed, 'plurality-ties', taskId)), agentIds);
}
