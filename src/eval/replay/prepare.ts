import type { AgentIdentity } from '../../core/agent-identity.js';
import { DataFormatError, InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, sample } from '../../core/rng.js';
import type { ProposalsDataset, ProposalsRecord } from '../proposals/format.js';
import type { AnswerOps } from './answer-ops.js';
import { taskSplit, type TaskSplit } from './splits.js';
import type { KeyScore, PreparedReplay, PreparedTask } from './types.js';

/** Which tasks the replay samples from: one side of the declared split (`splits.ts`), or every task. */
export type SplitChoice = TaskSplit | 'all';

/** Every `--split` value. */
export const splitChoices: readonly SplitChoice[] = ['heldout', 'tuning', 'all'];

/** Counts of what preparation saw, for the report (nothing is dropped silently). */
export interface PreparationCounts {
  /** Tasks in the dataset. */
  readonly datasetTasks: number;
  /** Agents in the pool. */
  readonly agents: number;
  /** Recorded proposals in the whole dataset. */
  readonly proposals: number;
  /** (task, agent) pairs with no record in the whole dataset (replayed as unparseable). */
  readonly missingProposals: number;
  /** Recorded proposals with `answer: null` (no parseable answer) in the whole dataset. */
  readonly unparseable: number;
  /** Tasks on the sampled side of the split (`datasetTasks` for `all`). */
  readonly splitTasks: number;
  /** Tasks sampled for the grid. */
  readonly sampledTasks: number;
}

function keyScoresOf(
  record: ProposalsRecord,
  keys: readonly (string | null)[],
  agentIds: readonly string[],
  ops: AnswerOps,
): Record<string, KeyScore> {
  // With dataset flags: a key whose proposals all carry the same flag is graded by it. A key whose
  // proposals carry both flags (the kind merged answers the dataset's grader told apart; counted by the
  // merged-answer audit) is graded by the kind against the reference: the flags contradict each other
  // on one value, and a majority vote would drop right answers whenever most of the group was
  // written in a form the grader rejected (`{"a": 1}` beside `{'a': 1}`).
  const flagVotes = new Map<string, { correct: number; total: number }>();
  agentIds.forEach((agent, index) => {
    const key = keys[index];
    const flag = record.proposals[agent]?.correct;
    if (key === null || key === undefined || flag === undefined) return;
    const votes = flagVotes.get(key) ?? { correct: 0, total: 0 };
    votes.total++;
    if (flag) votes.correct++;
    flagVotes.set(key, votes);
  });
  // No prototype: an answer key such as `constructor` or `__proto__` is an own entry like any other
  // (with `{}`, `key in scores` found the inherited one and left the key unscored).
  const scores = Object.create(null) as Record<string, KeyScore>;
  for (const key of keys) {
    if (key === null || key === undefined || key in scores) continue;
    const votes = flagVotes.get(key);
    if (votes !== undefined && (votes.correct === 0 || votes.correct === votes.total)) {
      const correct = votes.correct === 0 ? 0 : 1;
      scores[key] = { exact: correct, f1: correct };
    } else {
      scores[key] = ops.score(record.kind, key, record.reference ?? '');
    }
  }
  return scores;
}

/**
 * Canonicalises every proposal, ranks the pool by accuracy over all dataset tasks (dataset flags when
 * present, else the kind's scoring), and draws a seeded sample of `tasks` tasks in a fixed order from
 * one side of the declared split (default `heldout`: FNV-1a(id) % 5 ≠ 0; `tuning`: = 0; `all`).
 * Tasks without a reference cannot be scored and are refused.
 *
 * @example
 * const { prepared } = prepareReplay({ dataset, ops, seed: 2027, tasks: 100 });
 */
