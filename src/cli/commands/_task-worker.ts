// A worker of a run spread over several processes (`repute worker`, or one of the `--workers N` that
// `repute run` starts): it takes the run's tasks from the JetStream queue one at a time and decides
// each as the single-process session would, reading the latest state of the run's reputation first.
//
// Parallel decisions and reputation order: a method's reputation is the team's shared log
// (docs/scaling.md). Before each task the worker brings its model to the log's latest state (its
// last read plus the events appended since; with `--reputation fresh`, the run's own events only)
// and keeps the version it read; the task's evidence batches are appended as events with the
// idempotency key `${runId}/${method}/${taskId}` in the task's own transaction, and its decision
// event records the version read. Decisions that run at the same time on different workers do not
// see each other's updates; none is lost or applied twice. With one worker the log holds only its
// own events, and every decision reads what the single process reads. A task already recorded
// (redelivered after its worker died, or published twice) is acknowledged and skipped; if two
// workers decide it at once, the store's per-run uniqueness keeps the first result and the second
// write rolls back whole, its reputation events with it.
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError, StoreError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import type { ProtocolSession } from '../../protocols/protocol.js';
import type { TaskOutcome } from '../../protocols/run-session.js';
import type { SessionStore, TaskFailure } from '../../protocols/session.js';
import type { Store } from '../../store/store.js';
import type { Transport } from '../../transport/transport.js';
import { parseTaskMessage, taskQueueNames } from './_task-queue.js';
import { createLoggedReputation, type LoggedReputation } from '../../store/_logged-reputation.js';

/** What a worker did with one queued message. */
export type WorkerTaskEvent =
  | { readonly kind: 'decided'; readonly method: string; readonly taskId: string; readonly deliveryCount: number }
  | { readonly kind: 'failed'; readonly method: string; readonly taskId: string; readonly failure: TaskFailure }
  | { readonly kind: 'skipped'; readonly method: string; readonly taskId: string; readonly reason: string };

/** Options of {@link runTaskWorker}. */
export interface TaskWorkerOptions {
  readonly store: Store;
  readonly transport: Transport;
  readonly runId: string;
  /** Team key reputation is saved under. */
  readonly team: string;
  /** The team's agent ids (added to a saved state that does not know them). */
  readonly agentIds: readonly AgentId[];
  /** Where reputation starts when the run has no state: the team's saved state, or the prior. */
  readonly reputationStart: 'team' | 'prior';
  /** The protocol's sessions, one per method. */
  readonly sessions: readonly ProtocolSession[];
  /** The run's tasks by id. */
  readonly tasks: ReadonlyMap<string, Task>;
  /** Stops taking tasks; the task in progress is abandoned (redelivered to another worker). */
  readonly signal: AbortSignal;
  /** Resolves when the worker should stop (the run is finished). */
  readonly done: Promise<void>;
  /**
   * What writes a task's result or failure (the store itself, or a wrapper adding events such as
   * the sandbox's grades, as the single-process session writes them). @default store
   */
  readonly writer?: Pick<SessionStore, 'recordTaskResult' | 'recordTaskFailure'> | undefined;
  /** Called after each message. @default none */
  readonly onTask?: ((event: WorkerTaskEvent) => void) | undefined;
}

/**
 * Takes the run's tasks from its queue until `done` resolves or `signal` aborts; resolves to what
 * it did. Each task: skip it if the store already has its result; else restore the method's state
 * from the store, decide the task, and write its result with a reputation that merges any update
 * another worker saved meanwhile.
 */
