// The one session loop of every protocol: it owns the store (the run, the team, each task's result
// or failure), resume (finished tasks are read back and skipped), the failure budget
// (`onTaskFailure`), progress and the summary. A protocol only says how it restores its carried
// state and how it runs tasks (a `SessionRunner`); debate, DRF and RAPS sessions are this loop
// with their runner.
import type { AgentIdentity } from '../core/agent-identity.js';
import type { Task } from '../core/task.js';
import { assertNonEmptyString, assertUniqueTaskIds } from '../core/validate.js';
import {
  type DebateFailure,
  loadFinishedTasks,
  type SessionOptions,
  type SessionProgress,
  type SessionStore,
  type SessionSummary,
  type TaskFailure,
} from './session.js';

/** What the store's `recordTaskResult` takes with a result. */
type RecordInput = Parameters<SessionStore['recordTaskResult']>[0];

/** What a finished task writes with its result, in one transaction. */
export interface FinishedTask<TRecord> {
  readonly taskId: string;
  /** The task's record (`result` of the store's task record). */
  readonly record: TRecord;
  /** The task's events (ended spans), in the order they are appended. @default [] */
  readonly events?: RecordInput['events'];
  /** Reputation snapshots saved with the task (run scope, team scope). @default [] */
  readonly reputation?: RecordInput['reputation'];
  /** Ledger entries booked with the task. @default none (the store's usage is left alone) */
  readonly usage?: RecordInput['usage'];
}

/** How a task ended: a result to store, or a failure (a provider failure: the task did not happen). */
export type TaskOutcome<TRecord> =
  | ({ readonly status: 'done' } & FinishedTask<TRecord>)
  | { readonly status: 'failed'; readonly taskId: string; readonly failures: readonly DebateFailure[] };

/**
 * What a protocol gives the session loop: how it restores its carried state and how it runs the
 * tasks that are left. After a failed task the runner's state must be what it was before the task
 * (the task did not happen; a rerun redoes it).
 */
export interface SessionRunner<TRecord> {
  /** Name the task records (and reputation) are stored under. */
  readonly method: string;
  /**
   * Restores reputation and carried state before any task: `records` are the run's finished tasks in
   * completion order (empty for a new run); the store holds the run's and the team's saved state.
   */
  restore(input: { readonly store: SessionStore; readonly records: readonly TRecord[] }): void;
  /**
   * Runs `tasks` in order and reports each to `settle` as it ends. `settle` stores the outcome and
   * may throw (a failure budget ran out, the session was stopped): the runner lets that propagate.
   */
  run(input: {
    readonly tasks: readonly Task[];
    readonly settle: (outcome: TaskOutcome<TRecord>) => void;
    readonly signal?: AbortSignal | undefined;
  }): Promise<void>;
}

/** Options of {@link runSession}. */
export interface RunSessionOptions<TRecord> {
  readonly store: SessionStore;
  /** Run id; a rerun with the same id resumes. */
  readonly runId: string;
  /** Team key the agents' identities are saved under. */
  readonly team: string;
  /** The team's agents, saved under `team`. */
  readonly agents: readonly AgentIdentity[];
  /** Tasks in order; a resumed run skips those already recorded. */
  readonly tasks: readonly Task[];
  /** Run kind stored with the run. */
  readonly kind: string;
  /** The run's configuration; a resumed run must pass the same. */
  readonly config: unknown;
  /** The protocol's runner. */
  readonly runner: SessionRunner<TRecord>;
  /** Called after each task (and once per task read back on resume). @default none */
  readonly onProgress?: ((progress: SessionProgress<TRecord>) => void) | undefined;
  /** Called after a task failed and was recorded as failed; throwing stops the session. @default none */
  readonly onTaskFailure?: ((failure: TaskFailure) => void) | undefined;
  /** Stops the session: no further task starts. @default none */
  readonly signal?: AbortSignal | undefined;
}

/** What {@link runSession} did. */
export interface RunSessionSummary<TRecord> extends SessionSummary<TRecord> {
  /** The runner's method name. */
  readonly method: string;
  /** Tasks skipped because they were already in the store. */
  readonly skipped: number;
  /** Tasks that failed in this session (no result stored; a rerun redoes them). */
  readonly failed: readonly TaskFailure[];
}

