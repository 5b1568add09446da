import type { Agent } from '../../agents/agent.js';
import type { Aggregator } from '../../aggregation/aggregator.js';
import { validateTeam, type AgentId, type AgentIdentity } from '../../core/agent-identity.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { SpanData } from '../../core/trace.js';
import {
  assertInteger,
  assertKnownOptions,
  assertNonEmptyString,
  assertUniqueTaskIds,
  defineOptionKeys,
} from '../../core/validate.js';
import type { ReputationModel, ReputationSnapshot } from '../../reputation/reputation-model.js';
import type { Selector } from '../../selection/selector.js';
import {
  createTaskTracer,
  gradeAnswer,
  loadFinishedTasks,
  restoreReputation,
  sessionOptionKeys,
  type SessionOptions,
  type SessionProgress,
  type SessionSummary,
} from '../session.js';
import { runDebate } from './run-debate.js';
import type { PeerFilter } from './peer-filter.js';
import type { DebateFailure, DebateResult, Feedback } from './types.js';

/**
 * The part of the store a session needs (structurally the `Store` of `src/store`, declared here so
 * protocols do not import the store layer).
 */
export interface DebateSessionStore {
  ensureRun(input: { id: string; kind: string; config: unknown; team?: string | null }): { resumed: boolean };
  saveTeam(team: string, agents: readonly AgentIdentity[]): void;
  loadReputation(input: { scope: { runId: string } | { team: string }; name: string }): ReputationSnapshot | undefined;
  completedTaskIds(runId: string, method: string): string[];
  /** Records a failed task apart from results (the store's `recordTaskFailure`); omitted = failed tasks are only reported. */
  recordTaskFailure?(input: { runId: string; method: string; taskId: string; failure: TaskFailure }): unknown;
  taskResults<T = unknown>(runId: string, method?: string): Array<{ readonly result: T }>;
  recordTaskResult<T>(input: {
    runId: string;
    method: string;
    taskId: string;
    result: T;
    events?: ReadonlyArray<{
      data: SpanData;
      spanId?: string | null;
      parentId?: string | null;
      startedAt?: number | null;
      endedAt?: number | null;
      error?: string | null;
    }>;
    reputation?: ReadonlyArray<{
      scope: { runId: string } | { team: string };
      name: string;
      snapshot: ReputationSnapshot;
    }>;
    usage?: ReadonlyArray<{
      runId?: string | null;
      agentId?: string | null;
      taskId?: string | null;
      act?: string | null;
      inputTokens: number;
      outputTokens: number;
      cost: number;
      cached: boolean;
    }>;
  }): unknown;
}

/** A named combination of selector, aggregator and reputation model (one column of the demo table). */
export interface DebateMethod {
  /** Name, unique within a run (e.g. `minirep`). */
  readonly name: string;
  /** Picks participants; omitted = everyone. */
  readonly selector?: Selector;
  /** Team size for the selector. @default team size */
  readonly k?: number;
  readonly aggregator: Aggregator;
  /** A fresh model; the session restores saved state into it. Omitted = equal weights. */
  readonly reputation?: ReputationModel;
  /** Collect peer ratings after the last round. @default false */
  readonly ratings?: boolean;
  /** Screens whose proposals peers see in debate rounds. @default everyone's */
  readonly peerFilter?: PeerFilter;
  /** Evidence rule. @default consensusFeedback */
  readonly feedback?: Feedback;
  /** Rebuilds method state that is not a reputation model (e.g. UCB counts) from the finished tasks of a resumed run. */
  readonly resume?: (records: readonly DebateTaskRecord[]) => void;
}

/** What the session stores per finished task (`result` of the task record). */
export interface DebateTaskRecord {
  readonly schemaVersion: 1;
  readonly taskId: string;
  readonly answer: string | null;
  /** Graded against the reference when a grader was given, else `null`. */
  readonly correct: boolean | null;
  readonly participants: readonly AgentId[];
  readonly excluded: readonly AgentId[];
  /** Final answer per participant. */
  readonly answers: Readonly<Record<AgentId, string | null>>;
  readonly support: Readonly<Record<string, number>>;
  readonly reputation: Readonly<Record<AgentId, number>>;
  /** Acts that failed (provider errors after retries, unparseable ratings). */
  readonly failures: number;
}

