// The store's public shapes and `openStore`, which composes one module per table family (`_runs.ts`,
// `_task-results.ts`, `_events.ts`, `_reputation-snapshots.ts`, `_teams.ts`, `_llm-cache.ts`, `_usage.ts`) over one
// connection; the schema and its migrations live in `_schema.ts`.
import { existsSync, statSync } from 'node:fs';
import type { UsageEntryOutcome, UsageRecordOutcome, UsageSummaryOutcome } from './_usage.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError, StoreError } from '../core/errors.js';
import type { SpanData } from '../core/trace.js';
import type { ResponseCache } from '../llm/cache-middleware.js';
import type { UsageLedger } from '../llm/ledger-middleware.js';
import { assertInteger, assertKnownOptions, assertNonEmptyString, defineOptionKeys } from '../core/validate.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import { createEventsTable } from './_events.js';
import { createLlmCacheTable } from './_llm-cache.js';
import { createReputationTable } from './_reputation-snapshots.js';
import { createRunsTable } from './_runs.js';
import { LATEST_SCHEMA_VERSION, migrate } from './_schema.js';
import { explainSqliteFailure, findSqliteError, type StoreFailureContext, withStoreErrors } from './_store-errors.js';
import { assertStoreFolderWritable, isStoreFolderWritable, storeFolder } from './_store-folder.js';
import type { StoreContext } from './_store-context.js';
import { createTaskResultsTable } from './_task-results.js';
import { createTeamsTable } from './_teams.js';
import { createUsageTable } from './_usage.js';
import { createReputationLogTable } from './_reputation-log.js';
import type { Evidence } from '../core/reputation-model.js';
import { openPostgresStore } from './_postgres-store.js';
import { isPostgresUrl } from './_postgres-url.js';

/** Lifecycle state of a run. */
export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted';

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
export type ReputationScope =
  | { readonly runId: string; readonly team?: undefined }
  | { readonly team: string; readonly runId?: undefined };

/** Input of {@link Store.saveReputation}. */
export interface SaveReputationInput {
  /** Whether the snapshot belongs to one run or to a team across runs. */
  readonly scope: ReputationScope;
  /** Key of the snapshot within the scope, usually the method name (one reputation model per method). */
  readonly name: string;
  /** The reputation model's serialisable state to store. */
  readonly snapshot: ReputationSnapshot;
}