export function prepareReplay({
  dataset,
  ops,
  seed,
  tasks,
  split = 'heldout',
  file = dataset.name,
  minAgents = 10,
}: {
  dataset: ProposalsDataset;
  /** Where the dataset was read from, named by the data errors (too few agents, a task without reference). @default dataset.name */
  file?: string;
  ops: AnswerOps;
  seed: number;
  tasks: number;
  split?: SplitChoice;
  /** Agents the dataset must hold at least: 10 for the grid's teams of 10; the team zoo's smallest teams need 3. @default 10 */
  minAgents?: number;
}): { prepared: PreparedReplay; counts: PreparationCounts } {
  if (!splitChoices.includes(split)) {
    throw new InvalidArgumentError({
      parameter: 'split',
      value: split,
      message: `split must be one of ${splitChoices.join(', ')}, got ${JSON.stringify(split)}; pass e.g. --split heldout`,
    });
  }
  if (!Number.isInteger(tasks) || tasks < 1) {
    throw new InvalidArgumentError({
      parameter: 'tasks',
      value: tasks,
      message: `tasks must be a positive integer, got ${String(tasks)}; pass e.g. --tasks 100`,
    });
  }
  if (dataset.agents.length < minAgents) {
    throw new DataFormatError({
      file,
      message: `the replay needs at least ${minAgents} agents (teams of ${minAgents}), the dataset ${dataset.name} has ${dataset.agents.length}; replay a dataset with recorded answers of ${minAgents} or more agents`,
    });
  }
  const agentIds = dataset.agents.map((agent) => agent.id);
  const correct = new Array<number>(agentIds.length).fill(0);
  const present = new Array<number>(agentIds.length).fill(0);
  let proposals = 0;
  let missing = 0;
  let unparseable = 0;
  const prepareTask = (record: ProposalsRecord): PreparedTask => {
    const keys: (string | null)[] = [];
    const texts: string[] = [];
    const presentFlags: boolean[] = [];
    for (const agent of agentIds) {
      const proposal = record.proposals[agent];
      if (proposal === undefined) {
        keys.push(null);
        texts.push('');
        presentFlags.push(false);
        continue;
      }
      const raw = proposal.answer !== undefined ? proposal.answer : (proposal.text ?? null);
      keys.push(raw === null ? null : ops.canonical(record.kind, raw));
      texts.push(proposal.text ?? proposal.answer ?? '');
      presentFlags.push(true);
    }
    return {
      id: record.id,
      kind: record.kind,
      prompt: record.prompt ?? '',
      reference: record.reference ?? '',
      ...(record.options === undefined ? {} : { options: record.options }),
      keys,
      texts,
      present: presentFlags,
      scores: keyScoresOf(record, keys, agentIds, ops),
    };
  };
  // Ranking basis: each agent's accuracy over every dataset task it answered. The dataset's own
  // `correct` flags are used where given (so it reproduces models.json); otherwise the kind's scoring.
  for (const record of dataset.tasks) {
    if (record.reference === undefined) {
      throw new DataFormatError({
        file,
        message: `task ${record.id} has no reference; replay scores every decision against it, so add the task's reference answer or leave the task out of the dataset`,
      });
    }
    const needsScoring = agentIds.some((agent) => {
      const proposal = record.proposals[agent];
      return proposal !== undefined && proposal.correct === undefined;
    });
    const prepared = needsScoring ? prepareTask(record) : undefined;
    agentIds.forEach((agent, index) => {
      const proposal = record.proposals[agent];
      if (proposal === undefined) {
        missing++;
        return;
      }
      proposals++;
      if (proposal.answer === null || (proposal.answer === undefined && proposal.text === undefined)) unparseable++;
      present[index] = (present[index] ?? 0) + 1;
      const key = prepared?.keys[index] ?? null;
      const value =
        proposal.correct !== undefined
          ? proposal.correct
            ? 1
            : 0
          : key === null
            ? 0
            : (prepared?.scores[key]?.exact ?? 0);
      correct[index] = (correct[index] ?? 0) + value;
    });
  }
  const accuracy = agentIds.map((_, index) =>
    (present[index] ?? 0) === 0 ? 0 : (correct[index] ?? 0) / (present[index] ?? 1),
  );
  // Rank best first; ties by id so the ranking is deterministic.
  const order = agentIds
    .map((_, index) => index)
    .sort(
      (left, right) =>
        (accuracy[right] ?? 0) - (accuracy[left] ?? 0) || ((agentIds[left] ?? '') < (agentIds[right] ?? '') ? -1 : 1),
    );
  const agents: AgentIdentity[] = order.map((index) => dataset.agents[index] as AgentIdentity);
  const reorder = <T>(values: readonly T[]) => order.map((index) => values[index] as T);
  const eligible = split === 'all' ? dataset.tasks : dataset.tasks.filter((record) => taskSplit(record.id) === split);
  const count = Math.min(tasks, eligible.length);
  if (count === 0) {
    throw new InvalidArgumentError({
      parameter: 'split',
      value: split,
      message: `the ${split} split of ${dataset.name} holds no task; pass --split all`,
    });
  }
  const sampled = sample(createRng(deriveSeed(seed, 'tasks')), eligible, count)
    .map(prepareTask)
    .map((task) => ({
      ...task,
      keys: reorder(task.keys),
      texts: reorder(task.texts),
      present: reorder(task.present),
    }));
  return {
    prepared: { schemaVersion: 1, agents, accuracy: reorder(accuracy), tasks: sampled },
    counts: {
      datasetTasks: dataset.tasks.length,
      agents: agentIds.length,
      proposals,
      missingProposals: missing,
      unparseable,
      splitTasks: eligible.length,
      sampledTasks: count,
    },
  };
}
