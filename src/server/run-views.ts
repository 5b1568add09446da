// Read models of the JSON API and the dashboard: what a run did per method, each decision with
// every agent's weight and why, and reputation over tasks. Pure functions over the store.
import type { WeightReason } from '../core/trace.js';
import { NotFoundError } from '../core/errors.js';
import type { DebateTaskRecord } from '../protocols/debate/run-debate-session.js';
import type { DrfTaskRecord } from '../protocols/drf/run-drf-session.js';
import type { RapsTaskRecord } from '../protocols/pubsub/run-raps-session.js';
import type { RunRecord, Store, UsageRecord } from '../store/store.js';

/** Token, call and cost totals of some ledger entries. */
export interface UsageTotals {
  /** Ledger entries (LLM calls and cache hits). */
  readonly calls: number;
  /** Entries served from the cache. */
  readonly cachedCalls: number;
  /** Prompt tokens. */
  readonly inputTokens: number;
  /** Completion tokens. */
  readonly outputTokens: number;
  /** Cost in US dollars (or the team's price unit). */
  readonly cost: number;
  /** Entries booked as failed after the provider may have billed them. */
  readonly failedCalls: number;
  /** Entries whose usage the provider did not (fully) report: tokens and cost are lower bounds. */
  readonly unreportedUsageCalls: number;
}

/** Results of one method in a run. */
export interface MethodView {
  /** Method name. */
  readonly name: string;
  /** Tasks finished. */
  readonly tasks: number;
  /** Tasks graded against a reference. */
  readonly graded: number;
  /** Graded tasks decided right. */
  readonly correct: number;
  /** `correct / graded` in [0, 1], or `null` when nothing was graded. */
  readonly accuracy: number | null;
  /** Agent acts that failed. */
  readonly failures: number;
  /** Ledger entries attributed to the method (see {@link describeRun}). */
  readonly usage: UsageTotals;
}

/** A run with per-method results and the run's usage. */
export interface RunView {
  readonly schemaVersion: 1;
  readonly id: string;
  readonly kind: string;
  readonly team: string | null;
  readonly status: RunRecord['status'];
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly methods: readonly MethodView[];
  readonly usage: UsageTotals;
}

/**
 * Partial task record as written by any protocol: the debate fields, DRF's `team` and RAPS'
 * `eligible` are optional.
 */
type StoredResult = Partial<DebateTaskRecord> &
  Partial<Pick<DrfTaskRecord, 'team'>> &
  Partial<Pick<RapsTaskRecord, 'eligible'>> & {
    readonly decision?: { readonly answer?: string | null };
    readonly failures?: number;
  };

const zeroUsage: UsageTotals = {
  calls: 0,
  cachedCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cost: 0,
  failedCalls: 0,
  unreportedUsageCalls: 0,
};

function addUsage(total: UsageTotals, entry: UsageRecord): UsageTotals {
  return {
    calls: total.calls + 1,
    cachedCalls: total.cachedCalls + (entry.cached ? 1 : 0),
    inputTokens: total.inputTokens + entry.inputTokens,
    outputTokens: total.outputTokens + entry.outputTokens,
    cost: total.cost + entry.cost,
    failedCalls: total.failedCalls + (entry.status === 'failed' ? 1 : 0),
    // Rows booked before schema 3 did not record it (null): not counted.
    unreportedUsageCalls: total.unreportedUsageCalls + (entry.usageReported === false ? 1 : 0),
  };
}

/** The run, or `NotFoundError` naming the id. */
export function requireRun(store: Store, runId: string): RunRecord {
  const run = store.getRun(runId);
  if (run === undefined)
    throw new NotFoundError({
      entity: 'run',
      id: runId,
      message: `unknown run id ${JSON.stringify(runId)}; list runs with GET /api/runs`,
    });
  return run;
}

/**
 * Describes a run: status, and per method the tasks finished, accuracy, failed acts and usage.
 * The ledger has no method column, so a call is attributed to the method whose result for the
 * call's task was the first recorded at or after the call (methods of a run execute one after
 * another); calls with no such result count for the run only.
 */