/** One LLM call (or cache hit) in the cost ledger; how it ended (status, reported usage, attempts) since schema version 3. */
export interface UsageEntry extends UsageEntryOutcome {
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
export interface UsageRecord
  extends Required<{
      [K in Exclude<keyof UsageEntry, keyof UsageEntryOutcome>]: Exclude<UsageEntry[K], undefined>;
    }>,
    UsageRecordOutcome {
  /** Auto-increment row id, integer ≥ 1; increases with insertion order. */
  readonly id: number;
  /** Milliseconds from the store's clock. */
  readonly createdAt: number;
}

/** What {@link Store.usageSummary} groups by. */
export type UsageGroup = 'run' | 'agent' | 'task' | 'act' | 'model';

/** Totals of one group of ledger entries. */
export interface UsageSummaryRow extends UsageSummaryOutcome {
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

/** One reputation update (a task's evidence batch) to append to a team's shared log. */
export interface ReputationEventInput {
  /** Team key whose reputation the evidence updates. */
  readonly team: string;
  /** Key of the reputation within the team, usually the method name. */
  readonly name: string;
  /**
   * Idempotency key: a second append with the same key appends nothing and returns the first
   * one's seq, so a redelivered task cannot count twice. E.g. `${runId}/${method}/${taskId}`.
   */
  readonly key: string;
  /** The evidence batch, applied with `model.observe(evidence)` when the log is folded. */
  readonly evidence: readonly Evidence[];
  /** Run of the decision, if any. @default null */
  readonly runId?: string | null;
  /** Task of the decision, if any. @default null */
  readonly taskId?: string | null;
  /** Version (the log's last seq) of the reputation state the decision read, integer ≥ 0. @default null */
  readonly readVersion?: number | null;
}

/** A persisted {@link ReputationEventInput}. */
export interface ReputationEventRecord {
  readonly schemaVersion: 1;
  readonly team: string;
  readonly name: string;
  /** 1-based position in the (team, name) log; gap-free. */
  readonly seq: number;
  readonly key: string;
  readonly runId: string | null;
  readonly taskId: string | null;
  readonly evidence: Evidence[];
  readonly readVersion: number | null;
  /** Milliseconds from the store's clock. */
  readonly createdAt: number;
}

/** The folded state of a team's reputation log and who may fold it. */
export interface ReputationFoldRecord {
  readonly schemaVersion: 1;
  readonly team: string;
  readonly name: string;
  /** Fence: increases each time another holder takes the lease; a commit must present the current one. */
  readonly generation: number;
  /** The lease holder. */
  readonly holder: string;
  /** Milliseconds from the store's clock when the lease ends unless renewed. */
  readonly leaseUntil: number;
  /** Seq of the last event folded into `snapshot` (0: none). */
  readonly foldedSeq: number;
  /** The model's snapshot after events 1..foldedSeq, or `null` before the first fold. */
  readonly snapshot: ReputationSnapshot | null;
  readonly updatedAt: number;
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
  /** Reputation updates of the task, appended to their teams' shared logs in the same transaction. @default [] */
  readonly reputationEvents?: readonly ReputationEventInput[];
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * File path, `:memory:` for a private in-memory database, or a PostgreSQL URL
   * (`postgres://user@host:5432/db`, see docs/scaling.md) for a store several processes share.
   */
  readonly path: string;
  /** Clock for every timestamp, in milliseconds. @default Date.now */
  readonly now?: () => number;
  /**
   * Open an existing file read-only: no migrations run, the file must be at the current schema, and
   * write methods throw `StoreError`. Its folder must be writable unless its `-shm` file is there
   * (SQLite creates it to read a WAL store). @default false
   */
  readonly readonly?: boolean;
  /**
   * How long a statement waits for a lock another connection holds (SQLite's `busy_timeout`) before
   * the call fails with a `StoreError` saying so ("database is locked"), in milliseconds, an integer in
   * [0, 2^31 - 1]. @default 5000
   */
  readonly busyTimeoutMs?: number;
}

/**
 * The SQLite store every protocol uses: runs, task results, event logs, reputation, team agents,
 * the LLM record/replay cache and the cost ledger. Methods are synchronous (better-sqlite3) and
 * each write is atomic. What SQLite reports (a lock held too long, a full disk, a damaged file) leaves
 * every method as a `StoreError` naming the store file, the method and what to do, with SQLite's error
 * as its `cause`; a write that fails wrote nothing. It implements the `ResponseCache` and `UsageLedger`
 * that `src/llm` declares (llm never imports the store).
 */
export interface Store extends ResponseCache, UsageLedger {
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
  /** A run's events in seq order, optionally filtered; `limit` keeps the first that many (an integer ≥ 1). */
  events(
    runId: string,
    filter?: { type?: SpanData['type']; method?: string; taskId?: string; afterSeq?: number; limit?: number },
  ): EventRecord[];

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
  /**
   * Claims the right to call the provider for a request nobody has recorded yet, so identical
   * requests from several processes call it once: `claimed` (this holder calls; the claim lasts
   * `leaseMs` unless released), `claimed-by-other` (another holder's claim runs: wait for its
   * reply), or `hit` (recorded meanwhile).
   */
  claimCachedResponse(input: { key: string; holder: string; leaseMs: number }): 'claimed' | 'claimed-by-other' | 'hit';
  /** Ends this holder's claim of a key (after recording the reply, or when the call failed). */
  releaseCachedResponseClaim(input: { key: string; holder: string }): void;

  /** Appends ledger entries in one transaction. */
  recordUsage(entries: UsageEntry | readonly UsageEntry[]): void;
  /** Ledger entries, oldest first, optionally for one run. */
  usageEntries(filter?: { runId?: string }): UsageRecord[];
  /** Ledger totals grouped by run, agent, task, act or model (sorted by key), optionally for one run. */
  usageSummary(input: { by: UsageGroup; runId?: string }): UsageSummaryRow[];

  /**
   * Appends a reputation update to a team's shared log (docs/scaling.md); an existing `key` appends
   * nothing (`appended: false`, the first event's seq).
   */
  appendReputationEvent(input: ReputationEventInput): { seq: number; appended: boolean };
  /** A team's reputation log in seq order, after `afterSeq` (default 0), at most `limit` events. */
  reputationEvents(input: { team: string; name: string; afterSeq?: number; limit?: number }): ReputationEventRecord[];
  /** The log's last seq (0 when empty): the version of the latest reputation state. */
  reputationVersion(input: { team: string; name: string }): number;
  /**
   * Takes or renews the fold lease of a team's reputation for `holder`: the fold record (with the
   * generation to present on commit), or `undefined` while another holder's lease runs. Taking it
   * from another holder (its lease ended) increases the generation, which fences that holder out.
   */
  acquireReputationLease(input: {
    team: string;
    name: string;
    holder: string;
    leaseMs: number;
  }): ReputationFoldRecord | undefined;
  /**
   * Writes a folded snapshot of events 1..foldedSeq if `generation` is still current and the fold
   * does not move backwards, and makes it the team's snapshot (`loadReputation({ scope: { team } })`);
   * false (and nothing written) otherwise.
   */
  commitReputationFold(input: {
    team: string;
    name: string;
    generation: number;
    foldedSeq: number;
    snapshot: ReputationSnapshot;
  }): boolean;
  /** The fold record of a team's reputation, or `undefined` before any lease. */
  reputationFold(input: { team: string; name: string }): ReputationFoldRecord | undefined;