export async function runTaskWorker(options: TaskWorkerOptions): Promise<{ decided: number; skipped: number }> {
  const { store, transport, runId, sessions, tasks, signal, onTask } = options;
  const byMethod = new Map(sessions.map((session) => [session.method, session]));
  const states = new Map(sessions.map((session) => [session.method, createMethodState({ ...options, session })]));
  let decided = 0;
  let skipped = 0;
  const handle = async (data: Uint8Array, deliveryCount: number): Promise<void> => {
    const message = parseTaskMessage(data);
    if (message.runId !== runId)
      throw new InvalidArgumentError({
        parameter: 'message.runId',
        value: message.runId,
        message: `worker of run ${runId} got a task of run ${message.runId}; queues are per run`,
      });
    const session = byMethod.get(message.method);
    const task = tasks.get(message.taskId);
    if (session === undefined || task === undefined)
      throw new InvalidArgumentError({
        parameter: 'message',
        value: message,
        message: `task ${message.taskId} of method ${message.method} is not in this worker's team file and tasks; start the worker with the same team file and flags as the run`,
      });
    if (store.completedTaskIds(runId, message.method).includes(message.taskId)) {
      skipped++;
      onTask?.({ kind: 'skipped', method: message.method, taskId: message.taskId, reason: 'already recorded' });
      return;
    }
    const state = states.get(message.method) as MethodState;
    const outcome = await decideTask({ ...options, session, task, state });
    if (outcome === undefined) throw new Error(`the runner of ${message.method} settled no outcome for ${task.id}`);
    if (outcome.status === 'failed') {
      const failure: TaskFailure = {
        schemaVersion: 1,
        method: message.method,
        taskId: task.id,
        failures: outcome.failures,
      };
      try {
        (options.writer ?? store).recordTaskFailure?.({ runId, method: message.method, taskId: task.id, failure });
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
      }
      onTask?.({ kind: 'failed', method: message.method, taskId: task.id, failure });
      return;
    }
    try {
      outcome.write();
      decided++;
      onTask?.({ kind: 'decided', method: message.method, taskId: task.id, deliveryCount });
    } catch (error) {
      // Another worker recorded it first (the same task delivered twice): the first result stands.
      if (!(error instanceof StoreError) || !/already recorded/.test(error.message)) throw error;
      skipped++;
      onTask?.({
        kind: 'skipped',
        method: message.method,
        taskId: task.id,
        reason: 'recorded by another worker meanwhile',
      });
    }
  };
  const { subject, durable } = taskQueueNames(runId);
  const subscription = await transport.subscribe(
    subject,
    (message) => {
      if (signal.aborted) throw signal.reason;
      return handle(message.data, message.deliveryCount);
    },
    { durable },
  );
  try {
    await Promise.race([
      options.done,
      new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
  } finally {
    await subscription.stop();
  }
  return { decided, skipped };
}

/** A decided task whose `write` stores it; or a failed one. */
type DecidedTask = { readonly status: 'done'; write(): void } | Extract<TaskOutcome<unknown>, { status: 'failed' }>;

/** What a worker keeps per method between tasks: its view of the shared log and the run's results read so far. */
export interface MethodState {
  readonly logged: LoggedReputation | undefined;
  readonly records: unknown[];
}

/** A method's state for {@link decideTask}: its model on the team's shared log (when it has one). */
export function createMethodState(
  options: Pick<TaskWorkerOptions, 'store' | 'runId' | 'team' | 'reputationStart'> & { session: ProtocolSession },
): MethodState {
  const { store, runId, team, reputationStart, session } = options;
  return {
    logged: session.reputation
      ? createLoggedReputation({
          store,
          team,
          name: session.method,
          runId,
          start: reputationStart,
          model: session.reputation.model,
          create: session.reputation.create,
        })
      : undefined,
    records: [],
  };
}

/**
 * Runs one task with a runner restored from the store's latest state: the reputation from the
 * shared log (this worker's last read plus the events appended since), the carried state from the
 * run's results (those stored since this worker last read them, added to the ones it has).
 */
async function decideTask(
  options: TaskWorkerOptions & { session: ProtocolSession; task: Task; state: MethodState },
): Promise<DecidedTask | undefined> {
  const { store, runId, team, session, task, state, signal } = options;
  const method = session.method;
  const { logged, records } = state;
  records.push(
    ...store.taskResults(runId, method, { afterPosition: records.length - 1 }).map((record) => record.result),
  );
  const runner = await session.open({ reputation: logged?.model });
  runner.restore({ store, records });
  // The decision reads the log's latest state now, and records the version it read.
  logged?.sync();
  let outcome: TaskOutcome<unknown> | undefined;
  await runner.run({ tasks: [task], settle: (settled) => (outcome = settled), signal });
  if (outcome === undefined || outcome.status === 'failed') return outcome;
  const done = outcome;
  return {
    status: 'done',
    write() {
      (options.writer ?? store).recordTaskResult({
        runId,
        method,
        taskId: done.taskId,
        result: done.record,
        events: logged ? logged.stamp(done.events ?? []) : (done.events ?? []),
        // The team's snapshot is the fold of its log (written by the fold lease holder), not a task's.
        reputation: logged
          ? (done.reputation ?? []).filter((entry) => !('team' in entry.scope && entry.scope.team === team))
          : (done.reputation ?? []),
        reputationEvents: logged?.events(done.taskId) ?? [],
        ...(done.usage === undefined ? {} : { usage: done.usage }),
      });
      logged?.written();
    },
  };
}
