import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import type { AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError, NotFoundError, StoreError } from '../core/errors.js';
import type { SpanData } from '../core/trace.js';
import { assertInteger, assertNonEmptyString, assertNonNegative } from '../core/validate.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import { LATEST_SCHEMA_VERSION, migrate } from './_schema.js';

/** Lifecycle state of a run. */
export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted';

const RUN_STATUSES: readonly RunStatus[] = ['running', 'completed', 'failed', 'interrupted'];

/** One run (a demo, a `repute run`, an evaluation) as persisted. */
export interface RunRecord {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Unique run id, as given to {@link Store.createRun}. */
  readonly id: string;
  /** What produced the run, e.g. `demo`, `debate`, `eval`. */
  readonly kind: string;
  /** Team key whose agents and reputation the run loads and saves, or `null`. */
  readonly team: string | null;
  /** The run's configuration, as given to {@link Store.createRun}. */
  readonly config: unknown;
  /** Lifecycle state; `running` from creation until {@link Store.setRunStatus} changes it. */
  readonly status: RunStatus;
  /** Milliseconds from the store's clock. */
  readonly createdAt: number;
  /** Milliseconds from the store's clock. */
  readonly updatedAt: number;
}

/** Input of {@link Store.createRun} and {@link Store.ensureRun}. */
export interface CreateRunInput {
  /** Unique run id. */
  readonly id: string;
  /** What produced the run, e.g. `demo`. */
  readonly kind: string;
  /** JSON-serialisable configuration; a resumed run must present the same one. */
  readonly config: unknown;
  /** Team key for agent identities and reputation that persist across runs. @default null */
  readonly team?: string | null;
}

/** One finished task of one method in a run. */
export interface TaskResultRecord<T = unknown> {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Id of the run the task belongs to. */
  readonly runId: string;
  /** Method (protocol or baseline name) that produced the result. */
  readonly method: string;
  /** Id of the finished task; unique within (run, method). */
  readonly taskId: string;
  /** 0-based completion order within (run, method). */
  readonly position: number;
  /** The task's JSON-serialisable result, as read back from the store. */
  readonly result: T;
  /** Milliseconds from the store's clock. */
  readonly createdAt: number;
}

/** An event to append to a run's log: span data plus optional span bookkeeping. */
export interface EventInput {
  /** The span data to persist; its `type` becomes the event type. */
  readonly data: SpanData;
  /** Method the event belongs to; filled from the task result when written with one. */
  readonly method?: string | null;
  /** Task the event belongs to; filled from the task result when written with one. */
  readonly taskId?: string | null;
  /** Id of the span that produced the event, if traced. @default null */
  readonly spanId?: string | null;
  /** Id of the enclosing span, if any. @default null */
  readonly parentId?: string | null;
  /** Milliseconds from the tracer's clock. */
  readonly startedAt?: number | null;
  /** Milliseconds from the tracer's clock. */
  readonly endedAt?: number | null;
  /** Error message when the span failed. */
  readonly error?: string | null;
}

/** One persisted event of a run's log. */
export interface EventRecord {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Id of the run whose log holds the event. */
  readonly runId: string;
  /** 1-based position in the run's log; gap-free. */
  readonly seq: number;
  /** `data.type`, duplicated for filtering. */
  readonly type: SpanData['type'];
  /** Method the event belongs to, or `null` when it is not tied to one. */
  readonly method: string | null;
  /** Task the event belongs to (given, from the task result, or `data.taskId`), or `null`. */
  readonly taskId: string | null;
  /** Id of the span that produced the event, or `null`. */
  readonly spanId: string | null;
  /** Id of the enclosing span, or `null`. */
  readonly parentId: string | null;
  /** Span start in milliseconds from the tracer's clock, or `null`. */
  readonly startedAt: number | null;
  /** Span end in milliseconds from the tracer's clock, or `null`. */
  readonly endedAt: number | null;
  /** Error message when the span failed, else `null`. */
  readonly error: string | null;
  /** The persisted span data. */
  readonly data: SpanData;
}

/** Where a reputation snapshot lives: with one run, or with a team across runs. */
export type ReputationScope = { readonly runId: string; readonly team?: undefined } | { readonly team: string; readonly runId?: undefined };

