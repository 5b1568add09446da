// One task as a trace: every LLM call booked for it (agent, act, model, start, end, tokens, cost,
// and, when content capture was on, the messages sent and the reply) beside each method's decision
// (answers, weights and reasons, verdicts). Read from the ledger and the task's events.
import { NotFoundError } from '../core/errors.js';
import type { UsageRecordOutcome } from '../store/types.js';
import type { Store, UsageRecord } from '../store/store.js';
import { listDecisions } from './run-views.js';

/** One booked LLM call of a task. */
export interface TraceCallView {
  readonly agentId: string | null;
  readonly act: string | null;
  readonly model: string | null;
  /** Start and end by the ledger's clock, in ms; `null` for calls booked before schema version 4. */
  readonly startedAt: number | null;
  readonly endedAt: number | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cost: number;
  readonly cached: boolean;
  readonly status: 'ok' | 'failed';
  /** The messages sent, or `null` when content capture was off. */
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }> | null;
  /** The reply's text, or `null` when content capture was off or none arrived. */
  readonly completion: string | null;
}

/** `GET /api/runs/:id/tasks/:taskId/trace`. */
export interface TaskTraceView {
  readonly runId: string;
  readonly taskId: string;
  /** Earliest call start and latest call end, in ms (`null` without timed calls). */
  readonly startedAt: number | null;
  readonly endedAt: number | null;
  readonly calls: readonly TraceCallView[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly cost: number };
  /** Per method: the decision with every agent's answer, weight, reason and verdict (as in `/decisions`). */
  readonly methods: ReturnType<typeof listDecisions>['tasks'][number]['methods'];
}

/** The trace of one finished task of a run; `NotFoundError` for an unknown run or task. */
export function describeTaskTrace(store: Store, runId: string, taskId: string): TaskTraceView {
  const page = listDecisions(store, runId, { offset: 0, limit: 1, taskId });
  const task = page.tasks[0];
  if (task === undefined)
    throw new NotFoundError({
      entity: 'task',
      id: taskId,
      message: `run ${JSON.stringify(runId)} has no finished task ${JSON.stringify(taskId)}`,
    });
  const entries = store.usageEntries({ runId }).filter((entry) => entry.taskId === taskId) as Array<
    UsageRecord & UsageRecordOutcome
  >;
  const calls = entries.map(
    (entry): TraceCallView => ({
      agentId: entry.agentId,
      act: entry.act,
      model: entry.model,
      startedAt: entry.startedAt,
      endedAt: entry.endedAt,
      inputTokens: entry.inputTokens,
      outputTokens: entry.outputTokens,
      cost: entry.cost,
      cached: entry.cached,
      status: entry.status,
      messages: parseMessages(entry.prompt),
      completion: entry.completion,
    }),
  );
  const starts = calls.flatMap((call) => (call.startedAt === null ? [] : [call.startedAt]));
  const ends = calls.flatMap((call) => (call.endedAt === null ? [] : [call.endedAt]));
  return {
    runId,
    taskId,
    startedAt: starts.length === 0 ? null : Math.min(...starts),
    endedAt: ends.length === 0 ? null : Math.max(...ends),
    calls,
    usage: {
      inputTokens: calls.reduce((sum, call) => sum + call.inputTokens, 0),
      outputTokens: calls.reduce((sum, call) => sum + call.outputTokens, 0),
      cost: calls.reduce((sum, call) => sum + call.cost, 0),
    },
    methods: task.methods,
  };
}

function parseMessages(prompt: string | null): TraceCallView['messages'] {
  if (prompt === null) return null;
  try {
    const parsed = JSON.parse(prompt) as unknown;
    return Array.isArray(parsed) ? (parsed as Array<{ role: string; content: string }>) : null;
  } catch {
    return null;
  }
}