  /** Runs `work` in one transaction (nested calls join it); rethrows after rolling back. */
  transaction<T>(work: () => T): T;
  /** Closes the database; further calls throw. */
  close(): void;
}

const knownOpenStoreOptions = defineOptionKeys<OpenStoreOptions>()(['path', 'now', 'readonly', 'busyTimeoutMs']);

/**
 * Opens (and migrates) a SQLite store in WAL mode. Unless `readonly`, a store that cannot be written
 * (its file, or its folder, where SQLite keeps the journal) is refused here with a `StoreError`
 * saying what to do, not at its first write; so are a folder, a damaged file, a store of a newer
 * schema and another program's SQLite database (Repute adds no tables to it).
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * const { run } = store.ensureRun({ id: 'run-1', kind: 'debate', config: { seed: 7 } });
 * const done = new Set(store.completedTaskIds(run.id, 'drf'));
 * // ... for each task not in `done`:
 * store.recordTaskResult({ runId: run.id, method: 'drf', taskId: 't1', result: { correct: true }, events: [] });
 * store.close();
 */
export function openStore(options: OpenStoreOptions): Store {
  assertKnownOptions('', options, knownOpenStoreOptions, 'openStore');
  const { path, now = Date.now, readonly = false, busyTimeoutMs = 5000 } = options;
  assertNonEmptyString('path', path, "pass a file path such as 'repute.db', ':memory:' or a postgres:// URL");
  assertInteger(
    'busyTimeoutMs',
    busyTimeoutMs,
    0,
    2_147_483_647,
    'pass the wait for a locked store in milliseconds, e.g. 5000',
  );
  if (isPostgresUrl(path)) return openPostgresStore({ url: path, now, readonly, busyTimeoutMs });
  if (readonly && path === ':memory:') {
    throw new InvalidArgumentError({
      parameter: 'readonly',
      value: readonly,
      message:
        "readonly needs a store file; a new ':memory:' store is empty: drop readonly, or pass the path of a store file",
    });
  }
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new StoreError(
      `store ${path} is a folder, not a store file; pass the path of a file, e.g. ${join(path, 'repute.db')}`,
    );
  }
  if (!readonly) assertStoreFolderWritable(path);
  const failureContext: StoreFailureContext = { path, readonly, busyTimeoutMs };
  let db: Database.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (error) {
    if (readonly && !existsSync(path)) {
      throw new StoreError(
        `store ${path} does not exist; a read-only open reads an existing store: check the path, or open it without readonly to create it`,
        { cause: error },
      );
    }
    throw new StoreError(
      `cannot open store ${path}: ${(error as Error).message}; check that the directory exists and is writable`,
      { cause: error },
    );
  }
  let schemaVersion: number;
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma('foreign_keys = ON');
    // Before anything writes (WAL mode rewrites the file header): Repute's tables never go into another program's database.
    assertNoForeignTables(db, path);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode survives a killed process (only an OS crash can lose the last commit).
      db.pragma('synchronous = NORMAL');
      schemaVersion = migrate(db, path, now);
      probeWrite(db);
    } else {
      schemaVersion = readSchemaVersion(db, path);
    }
  } catch (error) {
    db.close();
    throw openFailure(error, failureContext);
  }

  let closed = false;
  const guard = (): void => {
    if (closed) throw new StoreError(`store ${path} is closed; open it again with openStore({ path })`);
  };
  const transaction = <T>(work: () => T): T => {
    guard();
    return db.transaction(work).immediate();
  };
  // An immediate transaction holds SQLite's one write lock: no finer lock is needed.
  const context: StoreContext = { db, path, now, guard, transaction, lock: () => {} };
  return assembleStore(context, {
    schemaVersion,
    failureContext,
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  });
}

/**
 * The store's methods over one open, migrated connection (SQLite's or PostgreSQL's): one module
 * per table family, every method wrapped so the database's failures leave as `StoreError`s.
 */