/** Input of {@link Store.saveReputation}. */
export interface SaveReputationInput {
  /** Whether the snapshot belongs to one run or to a team across runs. */
  readonly scope: ReputationScope;
  /** Key of the snapshot within the scope, usually the method name (one reputation model per method). */
  readonly name: string;
  /** The reputation model's serialisable state to store. */
  readonly snapshot: ReputationSnapshot;
}

/** One LLM call (or cache hit) in the cost ledger. */
export interface UsageEntry {
  /** Run the call belongs to, if any. @default null */
  readonly runId?: string | null;
  /** Agent that made the call, if any. @default null */
  readonly agentId?: string | null;
  /** Task the call served, if any. @default null */
  readonly taskId?: string | null;
  /** The agent act, e.g. `propose`, `revise`, `rate`. */
  readonly act?: string | null;
  /** Provider model id. */
  readonly model?: string | null;
  /** Prompt tokens, integer ≥ 0. */
  readonly inputTokens: number;
  /** Completion tokens, integer ≥ 0. */
  readonly outputTokens: number;
  /** Cost in US dollars (or the team's price unit), ≥ 0; 0 for cache hits. */
  readonly cost: number;
  /** True when the reply came from the record/replay cache. */
  readonly cached: boolean;
}

/** A persisted {@link UsageEntry}. */
export interface UsageRecord extends Required<{ [K in keyof UsageEntry]: Exclude<UsageEntry[K], undefined> }> {
  /** Auto-increment row id, integer ≥ 1; increases with insertion order. */
  readonly id: number;
  /** Milliseconds from the store's clock. */
  readonly createdAt: number;
}

/** What {@link Store.usageSummary} groups by. */
export type UsageGroup = 'run' | 'agent' | 'task' | 'act' | 'model';

/** Totals of one group of ledger entries. */
export interface UsageSummaryRow {
  /** The group's key (`null` when entries had none). */
  readonly key: string | null;
  /** Entries in the group. */
  readonly calls: number;
  /** Entries served from the cache. */
  readonly cachedCalls: number;
  /** Sum of prompt tokens in the group, integer ≥ 0. */
  readonly inputTokens: number;
  /** Sum of completion tokens in the group, integer ≥ 0. */
  readonly outputTokens: number;
  /** Sum of costs in the group, in US dollars (or the team's price unit), ≥ 0. */
  readonly cost: number;
}

/** A task that failed (e.g. its model calls failed after retries): kept apart from results, so a rerun redoes it. */
export interface TaskFailureRecord<T = unknown> {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly method: string;
  readonly taskId: string;
  /** JSON-serialisable description of the last failure (no secrets: callers pass redacted messages). */
  readonly failure: T;
  /** How many times the task has failed in this run (reruns included), ≥ 1. */
  readonly attempts: number;
  /** Milliseconds from the store's clock: first and last failure. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Input of {@link Store.recordTaskResult}: everything one finished task writes, committed together. */
export interface RecordTaskResultInput<T = unknown> {
  /** Id of an existing run; unknown ids throw `NotFoundError`. */
  readonly runId: string;
  /** Method (protocol or baseline name) that finished the task. */
  readonly method: string;
  /** Id of the finished task; at most one result per (run, method, task). */
  readonly taskId: string;
  /** JSON-serialisable result (decision, correctness, weights...). */
  readonly result: T;
  /** Events of the task, appended in order with `method` and `taskId` filled in. @default [] */
  readonly events?: readonly (EventInput | SpanData)[];
  /** Reputation state after the task, so a resumed run continues from it. @default [] */
  readonly reputation?: readonly SaveReputationInput[];
  /** Ledger entries of the task. @default [] */
  readonly usage?: readonly UsageEntry[];
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** File path, or `:memory:` for a private in-memory database. */
  readonly path: string;
  /** Clock for every timestamp, in milliseconds. @default Date.now */
  readonly now?: () => number;
  /** Open an existing file read-only (no migrations run; the file must be current). @default false */
  readonly readonly?: boolean;
}

/**
 * The SQLite store every protocol uses: runs, task results, event logs, reputation, team agents,
 * the LLM record/replay cache and the cost ledger. Methods are synchronous (better-sqlite3) and
 * each write is atomic.
 */
export interface Store {
  /** The path the store was opened with. */
  readonly path: string;
  /** Schema version of the open database. */
  readonly schemaVersion: number;

