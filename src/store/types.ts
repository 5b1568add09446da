// The store's public shapes: what `openStore` returns (the Store interface) and the records it reads
// and writes. A module of types only, so that store.ts and its table modules (`_runs.ts`, `_events.ts`,
// ...), which all use them, import them from here and not from each other.
import type { AgentIdentity } from '../core/agent-identity.js';
import type { SpanData } from '../core/trace.js';
import type { ResponseCache } from '../llm/cache-middleware.js';
import type { UsageLedger } from '../llm/ledger-middleware.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import type { Evidence } from '../core/reputation-model.js';

/** How a booked call ended: `ok` (the caller got the reply) or `failed` (an error or cancel after the provider may have billed it). */
export type UsageStatus = 'ok' | 'failed';

/**
 * Ledger fields added by schema version 3, accepted on every entry beside the `UsageEntry` fields
 * (the ledger middleware's `LlmUsageEntry` carries them all).
 */
export interface UsageEntryOutcome {
  /** How the call ended. @default 'ok' */
  readonly status?: UsageStatus;
  /**
   * False when the provider did not report a valid token count (0 was booked for it) or a failed
   * attempt may have been billed unreported: tokens and cost are lower bounds. @default true
   */
  readonly usageReported?: boolean;
  /** Provider attempts the call made, retries included, integer ≥ 0 (0 for a cache hit). @default null (not known) */
  readonly attempts?: number | null;
  /** When the call started, ms since the epoch by the ledger's clock (schema version 4). @default null (not known) */
  readonly startedAt?: number | null;
  /** When the call ended (reply read or failure seen), ms, ≥ `startedAt`. @default null (not known) */
  readonly endedAt?: number | null;
  /** The messages sent, as JSON (`[{ role, content }]`), when content capture is on. @default null */
  readonly prompt?: string | null;
  /** The reply's text, when content capture is on. @default null */
  readonly completion?: string | null;
}

/** What `usageEntries` returns per row beside the `UsageRecord` fields. */
export interface UsageRecordOutcome {
  readonly status: UsageStatus;
  /** `null` for rows booked before schema version 3, which did not record it. */
  readonly usageReported: boolean | null;
  /** `null` when not known (rows booked before schema version 3, or entries that did not say). */
  readonly attempts: number | null;
  /** `null` when not known (rows booked before schema version 4, or entries that did not say). */
  readonly startedAt: number | null;
  /** `null` when not known. */
  readonly endedAt: number | null;
  /** `null` when content capture was off or the row predates schema version 4. */
  readonly prompt: string | null;
  /** `null` when content capture was off, the call failed before any text, or the row predates schema version 4. */
  readonly completion: string | null;
}

/** What `usageSummary` returns per group beside the `UsageSummaryRow` fields. */
export interface UsageSummaryOutcome {
  /** Entries with status `failed`. */
  readonly failedCalls: number;
  /** Entries whose usage the provider did not (fully) report: their tokens and cost are lower bounds. */
  readonly unreportedUsageCalls: number;
}

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
  /**
   * A run's results in completion order (per method by position); with `afterPosition`, only those
   * of `method` after that position (a worker reads the results stored since it last looked).
   */
  taskResults<T = unknown>(runId: string, method?: string, options?: { afterPosition?: number }): TaskResultRecord<T>[];

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
  /**
   * A team's reputation log in seq order, after `afterSeq` (default 0), at most `limit` events;
   * with `runId`, only the events that run appended.
   */
  reputationEvents(input: {
    team: string;
    name: string;
    afterSeq?: number;
    limit?: number;
    runId?: string;
  }): ReputationEventRecord[];
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