/**
 * A task that did not happen: at least one act's model call failed after its retries (a provider
 * failure). It is stored apart from results, so a rerun redoes it; reputation and method state are
 * left as they were before the task.
 */
export interface TaskFailure {
  readonly schemaVersion: 1;
  readonly method: string;
  readonly taskId: string;
  /** The provider failures of the task's acts (messages already free of API keys). */
  readonly failures: readonly DebateFailure[];
}

/** Progress callback payload: a finished task of one method. */
export interface DebateProgress extends SessionProgress<DebateTaskRecord> {
  readonly method: string;
}

/** Options of {@link runDebateSession}; the fields every session shares are documented on {@link SessionOptions}. */
export interface RunDebateSessionOptions extends SessionOptions<DebateProgress> {
  /** The agents that debate, one per team member. */
  readonly agents: readonly Agent[];
  /** Selection, aggregation and reputation used for every task. */
  readonly method: DebateMethod;
  /** Debate rounds after Propose. @default 1 */
  readonly rounds?: number;
  /** Writes act usage to the store's ledger with each task. @default true */
  readonly recordUsage?: boolean;
  /** Clock of event timestamps, in ms. @default Date.now */
  readonly now?: () => number;
  /**
   * Called after a task failed and was recorded as failed; throwing stops the session (a failure
   * budget). @default none
   */
  readonly onTaskFailure?: (failure: TaskFailure) => void;
}

/** What a session did. */
export interface DebateSessionSummary extends SessionSummary<DebateTaskRecord> {
  readonly method: string;
  /** Tasks skipped because they were already in the store. */
  readonly skipped: number;
  /** Tasks that failed in this session (no result stored; a rerun redoes them). */
  readonly failed: readonly TaskFailure[];
}

const knownDebateSessionOptions = defineOptionKeys<RunDebateSessionOptions>()([
  ...sessionOptionKeys,
  'agents',
  'method',
  'rounds',
  'recordUsage',
  'now',
  'onTaskFailure',
]);
const knownDebateMethodKeys = defineOptionKeys<DebateMethod>()([
  'name',
  'selector',
  'k',
  'aggregator',
  'reputation',
  'ratings',
  'peerFilter',
  'feedback',
  'resume',
]);

/**
 * Runs a debate over many tasks with one method, persisting as it goes: the team's identities are
 * saved under the team key, reputation is restored from the run (resume) or else from the team
 * (a later run), and each finished task is written with its events, reputation and ledger in one
 * transaction, so a killed run resumes without losing or repeating a task.
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * await runDebateSession({ store, runId: 'r1', team: 'demo', agents, tasks, method: { name: 'majority', aggregator }, seed: 1 });
 */