  /** Creates a run with status `running`; throws if the id exists. */
  createRun(input: CreateRunInput): RunRecord;
  /**
   * Returns the run with this id, creating it if missing. A resumed run must have the same kind,
   * team and config, else `InvalidArgumentError`; its status is set back to `running`.
   */
  ensureRun(input: CreateRunInput): { run: RunRecord; resumed: boolean };
  /** The run, or `undefined`. */
  getRun(runId: string): RunRecord | undefined;
  /** Runs in creation order, optionally only one kind or team. */
  listRuns(filter?: { kind?: string; team?: string }): RunRecord[];
  /** Sets a run's status; throws `NotFoundError` for unknown runs. */
  setRunStatus(runId: string, status: RunStatus): RunRecord;

  /**
   * Writes one finished task (its result, events, reputation snapshots and ledger entries) in one
   * transaction: after a crash either all of it is there or none. A second result for the same
   * (run, method, task) throws `StoreError` and writes nothing.
   */
  recordTaskResult<T>(input: RecordTaskResultInput<T>): TaskResultRecord<T>;
  /** Ids of the tasks already finished by a method in a run, in completion order. */
  completedTaskIds(runId: string, method: string): string[];
  /**
   * Records that a task failed (replacing an earlier failure of the same task and counting the
   * attempts). A failed task has no result, so a rerun redoes it; a later result removes the failure.
   */
  recordTaskFailure<T>(input: { runId: string; method: string; taskId: string; failure: T }): TaskFailureRecord<T>;
  /** Tasks of a run that failed and have no result yet, per method (sorted by method, then first failure). */
  taskFailures<T = unknown>(runId: string, method?: string): TaskFailureRecord<T>[];
  /** Task results of a run, in completion order per method (methods sorted by name). */
  taskResults<T = unknown>(runId: string, method?: string): TaskResultRecord<T>[];

  /** Appends events to a run's log in one transaction; returns their seq numbers. */
  appendEvents(runId: string, events: readonly (EventInput | SpanData)[]): number[];
  /** A run's events in seq order, optionally filtered. */
  events(runId: string, filter?: { type?: SpanData['type']; method?: string; taskId?: string; afterSeq?: number }): EventRecord[];

  /** Saves (replaces) a reputation snapshot under (scope, name). */
  saveReputation(input: SaveReputationInput): void;
  /** The snapshot saved under (scope, name), or `undefined`. */
  loadReputation(input: { scope: ReputationScope; name: string }): ReputationSnapshot | undefined;

  /** Saves (replaces) a team's agent identities, keeping their order. */
  saveTeam(team: string, agents: readonly AgentIdentity[]): void;
  /** A team's agent identities in saved order, or `undefined` for an unknown team. */
  loadTeam(team: string): AgentIdentity[] | undefined;

  /** The cached LLM response under a request hash, or `undefined`. */
  getCachedResponse(key: string): unknown;
  /** Stores a response under a request hash; the first write wins. Returns whether it was new. */
  putCachedResponse(input: { key: string; value: unknown; model?: string | null }): boolean;
  /** Number of cached responses. */
  countCachedResponses(): number;

  /** Appends ledger entries in one transaction. */
  recordUsage(entries: UsageEntry | readonly UsageEntry[]): void;
  /** Ledger entries, oldest first, optionally for one run. */
  usageEntries(filter?: { runId?: string }): UsageRecord[];
  /** Ledger totals grouped by run, agent, task, act or model (sorted by key), optionally for one run. */
  usageSummary(input: { by: UsageGroup; runId?: string }): UsageSummaryRow[];