/**
 * Runs a protocol's tasks as one persisted session: the run is created (or resumed), the team's
 * identities saved, finished tasks read back and handed to the runner's `restore`, then each
 * remaining task is run and written with its events, reputation and ledger in one transaction, or
 * recorded as failed, so a killed run resumes without losing or repeating a task.
 *
 * @example
 * const summary = await runSession({ store, runId: 'r1', team: 'local', agents, tasks, kind: 'debate', config: {}, runner });
 */
export async function runSession<TRecord>(options: RunSessionOptions<TRecord>): Promise<RunSessionSummary<TRecord>> {
  const { store, runId, team, agents, tasks, kind, config, runner, onProgress, onTaskFailure, signal } = options;
  assertNonEmptyString('runId', runId);
  assertNonEmptyString('team', team);
  assertUniqueTaskIds(tasks, 'the store keys results by task id');
  const method = runner.method;
  const { resumed } = store.ensureRun({ id: runId, kind, team, config });
  store.saveTeam(team, agents);
  const { done, records } = loadFinishedTasks<TRecord>(store, {
    runId,
    method,
    total: tasks.length,
    restore: (finished) => runner.restore({ store, records: finished }),
    onProgress,
  });
  let ran = 0;
  const failed: TaskFailure[] = [];
  const settle = (outcome: TaskOutcome<TRecord>): void => {
    if (outcome.status === 'failed') {
      const failure: TaskFailure = { schemaVersion: 1, method, taskId: outcome.taskId, failures: outcome.failures };
      store.recordTaskFailure?.({ runId, method, taskId: outcome.taskId, failure });
      failed.push(failure);
      onTaskFailure?.(failure);
      return;
    }
    store.recordTaskResult({
      runId,
      method,
      taskId: outcome.taskId,
      result: outcome.record,
      events: outcome.events ?? [],
      reputation: outcome.reputation ?? [],
      ...(outcome.usage === undefined ? {} : { usage: outcome.usage }),
    });
    records.push(outcome.record);
    ran++;
    onProgress?.({ done: records.length, total: tasks.length, resumed: false, record: outcome.record });
  };
  await runner.run({ tasks: tasks.filter((task) => !done.has(task.id)), settle, signal });
  return { runId, method, records, ran, skipped: tasks.length - ran - failed.length, resumed, failed };
}

/**
 * A runner's `run` for protocols that run one task at a time: `runTask` runs a task and returns its
 * outcome (undoing its own state first when it failed); the session is checked for a stop before
 * each task.
 */
export function eachTask<TRecord>(
  runTask: (task: Task, signal: AbortSignal | undefined) => Promise<TaskOutcome<TRecord>>,
): SessionRunner<TRecord>['run'] {
  return async ({ tasks, settle, signal }) => {
    for (const task of tasks) {
      signal?.throwIfAborted();
      settle(await runTask(task, signal));
    }
  };
}

/** The options of a protocol's session function that the session loop takes itself (the rest configure the runner). */
export type SessionLoopKeys = 'store' | 'tasks' | 'config' | 'kind' | 'onProgress' | 'signal' | 'onTaskFailure';

/**
 * {@link runSession} from a protocol's session options (the fields of {@link SessionOptions}, the
 * failure hook), with the protocol's default run kind and the team's identities.
 */
export function runSessionFor<TRecord>(
  options: SessionOptions<SessionProgress<TRecord>> & {
    readonly onTaskFailure?: ((failure: TaskFailure) => void) | undefined;
  },
  {
    kind,
    agents,
    runner,
  }: { kind: string; agents: RunSessionOptions<TRecord>['agents']; runner: SessionRunner<TRecord> },
): Promise<RunSessionSummary<TRecord>> {
  return runSession({
    store: options.store,
    runId: options.runId,
    team: options.team,
    agents,
    tasks: options.tasks,
    kind: options.kind ?? kind,
    config: options.config ?? {},
    runner,
    onProgress: options.onProgress,
    onTaskFailure: options.onTaskFailure,
    signal: options.signal,
  });
}