export async function runDebateSession(options: RunDebateSessionOptions): Promise<DebateSessionSummary> {
  assertKnownOptions('', options, knownDebateSessionOptions, 'runDebateSession');
  assertKnownOptions('method', options.method, knownDebateMethodKeys, 'runDebateSession');
  const {
    store,
    runId,
    team,
    agents,
    tasks,
    method,
    rounds = 1,
    seed,
    config = {},
    kind = 'debate',
    grade,
    reputationStart = 'team',
    recordUsage = true,
    now = Date.now,
    onProgress,
    signal,
    onTaskFailure,
  } = options;
  assertNonEmptyString('runId', runId);
  assertNonEmptyString('team', team);
  assertNonEmptyString('method.name', method?.name);
  validateTeam(
    agents.map((agent) => agent?.identity),
    'agents',
  );
  assertUniqueTaskIds(tasks, 'the store keys results by task id');
  // runDebate checks these too, but only at the first task, after the run and team are written.
  assertInteger('rounds', rounds, 0, 20, 'pass e.g. { rounds: 2 } for two debate rounds after Propose');
  if (method.k !== undefined)
    assertInteger('method.k', method.k, 1, agents.length, `k must not exceed the team size ${agents.length}`);

  const { resumed } = store.ensureRun({ id: runId, kind, team, config });
  store.saveTeam(
    team,
    agents.map((agent) => agent.identity),
  );
  const reputation = method.reputation;
  if (reputation)
    restoreReputation(store, reputation, {
      runId,
      team: reputationStart === 'team' ? team : undefined,
      name: method.name,
      agentIds: agents.map((agent) => agent.identity.id),
    });

  const { done, records } = loadFinishedTasks<DebateTaskRecord>(store, {
    runId,
    method: method.name,
    total: tasks.length,
    restore: (finished) => {
      if (finished.length > 0) method.resume?.(finished);
    },
    onProgress: onProgress && ((progress) => onProgress({ method: method.name, ...progress })),
  });
  let ran = 0;
  const failed: TaskFailure[] = [];
  for (const task of tasks) {
    if (done.has(task.id)) continue;
    signal?.throwIfAborted();
    const before = reputation?.snapshot();
    const { tracer, events } = createTaskTracer({ method: method.name, taskId: task.id, now });
    const result = await runDebate({
      team: agents,
      task,
      rounds,
      ...(method.selector ? { selector: method.selector } : {}),
      ...(method.k === undefined ? {} : { k: method.k }),
      aggregator: method.aggregator,
      ...(reputation ? { reputation } : {}),
      ...(method.feedback ? { feedback: method.feedback } : {}),
      ...(method.peerFilter ? { peerFilter: method.peerFilter } : {}),
      ratings: method.ratings ?? false,
      rng: createRng(deriveSeed(seed, 'debate', method.name, task.id)),
      tracer,
      ...(signal ? { signal } : {}),
    });
    const providerFailures = result.failures.filter((failure) => failure.kind === 'provider');
    if (providerFailures.length > 0) {
      // The task did not happen: undo its reputation update and method state, keep no result.
      if (reputation && before) reputation.restore(before);
      method.resume?.(records);
      const failure: TaskFailure = {
        schemaVersion: 1,
        method: method.name,
        taskId: task.id,
        failures: providerFailures,
      };
      store.recordTaskFailure?.({ runId, method: method.name, taskId: task.id, failure });
      failed.push(failure);
      onTaskFailure?.(failure);
      continue;
    }
    const record = toRecord(result, grade);
    const snapshot = reputation?.snapshot();
    store.recordTaskResult({
      runId,
      method: method.name,
      taskId: task.id,
      result: record,
      events: events(),
      reputation: snapshot
        ? [
            { scope: { runId }, name: method.name, snapshot },
            { scope: { team }, name: method.name, snapshot },
          ]
        : [],
      usage: recordUsage
        ? result.usage.map((entry) => ({
            runId,
            agentId: entry.agentId,
            taskId: entry.taskId,
            act: entry.act,
            inputTokens: entry.inputTokens,
            outputTokens: entry.outputTokens,
            cost: entry.cost,
            cached: entry.cached,
          }))
        : [],
    });
    records.push(record);
    ran++;
    onProgress?.({ method: method.name, done: records.length, total: tasks.length, resumed: false, record });
  }
  return { runId, method: method.name, records, ran, skipped: tasks.length - ran - failed.length, resumed, failed };
}

function toRecord(result: DebateResult, grade: RunDebateSessionOptions['grade']): DebateTaskRecord {
  const final = result.rounds.at(-1) ?? [];
  return {
    schemaVersion: 1,
    taskId: result.taskId,
    answer: result.decision.answer,
    correct: gradeAnswer(grade, result.taskId, result.decision.answer),
    participants: result.participants,
    excluded: result.excluded,
    answers: Object.fromEntries(final.map((proposal) => [proposal.agentId, proposal.answer])),
    support: result.decision.support,
    reputation: result.reputationAfter,
    failures: result.failures.length,
  };
}