  /** Runs `work` in one transaction (nested calls join it); rethrows after rolling back. */
  transaction<T>(work: () => T): T;
  /** Closes the database; further calls throw. */
  close(): void;
}

interface FailureRow { run_id: string; method: string; task_id: string; failure: string; attempts: number; created_at: number; updated_at: number }

function toFailure<T>(row: FailureRow): TaskFailureRecord<T> {
  return { schemaVersion: 1, runId: row.run_id, method: row.method, taskId: row.task_id, failure: JSON.parse(row.failure) as T, attempts: row.attempts, createdAt: row.created_at, updatedAt: row.updated_at };
}

interface RunRow { id: string; kind: string; team: string | null; config: string; status: string; created_at: number; updated_at: number }
interface TaskRow { run_id: string; method: string; task_id: string; position: number; result: string; created_at: number }
interface EventRow {
  run_id: string; seq: number; type: string; method: string | null; task_id: string | null; span_id: string | null;
  parent_id: string | null; started_at: number | null; ended_at: number | null; error: string | null; data: string;
}
interface UsageRow {
  id: number; run_id: string | null; agent_id: string | null; task_id: string | null; act: string | null; model: string | null;
  input_tokens: number; output_tokens: number; cost: number; cached: number; created_at: number;
}

const GROUP_COLUMNS: Record<UsageGroup, string> = { run: 'run_id', agent: 'agent_id', task: 'task_id', act: 'act', model: 'model' };

/**
 * Opens (and migrates) a SQLite store in WAL mode.
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * const { run } = store.ensureRun({ id: 'run-1', kind: 'debate', config: { seed: 7 } });
 * const done = new Set(store.completedTaskIds(run.id, 'drf'));
 * // ... for each task not in `done`:
 * store.recordTaskResult({ runId: run.id, method: 'drf', taskId: 't1', result: { correct: true }, events: [] });
 * store.close();
 */
export function openStore({ path, now = Date.now, readonly = false }: OpenStoreOptions): Store {
  assertNonEmptyString('path', path, "pass a file path such as 'repute.db' or ':memory:'");
  let db: Database.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (error) {
    throw new StoreError(`cannot open store ${path}: ${(error as Error).message}; check that the directory exists and is writable`, { cause: error });
  }
  let schemaVersion: number;
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode survives a killed process (only an OS crash can lose the last commit).
      db.pragma('synchronous = NORMAL');
      schemaVersion = migrate(db, path, now);
    } else {
      const row = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
      schemaVersion = row === undefined ? 0 : (db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number }).version;
      if (schemaVersion !== LATEST_SCHEMA_VERSION) {
        throw new StoreError(`store ${path} has schema version ${schemaVersion}, expected ${LATEST_SCHEMA_VERSION}; open it once without readonly to migrate it`);
      }
    }
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`cannot initialise store ${path}: ${(error as Error).message}`, { cause: error });
  }

  const statements = {
    insertRun: db.prepare('INSERT INTO runs (id, kind, team, config, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    getRun: db.prepare('SELECT * FROM runs WHERE id = ?'),
    setRunStatus: db.prepare('UPDATE runs SET status = ?, updated_at = ? WHERE id = ?'),
    // MAX on the (run_id, method, position) index is constant time; COUNT(*) grew with the run.
    nextPosition: db.prepare('SELECT COALESCE(MAX(position) + 1, 0) AS count FROM task_results WHERE run_id = ? AND method = ?'),
    insertTask: db.prepare('INSERT INTO task_results (run_id, method, task_id, position, result, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    taskExists: db.prepare('SELECT 1 FROM task_results WHERE run_id = ? AND method = ? AND task_id = ?'),
    deleteFailure: db.prepare('DELETE FROM task_failures WHERE run_id = ? AND method = ? AND task_id = ?'),
    upsertFailure: db.prepare(
      'INSERT INTO task_failures (run_id, method, task_id, failure, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?) ON CONFLICT (run_id, method, task_id) DO UPDATE SET failure = excluded.failure, attempts = attempts + 1, updated_at = excluded.updated_at',
    ),
    getFailure: db.prepare('SELECT * FROM task_failures WHERE run_id = ? AND method = ? AND task_id = ?'),
    completed: db.prepare('SELECT task_id FROM task_results WHERE run_id = ? AND method = ? ORDER BY position'),
    nextSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM events WHERE run_id = ?'),
    insertEvent: db.prepare(
      'INSERT INTO events (run_id, seq, type, method, task_id, span_id, parent_id, started_at, ended_at, error, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    saveReputation: db.prepare(
      'INSERT INTO reputation (scope, scope_id, name, snapshot, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, scope_id, name) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at',
    ),
    loadReputation: db.prepare('SELECT snapshot FROM reputation WHERE scope = ? AND scope_id = ? AND name = ?'),
    deleteTeam: db.prepare('DELETE FROM team_agents WHERE team = ?'),
    insertTeamAgent: db.prepare('INSERT INTO team_agents (team, agent_id, position, identity, updated_at) VALUES (?, ?, ?, ?, ?)'),
    loadTeam: db.prepare('SELECT identity FROM team_agents WHERE team = ? ORDER BY position'),
    getCache: db.prepare('SELECT value FROM llm_cache WHERE key = ?'),
    putCache: db.prepare('INSERT OR IGNORE INTO llm_cache (key, model, value, created_at) VALUES (?, ?, ?, ?)'),
    countCache: db.prepare('SELECT COUNT(*) AS count FROM llm_cache'),
    insertUsage: db.prepare(
      'INSERT INTO cost_ledger (run_id, agent_id, task_id, act, model, input_tokens, output_tokens, cost, cached, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  };

  let closed = false;
  const guard = (): void => {
    if (closed) throw new StoreError(`store ${path} is closed; open it again with openStore({ path })`);
  };

  const requireRun = (runId: string): RunRow => {
    const row = statements.getRun.get(runId) as RunRow | undefined;
    if (row === undefined) {
      throw new NotFoundError({ entity: 'run', id: runId, message: `unknown run id ${JSON.stringify(runId)} in store ${path}; create it first with store.createRun({ id, kind, config })` });
    }
    return row;
  };

  const appendEventsUnchecked = (runId: string, events: readonly (EventInput | SpanData)[], defaults: { method?: string; taskId?: string }): number[] => {
    let seq = (statements.nextSeq.get(runId) as { seq: number }).seq;
    const seqs: number[] = [];
    for (const [index, raw] of events.entries()) {
      const event = normalizeEvent(raw, `events[${index}]`);
      statements.insertEvent.run(
        runId,
        seq,
        event.data.type,
        event.method ?? defaults.method ?? null,
        event.taskId ?? defaults.taskId ?? eventTaskId(event.data),
        event.spanId ?? null,
        event.parentId ?? null,
        event.startedAt ?? null,
        event.endedAt ?? null,
        event.error ?? null,
        toJson(`events[${index}].data`, event.data),
      );
      seqs.push(seq);
      seq += 1;
    }
    return seqs;
  };

  const saveReputationUnchecked = ({ scope, name, snapshot }: SaveReputationInput, parameter: string): void => {
    assertNonEmptyString(`${parameter}.name`, name, "use the method name, e.g. 'drf'");
    const [kind, id] = scopeKey(scope, `${parameter}.scope`);
    if (snapshot === null || typeof snapshot !== 'object' || snapshot.schemaVersion !== 1) {
      throw new InvalidArgumentError({ parameter: `${parameter}.snapshot`, value: snapshot, message: `${parameter}.snapshot must be a ReputationSnapshot with schemaVersion 1; pass model.snapshot()` });
    }
    statements.saveReputation.run(kind, id, name, toJson(`${parameter}.snapshot`, snapshot), now());
  };

  const recordUsageUnchecked = (entries: readonly UsageEntry[], parameter: string): void => {
    const createdAt = now();
    for (const [index, entry] of entries.entries()) {
      const field = `${parameter}[${index}]`;
      assertInteger(`${field}.inputTokens`, entry.inputTokens, 0);
      assertInteger(`${field}.outputTokens`, entry.outputTokens, 0);
      assertNonNegative(`${field}.cost`, entry.cost);
      if (typeof entry.cached !== 'boolean') {
        throw new InvalidArgumentError({ parameter: `${field}.cached`, value: entry.cached, message: `${field}.cached must be a boolean, got ${String(entry.cached)}` });
      }
      statements.insertUsage.run(
        entry.runId ?? null,
        entry.agentId ?? null,
        entry.taskId ?? null,
        entry.act ?? null,
        entry.model ?? null,
        entry.inputTokens,
        entry.outputTokens,
        entry.cost,
        entry.cached ? 1 : 0,
        createdAt,
      );
    }
  };

  const transaction = <T>(work: () => T): T => {
    guard();
    return db.transaction(work).immediate();
  };

  const store: Store = {
    path,
    schemaVersion,

    createRun(input) {
      guard();
      const { id, kind, team, config } = validateRunInput(input);
      const createdAt = now();
      try {
        statements.insertRun.run(id, kind, team, config, 'running', createdAt, createdAt);
      } catch (error) {
        if (isConstraint(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
          throw new InvalidArgumentError({ parameter: 'id', value: id, message: `run ${JSON.stringify(id)} already exists in store ${path}; pick a new id or resume it with store.ensureRun(...)` });
        }
        throw wrapError(error, `create run ${id}`);
      }
      return toRun(requireRun(id));
    },

    ensureRun(input) {
      guard();
      const { id, kind, team, config } = validateRunInput(input);
      return transaction(() => {
        const existing = statements.getRun.get(id) as RunRow | undefined;
        if (existing === undefined) {
          const createdAt = now();
          statements.insertRun.run(id, kind, team, config, 'running', createdAt, createdAt);
          return { run: toRun(requireRun(id)), resumed: false };
        }
        const mismatches: string[] = [];
        if (existing.kind !== kind) mismatches.push(`kind ${JSON.stringify(existing.kind)} vs ${JSON.stringify(kind)}`);
        if (existing.team !== team) mismatches.push(`team ${JSON.stringify(existing.team)} vs ${JSON.stringify(team)}`);
        if (!isDeepStrictEqual(JSON.parse(existing.config), JSON.parse(config))) mismatches.push('config differs');
        if (mismatches.length > 0) {
          throw new InvalidArgumentError({
            parameter: 'id',
            value: id,
            message: `run ${JSON.stringify(id)} exists in store ${path} with a different setup (${mismatches.join('; ')}); resume it with the same configuration or choose a new run id`,
          });
        }
        statements.setRunStatus.run('running', now(), id);
        return { run: toRun(requireRun(id)), resumed: true };
      });
    },

    getRun(runId) {
      guard();
      const row = statements.getRun.get(runId) as RunRow | undefined;
      return row === undefined ? undefined : toRun(row);
    },

    listRuns(filter = {}) {
      guard();
      const clauses: string[] = [];
      const values: string[] = [];
      if (filter.kind !== undefined) { clauses.push('kind = ?'); values.push(filter.kind); }
      if (filter.team !== undefined) { clauses.push('team = ?'); values.push(filter.team); }
      const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
      return (db.prepare(`SELECT * FROM runs ${where} ORDER BY created_at, rowid`).all(...values) as RunRow[]).map(toRun);
    },

    setRunStatus(runId, status) {
      guard();
      if (!RUN_STATUSES.includes(status)) {
        throw new InvalidArgumentError({ parameter: 'status', value: status, message: `status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(status)}` });
      }
      requireRun(runId);
      statements.setRunStatus.run(status, now(), runId);
      return toRun(requireRun(runId));
    },

    recordTaskResult<T>(input: RecordTaskResultInput<T>): TaskResultRecord<T> {
      guard();
      const { runId, method, taskId, result, events = [], reputation = [], usage = [] } = input;
      assertNonEmptyString('runId', runId);
      assertNonEmptyString('method', method, "pass the method name, e.g. 'drf'");
      assertNonEmptyString('taskId', taskId);
      const resultJson = toJson('result', result);
      return transaction(() => {
        requireRun(runId);
        if (statements.taskExists.get(runId, method, taskId) !== undefined) {
          throw new StoreError(
            `task ${JSON.stringify(taskId)} of method ${JSON.stringify(method)} is already recorded in run ${JSON.stringify(runId)}; skip tasks listed by store.completedTaskIds(runId, method) when resuming`,
          );
        }
        const position = (statements.nextPosition.get(runId, method) as { count: number }).count;
        const createdAt = now();
        statements.insertTask.run(runId, method, taskId, position, resultJson, createdAt);
        statements.deleteFailure.run(runId, method, taskId);
        appendEventsUnchecked(runId, events, { method, taskId });
        reputation.forEach((entry, index) => saveReputationUnchecked(entry, `reputation[${index}]`));
        recordUsageUnchecked(usage, 'usage');
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
        requireRun(runId);
        if (statements.taskExists.get(runId, method, taskId) !== undefined) {
          throw new StoreError(`task ${JSON.stringify(taskId)} of method ${JSON.stringify(method)} already has a result in run ${JSON.stringify(runId)}; a finished task cannot fail afterwards`);
        }
        const at = now();
        statements.upsertFailure.run(runId, method, taskId, failureJson, at, at);
        return toFailure<T>(statements.getFailure.get(runId, method, taskId) as FailureRow);
      });
    },

    taskFailures<T>(runId: string, method?: string): TaskFailureRecord<T>[] {
      guard();
      const rows = (method === undefined
        ? db.prepare('SELECT * FROM task_failures WHERE run_id = ? ORDER BY method, created_at, rowid').all(runId)
        : db.prepare('SELECT * FROM task_failures WHERE run_id = ? AND method = ? ORDER BY created_at, rowid').all(runId, method)) as FailureRow[];
      return rows.map((row) => toFailure<T>(row));
    },

    taskResults<T>(runId: string, method?: string): TaskResultRecord<T>[] {
      guard();
      const rows = (method === undefined
        ? db.prepare('SELECT * FROM task_results WHERE run_id = ? ORDER BY method, position').all(runId)
        : db.prepare('SELECT * FROM task_results WHERE run_id = ? AND method = ? ORDER BY position').all(runId, method)) as TaskRow[];
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

    appendEvents(runId, events) {
      guard();
      assertNonEmptyString('runId', runId);
      return transaction(() => {
        requireRun(runId);
        return appendEventsUnchecked(runId, events, {});
      });
    },

    events(runId, filter = {}) {
      guard();
      const clauses = ['run_id = ?'];
      const values: Array<string | number> = [runId];
      if (filter.type !== undefined) { clauses.push('type = ?'); values.push(filter.type); }
      if (filter.method !== undefined) { clauses.push('method = ?'); values.push(filter.method); }
      if (filter.taskId !== undefined) { clauses.push('task_id = ?'); values.push(filter.taskId); }
      if (filter.afterSeq !== undefined) { clauses.push('seq > ?'); values.push(filter.afterSeq); }
      const rows = db.prepare(`SELECT * FROM events WHERE ${clauses.join(' AND ')} ORDER BY seq`).all(...values) as EventRow[];
      return rows.map((row) => ({
        schemaVersion: 1,
        runId: row.run_id,
        seq: row.seq,
        type: row.type as SpanData['type'],
        method: row.method,
        taskId: row.task_id,
        spanId: row.span_id,
        parentId: row.parent_id,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        error: row.error,
        data: JSON.parse(row.data) as SpanData,
      }));
    },

    saveReputation(input) {
      guard();
      transaction(() => saveReputationUnchecked(input, 'input'));
    },

    loadReputation({ scope, name }) {
      guard();
      const [kind, id] = scopeKey(scope, 'scope');
      const row = statements.loadReputation.get(kind, id, name) as { snapshot: string } | undefined;
      return row === undefined ? undefined : (JSON.parse(row.snapshot) as ReputationSnapshot);
    },

    saveTeam(team, agents) {
      guard();
      assertNonEmptyString('team', team, "pass a team key such as 'math-team'");
      if (!Array.isArray(agents)) {
        throw new InvalidArgumentError({ parameter: 'agents', value: agents, message: 'agents must be an array of AgentIdentity' });
      }
      const seen = new Set<string>();
      agents.forEach((agent, index) => {
        assertNonEmptyString(`agents[${index}].id`, agent?.id);
        if (seen.has(agent.id)) {
          throw new InvalidArgumentError({ parameter: `agents[${index}].id`, value: agent.id, message: `duplicate agent id ${JSON.stringify(agent.id)} in team ${JSON.stringify(team)}` });
        }
        seen.add(agent.id);
      });
      transaction(() => {
        statements.deleteTeam.run(team);
        const updatedAt = now();
        agents.forEach((agent, index) => statements.insertTeamAgent.run(team, agent.id, index, toJson(`agents[${index}]`, agent), updatedAt));
      });
    },

    loadTeam(team) {
      guard();
      const rows = statements.loadTeam.all(team) as { identity: string }[];
      return rows.length === 0 ? undefined : rows.map((row) => JSON.parse(row.identity) as AgentIdentity);
    },

    getCachedResponse(key) {
      guard();
      const row = statements.getCache.get(key) as { value: string } | undefined;
      return row === undefined ? undefined : JSON.parse(row.value);
    },

    putCachedResponse({ key, value, model = null }) {
      guard();
      assertNonEmptyString('key', key);
      return statements.putCache.run(key, model, toJson('value', value), now()).changes === 1;
    },

    countCachedResponses() {
      guard();
      return (statements.countCache.get() as { count: number }).count;
    },

    recordUsage(entries) {
      guard();
      const list = Array.isArray(entries) ? (entries as readonly UsageEntry[]) : [entries as UsageEntry];
      transaction(() => recordUsageUnchecked(list, 'entries'));
    },

    usageEntries(filter = {}) {
      guard();
      const rows = (filter.runId === undefined
        ? db.prepare('SELECT * FROM cost_ledger ORDER BY id').all()
        : db.prepare('SELECT * FROM cost_ledger WHERE run_id = ? ORDER BY id').all(filter.runId)) as UsageRow[];
      return rows.map((row) => ({
        id: row.id,
        runId: row.run_id,
        agentId: row.agent_id,
        taskId: row.task_id,
        act: row.act,
        model: row.model,
        inputTokens: row.input_tokens,
        outputTokens: row.output_tokens,
        cost: row.cost,
        cached: row.cached === 1,
        createdAt: row.created_at,
      }));
    },

    usageSummary({ by, runId }) {
      guard();
      const column = GROUP_COLUMNS[by];
      if (column === undefined) {
        throw new InvalidArgumentError({ parameter: 'by', value: by, message: `by must be one of ${Object.keys(GROUP_COLUMNS).join(', ')}, got ${JSON.stringify(by)}` });
      }
      const where = runId === undefined ? '' : 'WHERE run_id = ?';
      const rows = db
        .prepare(
          `SELECT ${column} AS key, COUNT(*) AS calls, SUM(cached) AS cached_calls, SUM(input_tokens) AS input_tokens,
                  SUM(output_tokens) AS output_tokens, SUM(cost) AS cost
           FROM cost_ledger ${where} GROUP BY ${column} ORDER BY ${column}`,
        )
        .all(...(runId === undefined ? [] : [runId])) as Array<{ key: string | null; calls: number; cached_calls: number; input_tokens: number; output_tokens: number; cost: number }>;
      return rows.map((row) => ({
        key: row.key,
        calls: row.calls,
        cachedCalls: row.cached_calls,
        inputTokens: row.input_tokens,
        outputTokens: row.output_tokens,
        cost: row.cost,
      }));
    },

    transaction,

    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };

  function wrapError(error: unknown, what: string): StoreError {
    return new StoreError(`store ${path}: cannot ${what}: ${(error as Error).message}`, { cause: error });
  }

  return store;
}

function validateRunInput(input: CreateRunInput): { id: string; kind: string; team: string | null; config: string } {
  assertNonEmptyString('id', input?.id, "pass a run id such as 'run-2027-01'");
  assertNonEmptyString('kind', input.kind, "pass what produced the run, e.g. 'debate'");
  const team = input.team ?? null;
  if (team !== null) assertNonEmptyString('team', team, 'pass a team key or omit it');
  return { id: input.id, kind: input.kind, team, config: toJson('config', input.config ?? null) };
}

function toRun(row: RunRow): RunRecord {
  return {
    schemaVersion: 1,
    id: row.id,
    kind: row.kind,
    team: row.team,
    config: JSON.parse(row.config),
    status: row.status as RunStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function scopeKey(scope: ReputationScope, parameter: string): ['run' | 'team', string] {
  if (scope !== null && typeof scope === 'object') {
    if (typeof scope.runId === 'string' && scope.runId.length > 0 && scope.team === undefined) return ['run', scope.runId];
    if (typeof scope.team === 'string' && scope.team.length > 0 && scope.runId === undefined) return ['team', scope.team];
  }
  throw new InvalidArgumentError({ parameter, value: scope, message: `${parameter} must be { runId } or { team } (exactly one, non-empty), got ${JSON.stringify(scope)}` });
}

function normalizeEvent(raw: EventInput | SpanData, parameter: string): EventInput {
  const event: EventInput = isEventInput(raw) ? raw : { data: raw };
  if (event.data === null || typeof event.data !== 'object' || typeof event.data.type !== 'string' || event.data.type.length === 0) {
    throw new InvalidArgumentError({ parameter: `${parameter}.data`, value: event.data, message: `${parameter}.data must be span data with a non-empty string 'type' (see SpanData)` });
  }
  return event;
}

function isEventInput(raw: EventInput | SpanData): raw is EventInput {
  return raw !== null && typeof raw === 'object' && 'data' in raw && typeof (raw as EventInput).data === 'object' && !('type' in raw);
}

function eventTaskId(data: SpanData): string | null {
  return 'taskId' in data && typeof data.taskId === 'string' ? data.taskId : null;
}

function toJson(parameter: string, value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError({ parameter, value, message: `${parameter} must be JSON-serialisable: ${(error as Error).message}`, cause: error });
  }
  if (json === undefined) {
    throw new InvalidArgumentError({ parameter, value, message: `${parameter} must be JSON-serialisable, got ${typeof value}` });
  }
  return json;
}

function isConstraint(error: unknown, code: string): boolean {
  return error instanceof Database.SqliteError && error.code === code;
}