export function assembleStore(
  context: StoreContext,
  input: {
    schemaVersion: number;
    failureContext: StoreFailureContext;
    close: () => void;
    /** `store.transaction` when it differs from the table families' (PostgreSQL: serialised like SQLite's). @default context.transaction */
    transaction?: <T>(work: () => T) => T;
  },
): Store {
  const runs = createRunsTable(context);
  const events = createEventsTable(context, runs.requireRun);
  const reputation = createReputationTable(context);
  const usage = createUsageTable(context);
  const reputationLog = createReputationLogTable(context);
  const taskResults = createTaskResultsTable(context, {
    requireRun: runs.requireRun,
    appendEvents: events.appendUnchecked,
    saveReputation: reputation.saveUnchecked,
    recordUsage: usage.recordUnchecked,
    appendReputationEvent: reputationLog.appendUnchecked,
  });

  return withStoreErrors<Store>(
    {
      path: context.path,
      schemaVersion: input.schemaVersion,
      ...runs.methods,
      ...taskResults,
      ...events.methods,
      ...reputation.methods,
      ...reputationLog.methods,
      ...createTeamsTable(context),
      ...createLlmCacheTable(context),
      ...usage.methods,
      transaction: input.transaction ?? context.transaction,
      close: input.close,
    },
    input.failureContext,
  );
}

/**
 * Refuses a SQLite database that another program made: it has tables but not the `schema_version`
 * table, which a Repute store creates before any other.
 */
function assertNoForeignTables(db: Database.Database, path: string): void {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  if (tables.length === 0 || tables.includes('schema_version')) return;
  const named =
    tables.length === 1
      ? `the table ${tables[0]}`
      : `the tables ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ` and ${tables.length - 5} more` : ''}`;
  throw new StoreError(
    `${path} is a SQLite database but not a Repute store (it has ${named} and no schema_version); pass the path of a Repute store or of a new file`,
  );
}

/** The schema version of a store opened read-only, which must be this Repute's (no migration can run). */
function readSchemaVersion(db: Database.Database, path: string): number {
  const row = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  const version =
    row === undefined
      ? 0
      : (db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number }).version;
  if (version > LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      `store ${path} has schema version ${version}, newer than this Repute supports (${LATEST_SCHEMA_VERSION}); upgrade Repute or open a different store file`,
    );
  }
  if (version < LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      `store ${path} has schema version ${version}, expected ${LATEST_SCHEMA_VERSION}; open it once without readonly to migrate it`,
    );
  }
  return version;
}

/** The StoreError `openStore` throws when preparing an opened database failed: what happened and what to do. */
function openFailure(error: unknown, context: StoreFailureContext): StoreError {
  const { path, readonly } = context;
  const sqliteError = findSqliteError(error);
  const code = sqliteError?.code ?? '';
  // A WAL store's readers need its -shm file; SQLite creates it beside the store, and says only "unable to open database file".
  if (readonly && code === 'SQLITE_CANTOPEN' && !existsSync(`${path}-shm`) && !isStoreFolderWritable(path)) {
    const journal = existsSync(`${path}-wal`) ? ` and ${path}-wal` : '';
    return new StoreError(
      `cannot read store ${path} read-only: SQLite must create its shared-memory index ${path}-shm beside it, even to read a store in WAL mode, but the folder ${storeFolder(path)} is not writable; make the folder writable, or copy ${path}${journal} to a writable folder and open the copy`,
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new StoreError(
      `store ${path} is read-only (${sqliteError?.message}); make it writable (the file and its folder), or use another store file (--store PATH; in the library, openStore({ path, readonly: true }) reads it)`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StoreError(
      `cannot initialise store ${path}: ${sqliteError?.message}; it is not a Repute store or it is damaged: pass the path of an existing store or of a new file (restore a damaged one from a backup)`,
      { cause: error },
    );
  }
  // A held lock, a full disk, an I/O error: said as for any store method.
  const explained = sqliteError && explainSqliteFailure(context, 'openStore', sqliteError, false);
  if (explained !== undefined) return explained;
  if (error instanceof StoreError) return error;
  return new StoreError(`cannot initialise store ${path}: ${(error as Error).message}`, { cause: error });
}

/**
 * Makes SQLite's silent read-only open visible (it opens a file read-only when the file or its
 * folder cannot be written): a write statement that changes nothing fails with SQLITE_READONLY, so
 * the caller learns it at open and not at its first write, mid-run.
 */
function probeWrite(db: Database.Database): void {
  try {
    db.transaction(() => db.prepare('DELETE FROM schema_version WHERE 0').run()).immediate();
  } catch (error) {
    // Another connection holding the write lock past the busy timeout: the file is writable, only
    // busy. The store opens; its writes wait for the lock like any other (store.test.ts pins this).
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
  }
}
