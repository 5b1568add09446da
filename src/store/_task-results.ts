import { StoreError } from '../core/errors.js';
import { assertInteger, assertNonEmptyString } from '../core/validate.js';
import type { AppendEvents } from './_events.js';
import type { SaveReputation } from './_reputation-snapshots.js';
import type { RunRow } from './_runs.js';
import { type StoreContext, toJson } from './_store-context.js';
import type { RecordUsage } from './_usage.js';
import type { AppendReputationEvent } from './_reputation-log.js';
import type { RecordTaskResultInput, Store, TaskFailureRecord, TaskResultRecord } from './types.js';

interface TaskRow {
  run_id: string;
  method: string;
  task_id: string;
  position: number;
  result: string;
  created_at: number;
}
interface FailureRow {
  run_id: string;
  method: string;
  task_id: string;
  failure: string;
  attempts: number;
  created_at: number;
  updated_at: number;
}

function toFailure<T>(row: FailureRow): TaskFailureRecord<T> {
  return {
    schemaVersion: 1,
    runId: row.run_id,
    method: row.method,
    taskId: row.task_id,
    failure: JSON.parse(row.failure) as T,
    attempts: row.attempts,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Writers of the other families that one finished task commits together with its result. */
export interface TaskResultWriters {
  readonly requireRun: (runId: string) => RunRow;
  readonly appendEvents: AppendEvents;
  readonly saveReputation: SaveReputation;
  readonly recordUsage: RecordUsage;
  readonly appendReputationEvent: AppendReputationEvent;
}

/**
 * The `task_results` and `task_failures` tables: one result per (run, method, task), written with its events, reputation
 * and usage; a failed task is kept apart until a result replaces it.
 */
export function createTaskResultsTable(
  { db, now, guard, transaction, lock }: StoreContext,
  writers: TaskResultWriters,
): Pick<Store, 'recordTaskResult' | 'completedTaskIds' | 'recordTaskFailure' | 'taskFailures' | 'taskResults'> {
  const statements = {
    // MAX on the (run_id, method, position) index is constant time; COUNT(*) grew with the run.
    nextPosition: db.prepare(
      'SELECT COALESCE(MAX(position) + 1, 0) AS count FROM task_results WHERE run_id = ? AND method = ?',
    ),
    insertTask: db.prepare(
      'INSERT INTO task_results (run_id, method, task_id, position, result, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    taskExists: db.prepare('SELECT 1 FROM task_results WHERE run_id = ? AND method = ? AND task_id = ?'),
    deleteFailure: db.prepare('DELETE FROM task_failures WHERE run_id = ? AND method = ? AND task_id = ?'),
    upsertFailure: db.prepare(
      'INSERT INTO task_failures (run_id, method, task_id, failure, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?) ON CONFLICT (run_id, method, task_id) DO UPDATE SET failure = excluded.failure, attempts = task_failures.attempts + 1, updated_at = excluded.updated_at',
    ),
    getFailure: db.prepare('SELECT * FROM task_failures WHERE run_id = ? AND method = ? AND task_id = ?'),
    completed: db.prepare('SELECT task_id FROM task_results WHERE run_id = ? AND method = ? ORDER BY position'),
  };
  return {
    recordTaskResult<T>(input: RecordTaskResultInput<T>): TaskResultRecord<T> {
      guard();
      const { runId, method, taskId, result, events = [], reputation = [], usage = [], reputationEvents = [] } = input;
      assertNonEmptyString('runId', runId);
      assertNonEmptyString('method', method, "pass the method name, e.g. 'drf'");
      assertNonEmptyString('taskId', taskId);
      const resultJson = toJson('result', result);
      return transaction(() => {
        lock(`run:${runId}`);
        writers.requireRun(runId);
        if (statements.taskExists.get(runId, method, taskId) !== undefined) {
          throw new StoreError(
            `task ${JSON.stringify(taskId)} of method ${JSON.stringify(method)} is already recorded in run ${JSON.stringify(runId)}; skip tasks listed by store.completedTaskIds(runId, method) when resuming`,
          );
        }
        const position = (statements.nextPosition.get(runId, method) as { count: number }).count;
        const createdAt = now();
        statements.insertTask.run(runId, method, taskId, position, resultJson, createdAt);
        statements.deleteFailure.run(runId, method, taskId);
        writers.appendEvents(runId, events, { method, taskId });
        reputation.forEach((entry, index) => writers.saveReputation(entry, `reputation[${index}]`));
        writers.recordUsage(usage, 'usage');
        reputationEvents.forEach((entry, index) => writers.appendReputationEvent(entry, `reputationEvents[${index}]`));
        return { schemaVersion: 1, runId, method, taskId, position, result: JSON.parse(resultJson) as T, createdAt };
      });
    },

    completedTaskIds(runId, method) {
      guard();
      return (statements.completed.all(runId, method) as { task_id: string }[]).map((row) => row.task_id);
    },

    recordTaskFailure<T>(input: { runId: string; method: string; taskId: string; failure: T }): TaskFailureRecord<T> {
      guard();
      const { runId, method, taskId, failure } = input;
      assertNonEmptyString('runId', runId);
      assertNonEmptyString('method', method, "pass the method name, e.g. 'drf'");
      assertNonEmptyString('taskId', taskId);
      const failureJson = toJson('failure', failure);
      return transaction(() => {
        lock(`run:${runId}`);
        writers.requireRun(runId);
        if (statements.taskExists.get(runId, method, taskId) !== undefined) {
          throw new StoreError(
            `task ${JSON.stringify(taskId)} of method ${JSON.stringify(method)} already has a result in run ${JSON.stringify(runId)}; a finished task cannot fail afterwards`,
          );
        }
        const at = now();
        statements.upsertFailure.run(runId, method, taskId, failureJson, at, at);
        return toFailure<T>(statements.getFailure.get(runId, method, taskId) as FailureRow);
      });
    },

    taskFailures<T>(runId: string, method?: string): TaskFailureRecord<T>[] {
      guard();
      const rows = (
        method === undefined
          ? db.prepare('SELECT * FROM task_failures WHERE run_id = ? ORDER BY method, created_at, rowid').all(runId)
          : db
              .prepare('SELECT * FROM task_failures WHERE run_id = ? AND method = ? ORDER BY created_at, rowid')
              .all(runId, method)
      ) as FailureRow[];
      return rows.map((row) => toFailure<T>(row));
    },

    taskResults<T>(runId: string, method?: string, options: { afterPosition?: number } = {}): TaskResultRecord<T>[] {
      guard();
      const { afterPosition } = options;
      if (afterPosition !== undefined) {
        assertNonEmptyString('method', method, 'pass the method whose results to read after a position');
        assertInteger(
          'afterPosition',
          afterPosition,
          -1,
          Number.MAX_SAFE_INTEGER,
          'pass the last position read, or -1',
        );
      }
      const rows = (
        method === undefined
          ? db.prepare('SELECT * FROM task_results WHERE run_id = ? ORDER BY method, position').all(runId)
          : db
              .prepare('SELECT * FROM task_results WHERE run_id = ? AND method = ? AND position > ? ORDER BY position')
              .all(runId, method, afterPosition ?? -1)
      ) as TaskRow[];
      return rows.map((row) => ({
        schemaVersion: 1,
        runId: row.run_id,
        method: row.method,
        taskId: row.task_id,
        position: row.position,
        result: JSON.parse(row.result) as T,
        createdAt: row.created_at,
      }));
    },
  };
}
