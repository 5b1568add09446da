// What the persisted sessions of every protocol (debate, DRF, RAPS) share: the options that name the
// run, its store and its team, the progress they report, what they return, and the steps that open
// or resume a run (restore reputation, read back finished tasks, record a task's spans as events).
import type { AgentId, AgentIdentity } from '../core/agent-identity.js';
import type { Task } from '../core/task.js';
import { createTracer, type Span, type SpanData, type Tracer } from '../core/trace.js';
import { defineOptionKeys } from '../core/validate.js';
import type { Evidence, ReputationModel, ReputationSnapshot } from '../reputation/reputation-model.js';

/**
 * The part of the store every session needs (structurally the `Store` of `src/store`, declared here so
 * protocols do not import the store layer).
 */
export interface SessionStore {
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
    /** Reputation updates appended to a team's shared log with the result (the store's `reputationEvents`). */
    reputationEvents?: ReadonlyArray<{
      team: string;
      name: string;
      key: string;
      evidence: readonly Evidence[];
      runId?: string | null;
      taskId?: string | null;
      readVersion?: number | null;
    }>;
  }): unknown;
}

/**
 * A {@link SessionStore} that forwards every call to `store`, with `overrides` in place of some: for
 * wrappers that add to a task's write (its grade events, its reputation log entries). A
 * `recordTaskFailure` is forwarded only when `store` has one, so the wrapper keeps its absence.
 */
export function forwardSessionStore(store: SessionStore, overrides: Partial<SessionStore> = {}): SessionStore {
  return {
    ensureRun: (input) => store.ensureRun(input),
    saveTeam: (name, agents) => store.saveTeam(name, agents),
    loadReputation: (input) => store.loadReputation(input),
    completedTaskIds: (runId, method) => store.completedTaskIds(runId, method),
    ...(store.recordTaskFailure === undefined
      ? {}
      : {
          recordTaskFailure: (input: Parameters<NonNullable<SessionStore['recordTaskFailure']>>[0]) =>
            store.recordTaskFailure?.(input),
        }),
    taskResults: (runId, method) => store.taskResults(runId, method),
    recordTaskResult: (input) => store.recordTaskResult(input),
    ...overrides,
  };
}