export function describeRun(store: Store, runId: string): RunView {
  const run = requireRun(store, runId);
  const results = store.taskResults<StoredResult>(runId);
  const byMethod = new Map<
    string,
    { tasks: number; graded: number; correct: number; failures: number; usage: UsageTotals }
  >();
  for (const record of results) {
    const entry = byMethod.get(record.method) ?? { tasks: 0, graded: 0, correct: 0, failures: 0, usage: zeroUsage };
    entry.tasks++;
    const correct = record.result?.correct;
    if (correct === true || correct === false) {
      entry.graded++;
      if (correct) entry.correct++;
    }
    entry.failures += typeof record.result?.failures === 'number' ? record.result.failures : 0;
    byMethod.set(record.method, entry);
  }
  // A served decision is graded afterwards (POST /v1/feedback): its grade counts like a graded result.
  for (const event of store.events(runId, { type: 'feedback' })) {
    const data = event.data as { score?: unknown };
    const entry = event.method === null ? undefined : byMethod.get(event.method);
    if (entry === undefined || typeof data.score !== 'number') continue;
    entry.graded++;
    if (data.score === 1) entry.correct++;
  }
  // Per task: result times in ascending order, to attribute each ledger entry to a method.
  const resultsByTask = new Map<string, Array<{ method: string; createdAt: number }>>();
  for (const record of results) {
    const list = resultsByTask.get(record.taskId) ?? [];
    list.push({ method: record.method, createdAt: record.createdAt });
    resultsByTask.set(record.taskId, list);
  }
  for (const list of resultsByTask.values()) list.sort((left, right) => left.createdAt - right.createdAt);
  let usage = zeroUsage;
  for (const entry of store.usageEntries({ runId })) {
    usage = addUsage(usage, entry);
    const owner =
      entry.taskId === null
        ? undefined
        : resultsByTask.get(entry.taskId)?.find((result) => result.createdAt >= entry.createdAt);
    const method = owner === undefined ? undefined : byMethod.get(owner.method);
    if (method !== undefined) method.usage = addUsage(method.usage, entry);
  }
  const methods = [...byMethod.entries()].map(([name, entry]) => ({
    name,
    ...entry,
    accuracy: entry.graded === 0 ? null : entry.correct / entry.graded,
  }));
  return {
    schemaVersion: 1,
    id: run.id,
    kind: run.kind,
    team: run.team,
    status: run.status,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    methods,
    usage,
  };
}

/** One agent's weight on one task and why. */
export interface AgentWeightView {
  readonly agentId: string;
  /** Final weight the decision used. */
  readonly weight: number;
  /** Named components of the weight (e.g. reputation, quality, risk). */
  readonly components: Readonly<Record<string, number>>;
  /** The aggregator's reason, e.g. `cooldown: flagged 2 tasks ago`. */
  readonly note: string | null;
  /** The agent's final answer key. */
  readonly answer: string | null;
  /** Reputation score before the task, in [0, 1], when the method has a model. */
  readonly reputationBefore: number | null;
  /** Reputation score after the task's update. */
  readonly reputationAfter: number | null;
  /**
   * Whether the selector let the agent take part: a debate's participants, DRF's team, or the RAPS
   * agents whose answers counted (peer reputation ≥ τ).
   */
  readonly selected: boolean;
  /** The selector's reason, from the task's `selection` event (`null` when it wrote none, as in RAPS). */
  readonly selectionNote: string | null;
}

/** One method's decision on a task. */
export interface MethodDecisionView {
  readonly answer: string | null;
  readonly correct: boolean | null;
  readonly support: Readonly<Record<string, number>>;
  readonly failures: number;
  /** Version of the team's reputation log the decision read (docs/scaling.md); `null` when not recorded. */
  readonly readVersion: number | null;
  readonly weights: readonly AgentWeightView[];
}

/** A page of decisions. */
export interface DecisionPage {
  readonly runId: string;
  /** Tasks in the run (matching the filter). */
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly tasks: ReadonlyArray<{
    readonly taskId: string;
    readonly index: number;
    readonly methods: Readonly<Record<string, MethodDecisionView>>;
  }>;
}

/** Task ids of a run in first-finished order. */
function orderedTaskIds(results: ReadonlyArray<{ taskId: string; createdAt: number; position: number }>): string[] {
  const first = new Map<string, { createdAt: number; position: number }>();
  for (const record of results) {
    const seen = first.get(record.taskId);
    if (
      seen === undefined ||
      record.position < seen.position ||
      (record.position === seen.position && record.createdAt < seen.createdAt)
    )
      first.set(record.taskId, record);
  }
  return [...first.entries()]
    .sort((left, right) => left[1].position - right[1].position || left[1].createdAt - right[1].createdAt)
    .map(([taskId]) => taskId);
}

/**
 * Lists a run's decisions task by task: per method the decided answer, whether it was right, the
 * support per answer and, per agent, the weight with its components and reason (from the `vote`
 * event), its answer, its reputation before and after, and the selector's verdict.
 */
