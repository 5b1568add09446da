// A worker of a run spread over several processes (`repute worker`, or one of the `--workers N` that
// `repute run` starts): it takes the run's tasks from the JetStream queue one at a time and decides
// each as the single-process session would, reading the latest state of the run's reputation first.
//
// Parallel decisions and reputation order: before each task the worker restores the method's
// reputation from the store (the run's saved state, else the team's, else the prior) and its carried
// state from the run's finished tasks, so a decision reads the latest state the store holds when it
// starts. While it runs, other workers may save theirs: the task's write then applies its own evidence
// batches (recorded as the model received them) to the latest saved state in the write's transaction,
// so no worker's update is lost or applied twice; with one worker nothing else writes, and every
// write is the state the single process writes. A task already recorded (redelivered after its worker
// died, or published twice) is acknowledged and skipped; if two workers decide it at once, the
// store's per-run uniqueness keeps the first result and the second write rolls back whole.
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError, StoreError } from '../../core/errors.js';
import type { Evidence, ReputationModel, ReputationSnapshot } from '../../core/reputation-model.js';
import type { Task } from '../../core/task.js';
import type { ProtocolSession } from '../../protocols/protocol.js';
import type { TaskOutcome } from '../../protocols/run-session.js';
import { restoreSnapshot, type SessionStore, type TaskFailure } from '../../protocols/session.js';
import type { Store } from '../../store/store.js';
import type { Transport } from '../../transport/transport.js';
import { parseTaskMessage, taskQueueNames } from './_task-queue.js';
import { recordingModel } from './_team-reputation.js';

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
  // Each method's model as the protocol made it (the prior), restored before every task.
  const priors = new Map(
    sessions.flatMap((session) => (session.reputation ? [[session.method, session.reputation.model.snapshot()]] : [])),
  );
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
    const outcome = await decideTask({ ...options, session, task, prior: priors.get(message.method) });
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

/** Runs one task with a runner restored from the store's latest state. */
async function decideTask(
  options: TaskWorkerOptions & { session: ProtocolSession; task: Task; prior: ReputationSnapshot | undefined },
): Promise<DecidedTask | undefined> {
  const { store, runId, team, agentIds, reputationStart, session, task, prior, signal } = options;
  const method = session.method;
  const runScope = { runId };
  const teamScope = { team };
  // What this task starts from: the run's and the team's saved state as they are now.
  const runBase = store.loadReputation({ scope: runScope, name: method });
  const teamBase = store.loadReputation({ scope: teamScope, name: method });
  const pending: Evidence[][] = [];
  let model: ReputationModel | undefined;
  if (session.reputation) {
    if (prior !== undefined) session.reputation.model.restore(prior);
    model = recordingModel(session.reputation.model, pending);
  }
  const runner = await session.open({ reputation: model });
  runner.restore({ store, records: store.taskResults(runId, method).map((record) => record.result) });
  pending.length = 0;
  let outcome: TaskOutcome<unknown> | undefined;
  await runner.run({ tasks: [task], settle: (settled) => (outcome = settled), signal });
  if (outcome === undefined || outcome.status === 'failed') return outcome;
  const done = outcome;
  const replay = session.reputation;
  // The state to save under `scope`: this task's own when nobody saved since it started, else its
  // evidence applied to what was saved meanwhile.
  const merged = (scope: { runId: string } | { team: string }, own: ReputationSnapshot): ReputationSnapshot => {
    const latest = store.loadReputation({ scope, name: method });
    // A run starting from the prior replaces the team's state with its own at its first task.
    const base =
      'team' in scope ? (reputationStart === 'prior' && runBase === undefined ? 'replace' : teamBase) : runBase;
    if (
      base === 'replace'
        ? store.loadReputation({ scope: runScope, name: method }) === undefined
        : JSON.stringify(latest) === JSON.stringify(base)
    )
      return own;
    if (!replay) return latest ?? own;
    const fresh = replay.create();
    restoreSnapshot(fresh, latest, agentIds);
    for (const evidence of pending) fresh.observe(evidence);
    return fresh.snapshot();
  };
  return {
    status: 'done',
    write() {
      store.transaction(() => {
        // Computed before the result is written (which writes the run's scope).
        const reputation = (done.reputation ?? []).map((entry) =>
          entry.name === method && ('runId' in entry.scope ? entry.scope.runId === runId : entry.scope.team === team)
            ? { ...entry, snapshot: merged(entry.scope, entry.snapshot) }
            : entry,
        );
        (options.writer ?? store).recordTaskResult({
          runId,
          method,
          taskId: done.taskId,
          result: done.record,
          events: done.events ?? [],
          reputation,
          ...(done.usage === undefined ? {} : { usage: done.usage }),
        });
      });
    },
  };
}
