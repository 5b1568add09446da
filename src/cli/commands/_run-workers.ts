// `repute run --workers N`: the run's coordinator. It creates (or resumes) the run in the shared
// store, publishes every task not yet decided to the run's JetStream queue, starts N local
// `repute worker` processes (workers started elsewhere with `repute worker` take from the same queue),
// and watches the store until every published task has a result or a failure of this invocation.
// The store decides what counts: a task's result is unique per run, so a task redelivered after its
// worker died is decided once.
import { type ChildProcess, spawn } from 'node:child_process';
import { RunFailedError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import type { ProtocolSession, ProtocolSessionResult } from '../../protocols/protocol.js';
import type { TaskFailure } from '../../protocols/session.js';
import type { Store } from '../../store/store.js';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { createLoggedReputation, FOLD_WAIT_MS } from '../../store/_logged-reputation.js';
import {
  connectTaskQueue,
  deleteTaskQueue,
  publishTasks,
  queueDepth,
  type TaskMessage,
  type TaskQueueSettings,
} from './_task-queue.js';

/** Options of {@link runOnWorkers}. */
export interface RunOnWorkersOptions {
  readonly store: Store;
  readonly runId: string;
  readonly team: string;
  readonly agents: readonly AgentIdentity[];
  readonly config: unknown;
  readonly sessions: readonly ProtocolSession[];
  readonly tasks: readonly Task[];
  /** Local worker processes to start (0: only workers started elsewhere). */
  readonly workers: number;
  readonly queue: TaskQueueSettings;
  /** Arguments of `repute worker` for the local workers (team file and flags naming the run). */
  readonly workerArgs: readonly string[];
  readonly signal: AbortSignal;
  /** Called when a task got its result (`done` of `total` for its method). @default none */
  readonly onProgress?: ((method: string, done: number, total: number) => void) | undefined;
  /** Called once per task that failed in this invocation; throwing stops the run. @default none */
  readonly onTaskFailure?: ((failure: TaskFailure) => void) | undefined;
  /** Interval at which the store is read, in ms. @default 200 */
  readonly pollMs?: number;
  /** Where the run's reputation starts (`prior`: its decisions read only its own events). @default 'team' */
  readonly reputationStart?: 'team' | 'prior';
}

/**
 * After the last task: folds each method's team log into the team's snapshot (waiting out a dead
 * worker's fold lease), and saves the run's reputation as the fold of the log the run's decisions
 * read (the team's, or with `prior` the run's own events), so that it holds every worker's
 * evidence whichever task committed last.
 */
async function settleReputation({
  store,
  runId,
  team,
  sessions,
  start = 'team',
}: {
  store: Store;
  runId: string;
  team: string;
  sessions: readonly ProtocolSession[];
  start?: 'team' | 'prior' | undefined;
}): Promise<void> {
  for (const session of sessions) {
    if (!session.reputation) continue;
    const logged = createLoggedReputation({
      store,
      team,
      name: session.method,
      runId,
      start,
      model: session.reputation.model,
      create: session.reputation.create,
    });
    await logged.foldWaiting(FOLD_WAIT_MS);
    logged.sync();
    store.saveReputation({ scope: { runId }, name: session.method, snapshot: session.reputation.model.snapshot() });
  }
}

/**
 * Runs a run's undecided tasks on workers and resolves to each session's summary once every
 * published task is decided (a result, or a failure recorded in this invocation), or once the queue
 * is empty with tasks still undecided (given up after the delivery limit: reported as failed).
 */
export async function runOnWorkers(options: RunOnWorkersOptions): Promise<ProtocolSessionResult[]> {
  const { store, runId, team, agents, config, sessions, tasks, workers, queue, workerArgs, signal } = options;
  const pollMs = options.pollMs ?? 200;
  const { resumed } = store.ensureRun({ id: runId, kind: 'run', team, config });
  store.saveTeam(team, agents);
  const startedAt = Date.now();
  const before = new Map(
    sessions.map((session) => [session.method, new Set(store.completedTaskIds(runId, session.method))]),
  );
  const messages: TaskMessage[] = sessions.flatMap((session) =>
    tasks
      .filter((task) => !before.get(session.method)?.has(task.id))
      .map((task) => ({ schemaVersion: 1 as const, runId, method: session.method, taskId: task.id })),
  );
  const transport = await connectTaskQueue(queue, `repute-run-${process.pid}`);
  try {
    await publishTasks(transport, messages);
  } finally {
    await transport.close();
  }
  const children = startWorkers(workers, workerArgs);
  const failures = new Map<string, TaskFailure>();
  // Every published task decided or given up: the run's queue consumer is no longer needed.
  let finished = false;
  try {
    let emptyPolls = 0;
    let polls = 0;
    for (;;) {
      const decided = new Set<string>();
      for (const session of sessions) {
        const done = store.completedTaskIds(runId, session.method);
        for (const taskId of done) decided.add(`${session.method}/${taskId}`);
        options.onProgress?.(session.method, done.length, tasks.length);
        for (const record of store.taskFailures<TaskFailure>(runId, session.method)) {
          const key = `${session.method}/${record.taskId}`;
          if (record.updatedAt < startedAt || decided.has(key) || failures.has(key)) continue;
          failures.set(key, record.failure);
          options.onTaskFailure?.(record.failure);
        }
      }
      for (const key of failures.keys()) decided.add(key);
      const left = messages.filter((message) => !decided.has(`${message.method}/${message.taskId}`));
      if (signal.aborted) break;
      if (left.length === 0) {
        finished = true;
        break;
      }
      if (workers > 0 && children.every((child) => child.exitCode !== null || child.signalCode !== null))
        throw new RunFailedError({
          runId,
          failedTasks: left.length,
          message: `every local worker exited with ${left.length} tasks undecided; see their errors above, then rerun the same command (it redoes only the undecided tasks)`,
        });
      // A task given up after its delivery limit leaves the queue without a decision.
      // Read about every 2 s (each read is a connection to NATS), not at every poll of the store.
      polls++;
      if (polls % Math.max(1, Math.round(2000 / pollMs)) === 0)
        emptyPolls = (await queueDepth(queue.natsUrl, runId)) === 0 ? emptyPolls + 1 : 0;
      if (emptyPolls >= 3) {
        for (const message of left) {
          const failure: TaskFailure = {
            schemaVersion: 1,
            method: message.method,
            taskId: message.taskId,
            failures: [
              {
                kind: 'provider',
                act: 'task',
                agentId: 'worker',
                round: 0,
                message: `task given up after ${queue.maxDeliver} deliveries (its worker died or failed each time); a rerun publishes it again`,
              },
            ],
          };
          failures.set(`${message.method}/${message.taskId}`, failure);
          options.onTaskFailure?.(failure);
        }
        finished = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    await stopWorkers(children);
  }
  signal.throwIfAborted();
  // Interrupted or failed runs keep it (workers elsewhere stay attached for the rerun). One that
  // cannot be deleted now (NATS away) expires after the inactive threshold, as a crashed
  // coordinator's does; the decided run does not fail for it.
  if (finished) await deleteTaskQueue(queue, runId).catch(() => false);
  await settleReputation({ store, runId, team, sessions, start: options.reputationStart });
  return sessions.map((session) => {
    const records = store.taskResults(runId, session.method).map((record) => record.result);
    const failed = [...failures.values()].filter((failure) => failure.method === session.method);
    const resumedTasks = before.get(session.method)?.size ?? 0;
    const ran = records.length - resumedTasks;
    return {
      runId,
      method: session.method,
      records,
      ran,
      resumed,
      skipped: tasks.length - ran - failed.length,
      failed,
      resumedTasks,
    };
  });
}

/** Starts `count` `repute worker` processes of this program (its stderr shown, its stdout dropped). */
function startWorkers(count: number, args: readonly string[]): ChildProcess[] {
  const entry = process.argv[1];
  if (entry === undefined) return [];
  return Array.from({ length: count }, () =>
    spawn(process.execPath, [...process.execArgv, entry, 'worker', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
}

/** Stops local workers (SIGTERM, then SIGKILL after 10 s) and waits for them to exit. */
async function stopWorkers(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
