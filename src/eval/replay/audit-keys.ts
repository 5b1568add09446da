import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { isLiteralFallbackKey } from '../../core/answers/literal-answer.js';
import type { ProposalsDataset } from '../proposals/format.js';
import type { AnswerOps } from './answer-ops.js';

/** Mixed-key rate above which the replay warns (and `strictKeys` refuses): 0.5 %. */
export const mixedKeyThreshold = 0.005;

/** One (task, key) group whose proposals carry both correct and incorrect flags. */
export interface MixedKeyExample {
  /** Task id. */
  readonly task: string;
  /** The answer key the proposals share. */
  readonly key: string;
  /** Proposals in the group flagged correct. */
  readonly correct: number;
  /** Proposals in the group flagged incorrect. */
  readonly wrong: number;
  /** Up to three distinct recorded answers of the group with their flags, as `answer ✓` / `answer ✗`. */
  readonly answers: readonly string[];
}

/** What {@link auditKeys} found over every task of a dataset. */
export interface KeyAudit {
  /** (task, key) groups of flagged proposals with a parseable key. */
  readonly keyGroups: number;
  /** Groups whose proposals carry both correct and incorrect flags. */
  readonly mixedKeys: number;
  /** `mixedKeys / keyGroups` in [0, 1] (0 without groups). */
  readonly mixedRate: number;
  /** The first five mixed groups in dataset order. */
  readonly examples: readonly MixedKeyExample[];
  /** Tasks per answer kind. */
  readonly kinds: Readonly<Partial<Record<AnswerKind, number>>>;
  /** Proposals of `literal` tasks whose answer is no Python literal and was keyed as text. */
  readonly literalFallbacks: number;
}

/**
 * The merged-answer audit: groups every flagged proposal of every task by its answer key and counts
 * the groups that mix correct and incorrect flags. A mixed group means the kind merges answers the
 * dataset's grader tells apart, and the replay (which grades a key by its flags' majority) loses
 * right answers or credits wrong ones. Also counts tasks per kind and literal fallbacks.
 *
 * @example
 * const audit = auditKeys({ dataset, ops: createDefaultAnswerOps() });
 * audit.mixedRate; // 0.0088 on zeroeval-crux with the literal kind
 */
export function auditKeys({ dataset, ops }: { dataset: ProposalsDataset; ops: AnswerOps }): KeyAudit {
  let keyGroups = 0;
  let mixedKeys = 0;
  let literalFallbacks = 0;
  const examples: MixedKeyExample[] = [];
  const kinds: Partial<Record<AnswerKind, number>> = {};
  for (const task of dataset.tasks) {
    kinds[task.kind] = (kinds[task.kind] ?? 0) + 1;
    const groups = new Map<string, { correct: number; wrong: number; answers: Map<string, boolean> }>();
    for (const proposal of Object.values(task.proposals)) {
      const raw = proposal.answer !== undefined ? proposal.answer : (proposal.text ?? null);
      if (raw === null) continue;
      const key = ops.canonical(task.kind, raw);
      if (key === null) continue;
      if (task.kind === 'literal' && isLiteralFallbackKey(key)) literalFallbacks++;
      if (proposal.correct === undefined) continue;
      const group = groups.get(key) ?? { correct: 0, wrong: 0, answers: new Map<string, boolean>() };
      if (proposal.correct) group.correct++;
      else group.wrong++;
      group.answers.set(`${raw}\u0000${proposal.correct}`, proposal.correct);
      groups.set(key, group);
    }
    keyGroups += groups.size;
    for (const [key, group] of groups) {
      if (group.correct === 0 || group.wrong === 0) continue;
      mixedKeys++;
      if (examples.length < 5) {
        // Show both sides: the first correct and the first wrong answers, then one more.
        const answers = [...group.answers.entries()].map(
          ([entry, correct]) => `${entry.split('\u0000')[0]} ${correct ? '✓' : '✗'}`,
        );
        const shown = [
          answers.find((answer) => answer.endsWith('✓')),
          answers.find((answer) => answer.endsWith('✗')),
        ].filter((answer): answer is string => answer !== undefined);
        for (const answer of answers) if (shown.length < 3 && !shown.includes(answer)) shown.push(answer);
        examples.push({ task: task.id, key, correct: group.correct, wrong: group.wrong, answers: shown });
      }
    }
  }
  return {
    keyGroups,
    mixedKeys,
    mixedRate: keyGroups === 0 ? 0 : mixedKeys / keyGroups,
    examples,
    kinds,
    literalFallbacks,
  };
}

/** Coverage and best single agent on a set of tasks, read straight from the dataset's `correct` flags. */
export interface FlagLimits {
  /** Share of the tasks where some agent's proposal is flagged correct, in [0, 1]. */
  readonly coverage: number;
  /** Highest share of the tasks one agent has flagged correct, in [0, 1]. */
  readonly bestSingle: number;
  /** The agent with that share (first in pool order on ties). */
  readonly bestSingleAgent: string;
}

/**
 * Coverage and best single agent of the given tasks from the flags alone (an absent or unflagged
 * proposal counts as wrong), so the replay's key-based limits can be checked against the dataset's
 * own grading on the same sample.
 *
 * @example
 * flagLimits({ dataset, taskIds: prepared.tasks.map((task) => task.id) }).coverage;
 */
export function flagLimits({
  dataset,
  taskIds,
}: {
  dataset: ProposalsDataset;
  taskIds: readonly string[];
}): FlagLimits {
  const byId = new Map(dataset.tasks.map((task) => [task.id, task]));
  const agents = dataset.agents.map((agent) => agent.id);
  const perAgent = new Array<number>(agents.length).fill(0);
  let covered = 0;
  for (const id of taskIds) {
    const task = byId.get(id);
    if (task === undefined) continue;
    let any = false;
    agents.forEach((agent, index) => {
      if (task.proposals[agent]?.correct !== true) return;
      any = true;
      perAgent[index] = (perAgent[index] ?? 0) + 1;
    });
    if (any) covered++;
  }
  const count = Math.max(1, taskIds.length);
  let best = 0;
  perAgent.forEach((value, index) => {
    if (value > (perAgent[best] ?? 0)) best = index;
  });
  return { coverage: covered / count, bestSingle: (perAgent[best] ?? 0) / count, bestSingleAgent: agents[best] ?? '' };
}

/** The kinds of an audit in words: `literal`, or `choice (540), number (458), literal (2)`. */
export function describeKinds(kinds: Readonly<Partial<Record<AnswerKind, number>>>): string {
  const entries = Object.entries(kinds).filter(([, count]) => (count ?? 0) > 0);
  return entries.length === 1
    ? (entries[0]?.[0] ?? '')
    : entries.map(([name, count]) => `${name} (${count})`).join(', ');
}