export function listDecisions(
  store: Store,
  runId: string,
  {
    offset,
    limit,
    method,
    taskId,
    order = 'asc',
  }: { offset: number; limit: number; method?: string; taskId?: string; order?: 'asc' | 'desc' },
): DecisionPage {
  requireRun(store, runId);
  const results = store.taskResults<StoredResult>(runId, method);
  if (
    method !== undefined &&
    results.length === 0 &&
    !store.taskResults(runId).some((record) => record.method === method)
  ) {
    throw new NotFoundError({
      entity: 'method',
      id: method,
      message: `run ${JSON.stringify(runId)} has no results of method ${JSON.stringify(method)}; see GET /api/runs/${runId} for its methods`,
    });
  }
  let taskIds = orderedTaskIds(results);
  if (taskId !== undefined) {
    const index = taskIds.indexOf(taskId);
    if (index < 0)
      throw new NotFoundError({
        entity: 'task',
        id: taskId,
        message: `run ${JSON.stringify(runId)} has no finished task ${JSON.stringify(taskId)}`,
      });
    taskIds = [taskId];
  }
  const total = taskIds.length;
  const ordered = order === 'desc' ? [...taskIds].reverse() : taskIds;
  const page = ordered.slice(offset, offset + limit);
  const wanted = new Set(page);
  const position = new Map(taskIds.map((id, index) => [id, index]));
  const tasks = page.map((id) => ({
    taskId: id,
    // The task's place in completion order, whatever order the page is in.
    index: position.get(id) ?? 0,
    methods: {} as Record<string, MethodDecisionView>,
  }));
  const byTask = new Map(tasks.map((task) => [task.taskId, task]));
  const events = new Map<
    string,
    {
      vote?: { reasons: readonly WeightReason[]; support: Readonly<Record<string, number>>; readVersion?: number };
      selection?: { round?: number; selected: readonly string[]; reasons: readonly WeightReason[] };
      before?: Readonly<Record<string, number>>;
    }
  >();
  for (const id of page) {
    for (const event of store.events(runId, { taskId: id, ...(method === undefined ? {} : { method }) })) {
      const key = `${event.method ?? ''}\u0000${id}`;
      const entry = events.get(key) ?? {};
      if (event.data.type === 'vote') entry.vote = event.data;
      // The selector's event has the task's lowest round: debate writes it with round 0 and one per
      // later round for its peer filter; DRF writes one per task with the task position as round.
      else if (
        event.data.type === 'selection' &&
        (entry.selection === undefined || (event.data.round ?? 0) < (entry.selection.round ?? 0))
      )
        entry.selection = event.data;
      else if (event.data.type === 'reputation-update') entry.before = event.data.before;
      events.set(key, entry);
    }
  }
  for (const record of results) {
    if (!wanted.has(record.taskId)) continue;
    const result = record.result ?? {};
    const traced = events.get(`${record.method}\u0000${record.taskId}`) ?? {};
    const reasons = new Map((traced.vote?.reasons ?? []).map((reason) => [reason.agentId, reason]));
    const selectionReasons = new Map((traced.selection?.reasons ?? []).map((reason) => [reason.agentId, reason]));
    // Without a selection event (RAPS writes none), the record names who took part.
    const chosen = result.participants ?? result.team ?? result.eligible ?? [];
    const selected = new Set(traced.selection?.selected ?? chosen);
    const agentIds = [
      ...new Set([...chosen, ...(result.excluded ?? []), ...reasons.keys(), ...selectionReasons.keys()]),
    ];
    const weights = agentIds.map((agentId): AgentWeightView => {
      const reason = reasons.get(agentId);
      return {
        agentId,
        weight: reason?.weight ?? 0,
        components: reason?.components ?? {},
        note: reason?.note ?? null,
        answer: result.answers?.[agentId] ?? null,
        reputationBefore: traced.before?.[agentId] ?? null,
        reputationAfter: result.reputation?.[agentId] ?? null,
        selected: selected.has(agentId),
        selectionNote: selectionReasons.get(agentId)?.note ?? null,
      };
    });
    (byTask.get(record.taskId) as (typeof tasks)[number]).methods[record.method] = {
      answer: result.answer ?? result.decision?.answer ?? null,
      correct: typeof result.correct === 'boolean' ? result.correct : null,
      support: result.support ?? traced.vote?.support ?? {},
      failures: typeof result.failures === 'number' ? result.failures : 0,
      readVersion: traced.vote?.readVersion ?? null,
      weights,
    };
  }
  return { runId, total, offset, limit, tasks };
}

/** Each agent's reputation after every task of each method (`null` where a task has no score). */
export interface ReputationSeries {
  readonly runId: string;
  readonly methods: ReadonlyArray<{
    readonly name: string;
    readonly agents: readonly string[];
    readonly taskIds: readonly string[];
    readonly scores: Readonly<Record<string, ReadonlyArray<number | null>>>;
  }>;
}

/** Reputation over tasks from the `reputation` field of each task result, per method. */
export function reputationSeries(store: Store, runId: string, method?: string): ReputationSeries {
  requireRun(store, runId);
  const results = store.taskResults<StoredResult>(runId, method);
  const grouped = new Map<string, typeof results>();
  for (const record of results) grouped.set(record.method, [...(grouped.get(record.method) ?? []), record]);
  if (method !== undefined && !grouped.has(method)) {
    throw new NotFoundError({
      entity: 'method',
      id: method,
      message: `run ${JSON.stringify(runId)} has no results of method ${JSON.stringify(method)}`,
    });
  }
  const methods = [...grouped.entries()]
    .map(([name, records]) => {
      const agents = [...new Set(records.flatMap((record) => Object.keys(record.result?.reputation ?? {})))];
      const scores = Object.fromEntries(
        agents.map((agentId) => [agentId, records.map((record) => record.result?.reputation?.[agentId] ?? null)]),
      );
      return { name, agents, taskIds: records.map((record) => record.taskId), scores };
    })
    .filter((entry) => entry.agents.length > 0);
  return { runId, methods };
}