/** An act that threw (provider failure after retries), in any protocol (the name is historical): counted, and the proposal is unparseable. */
export interface DebateFailure {
  readonly agentId: AgentId;
  readonly act: string;
  readonly round: number;
  readonly message: string;
  /**
   * `provider` when the act's model call failed after its retries (a `ProviderError`): the task
   * did not really happen and a session stores it as failed, not as a result. `output` for
   * anything else (an unusable reply, a rating out of range). Absent = `output`.
   */
  readonly kind?: 'provider' | 'output';
  /** HTTP status of the provider's last attempt, when there was one. */
  readonly status?: number;
  /** The provider failure's reason (`http`, `network`, `timeout`, `malformed`). */
  readonly reason?: string;
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

/** One finished task, as a session reports it to `onProgress`. */
export interface SessionProgress<TRecord> {
  /** Tasks finished in this run so far, including resumed ones. */
  readonly done: number;
  /** Tasks of the session. */
  readonly total: number;
  /** True for tasks skipped because the store already has them. */
  readonly resumed: boolean;
  /** What the session stored for the task. */
  readonly record: TRecord;
}

/** Options every persisted session takes; each protocol's session options extend them. */
export interface SessionOptions<TProgress> {
  /** The SQLite store (`openStore` from the store layer), or anything with the same methods. */
  readonly store: SessionStore;
  /** Run id; a rerun with the same id resumes. */
  readonly runId: string;
  /** Team key: agent identities and reputation (RAPS: beliefs) persist under it across runs. */
  readonly team: string;
  /** Tasks in the order they are run; a resumed run skips those already recorded. */
  readonly tasks: readonly Task[];
  /**
   * Seed of the session's random draws: selection in debate and DRF (per-task RNGs derive from
   * (seed, method, task)), the broker's probation draws in RAPS.
   */
  readonly seed: number;
  /** The run's configuration; a resumed run must pass the same. @default {} */
  readonly config?: unknown;
  /** Run kind stored with the run. @default the protocol's name: 'debate', 'drf' or 'raps' */
  readonly kind?: string;
  /**
   * Grades a decided answer (simulation or tasks with references), synchronously or not (`code`
   * answers run their tests); omitted = `correct: null`. @default none
   */
  readonly grade?: (taskId: string, answer: string | null) => boolean | undefined | Promise<boolean | undefined>;
  /**
   * Where reputation (RAPS: beliefs) starts when the run has no saved state yet: `team` continues
   * from the team's last saved state (a later run), `prior` starts from the model's prior. A resumed
   * run always continues from its own last task. @default 'team'
   */
  readonly reputationStart?: 'team' | 'prior';
  /** Called after each task (and once per task replayed on resume). @default none */
  readonly onProgress?: (progress: TProgress) => void;
  /**
   * Stops the session: no further task starts. Debate and DRF also abort the acts in flight; RAPS
   * stops between tasks. @default none
   */
  readonly signal?: AbortSignal;
}

/** The keys of {@link SessionOptions}, with which each session's list of known options starts. */
export const sessionOptionKeys = defineOptionKeys<SessionOptions<unknown>>()([
  'store',
  'runId',
  'team',
  'tasks',
  'seed',
  'config',
  'kind',
  'grade',
  'reputationStart',
  'onProgress',
  'signal',
]);

/** What every session did; each protocol's summary extends it. */
export interface SessionSummary<TRecord> {
  readonly runId: string;
  /** Every finished task in completion order (resumed ones included). */
  readonly records: readonly TRecord[];
  /** Tasks run in this session. */
  readonly ran: number;
  /** Whether the run existed before. */
  readonly resumed: boolean;
}

/** Restores a saved snapshot, if any, into a reputation model and adds the agents the snapshot does not know. */
export function restoreSnapshot(
  reputation: ReputationModel,
  snapshot: ReputationSnapshot | undefined,
  agentIds: readonly AgentId[],
): void {
  if (snapshot) reputation.restore(snapshot);
  const known = new Set(reputation.agentIds());
  for (const agentId of agentIds) if (!known.has(agentId)) reputation.addAgent(agentId);
}

/**
 * Restores a session's reputation model: run-scope state first (resume), then, when `team` is
 * given, team-scope state (a new run of the same team), else the model keeps its prior. Agents the
 * state does not know are added.
 */
export function restoreReputation(
  store: SessionStore,
  reputation: ReputationModel,
  {
    runId,
    team,
    name,
    agentIds,
  }: { runId: string; team: string | undefined; name: string; agentIds: readonly AgentId[] },
): void {
  const snapshot =
    store.loadReputation({ scope: { runId }, name }) ??
    (team === undefined ? undefined : store.loadReputation({ scope: { team }, name }));
  restoreSnapshot(reputation, snapshot, agentIds);
}

/** What `grade` says of a decided answer, or `null` when there is no grader or it has no verdict. */
export async function gradeAnswer(
  grade: SessionOptions<unknown>['grade'],
  taskId: string,
  answer: string | null,
): Promise<boolean | null> {
  const value = await grade?.(taskId, answer);
  return value === undefined ? null : value;
}

/**
 * Reads back what the run already finished under `method`: the finished task ids, and their
 * records in completion order. `restore` gets the records first (to rebuild carried state); then
 * each record is reported to `onProgress` as resumed.
 */
export function loadFinishedTasks<TRecord>(
  store: SessionStore,
  {
    runId,
    method,
    total,
    restore,
    onProgress,
  }: {
    runId: string;
    method: string;
    total: number;
    restore?: (records: readonly TRecord[]) => void;
    onProgress?: ((progress: SessionProgress<TRecord>) => void) | undefined;
  },
): { done: ReadonlySet<string>; records: TRecord[] } {
  const done = new Set(store.completedTaskIds(runId, method));
  const records = store.taskResults<TRecord>(runId, method).map((record) => record.result);
  restore?.(records);
  records.forEach((record, index) => {
    onProgress?.({ done: index + 1, total, resumed: true, record });
  });
  return { done, records };
}

/** An ended span as the store's `recordTaskResult` takes it in `events`. */
export interface SpanEvent {
  readonly data: Span['data'];
  readonly spanId: string;
  readonly parentId: string | null;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly error: string | null;
}

/**
 * A tracer for one task that keeps every span it ends, with the ids `<method>:<taskId>:<n>` so that
 * a rerun writes the same events; `events()` gives the ended spans as store events, in end order.
 */
export function createTaskTracer({ method, taskId, now }: { method: string; taskId: string; now: () => number }): {
  tracer: Tracer;
  events(): SpanEvent[];
} {
  const ended: Span[] = [];
  let counter = 0;
  const tracer = createTracer({
    sink: {
      onSpanStart() {},
      onSpanEnd(span: Span) {
        ended.push(span);
      },
    },
    now,
    generateId: () => `${method}:${taskId}:${++counter}`,
  });
  return {
    tracer,
    events: () =>
      ended.map((span) => ({
        data: span.data,
        spanId: span.id,
        parentId: span.parentId,
        startedAt: span.startedAt,
        endedAt: span.endedAt ?? null,
        error: span.error ?? null,
      })),
  };
}
