import { InvalidArgumentError } from '../core/errors.js';
import { assertInteger, assertNonNegative } from '../core/validate.js';
import type { StoreContext } from './_store-context.js';
import type {
  Store,
  UsageEntry,
  UsageEntryOutcome,
  UsageGroup,
  UsageRecord,
  UsageRecordOutcome,
  UsageStatus,
  UsageSummaryOutcome,
  UsageSummaryRow,
} from './types.js';

const USAGE_STATUSES: readonly UsageStatus[] = ['ok', 'failed'];

interface UsageRow {
  id: number;
  run_id: string | null;
  agent_id: string | null;
  task_id: string | null;
  act: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  cached: number;
  created_at: number;
  status: UsageStatus;
  usage_reported: number | null;
  attempts: number | null;
  started_at: number | null;
  ended_at: number | null;
  prompt: string | null;
  completion: string | null;
}

const GROUP_COLUMNS: Record<UsageGroup, string> = {
  run: 'run_id',
  agent: 'agent_id',
  task: 'task_id',
  act: 'act',
  model: 'model',
};

/** Appends ledger entries without the open check (the caller holds a transaction); `parameter` names them in errors. */
export type RecordUsage = (entries: readonly UsageEntry[], parameter: string) => void;

/**
 * The `cost_ledger` table: one row per LLM call the provider may have billed, or cache hit. Rows
 * carry the schema 3 fields of {@link UsageEntryOutcome}; `usageEntries` and `usageSummary` return
 * them beside the fields `store.ts` declares ({@link UsageRecordOutcome}, {@link UsageSummaryOutcome}).
 */
export function createUsageTable({ db, now, guard, transaction }: StoreContext): {
  methods: Pick<Store, 'recordUsage' | 'usageEntries' | 'usageSummary'>;
  recordUnchecked: RecordUsage;
} {
  const statements = {
    insertUsage: db.prepare(
      'INSERT INTO cost_ledger (run_id, agent_id, task_id, act, model, input_tokens, output_tokens, cost, cached, created_at, status, usage_reported, attempts, started_at, ended_at, prompt, completion) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  };

  const recordUnchecked: RecordUsage = (entries, parameter) => {
    const createdAt = now();
    for (const [index, entry] of entries.entries() as IterableIterator<[number, UsageEntry & UsageEntryOutcome]>) {
      const field = `${parameter}[${index}]`;
      assertInteger(`${field}.inputTokens`, entry.inputTokens, 0);
      assertInteger(`${field}.outputTokens`, entry.outputTokens, 0);
      assertNonNegative(`${field}.cost`, entry.cost);
      if (typeof entry.cached !== 'boolean') {
        throw new InvalidArgumentError({
          parameter: `${field}.cached`,
          value: entry.cached,
          message: `${field}.cached must be a boolean, got ${String(entry.cached)}`,
        });
      }
      const status = entry.status ?? 'ok';
      if (!USAGE_STATUSES.includes(status)) {
        throw new InvalidArgumentError({
          parameter: `${field}.status`,
          value: status,
          message: `${field}.status must be one of ${USAGE_STATUSES.join(', ')}, got ${JSON.stringify(status)}; pass 'failed' for a call that ended in an error after the provider may have billed it`,
        });
      }
      const usageReported = entry.usageReported ?? true;
      if (typeof usageReported !== 'boolean') {
        throw new InvalidArgumentError({
          parameter: `${field}.usageReported`,
          value: usageReported,
          message: `${field}.usageReported must be a boolean, got ${String(usageReported)}; pass false when the provider did not report the token counts`,
        });
      }
      const attempts = entry.attempts ?? null;
      if (attempts !== null)
        assertInteger(
          `${field}.attempts`,
          attempts,
          0,
          Number.MAX_SAFE_INTEGER,
          'pass the provider attempts the call made, or leave it out',
        );
      const startedAt = entry.startedAt ?? null;
      const endedAt = entry.endedAt ?? null;
      if (startedAt !== null) assertNonNegative(`${field}.startedAt`, startedAt);
      if (endedAt !== null) assertNonNegative(`${field}.endedAt`, endedAt);
      if (startedAt !== null && endedAt !== null && endedAt < startedAt)
        throw new InvalidArgumentError({
          parameter: `${field}.endedAt`,
          value: endedAt,
          message: `${field}.endedAt must not be before startedAt (${startedAt}), got ${endedAt}; pass when the call ended, in ms`,
        });
      for (const key of ['prompt', 'completion'] as const) {
        const value = entry[key];
        if (value !== undefined && value !== null && typeof value !== 'string')
          throw new InvalidArgumentError({
            parameter: `${field}.${key}`,
            value: typeof value,
            message: `${field}.${key} must be a string or null, got ${typeof value}`,
          });
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
        status,
        usageReported ? 1 : 0,
        attempts,
        startedAt,
        endedAt,
        entry.prompt ?? null,
        entry.completion ?? null,
      );
    }
  };

  const methods: Pick<Store, 'recordUsage' | 'usageEntries' | 'usageSummary'> = {
    recordUsage(entries) {
      guard();
      const list = Array.isArray(entries) ? (entries as readonly UsageEntry[]) : [entries as UsageEntry];
      transaction(() => recordUnchecked(list, 'entries'));
    },

    usageEntries(filter = {}) {
      guard();
      const rows = (
        filter.runId === undefined
          ? db.prepare('SELECT * FROM cost_ledger ORDER BY id').all()
          : db.prepare('SELECT * FROM cost_ledger WHERE run_id = ? ORDER BY id').all(filter.runId)
      ) as UsageRow[];
      return rows.map((row): UsageRecord & UsageRecordOutcome => ({
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
        status: row.status,
        usageReported: row.usage_reported === null ? null : row.usage_reported === 1,
        attempts: row.attempts,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        prompt: row.prompt,
        completion: row.completion,
      }));
    },

    usageSummary({ by, runId }) {
      guard();
      const column = GROUP_COLUMNS[by];
      if (column === undefined) {
        throw new InvalidArgumentError({
          parameter: 'by',
          value: by,
          message: `by must be one of ${Object.keys(GROUP_COLUMNS).join(', ')}, got ${JSON.stringify(by)}`,
        });
      }
      const where = runId === undefined ? '' : 'WHERE run_id = ?';
      const rows = db
        .prepare(
          `SELECT ${column} AS key, COUNT(*) AS calls, SUM(cached) AS cached_calls, SUM(input_tokens) AS input_tokens,
                  SUM(output_tokens) AS output_tokens, SUM(cost) AS cost,
                  SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed_calls,
                  SUM(CASE WHEN usage_reported = 0 THEN 1 ELSE 0 END) AS unreported_usage_calls
           FROM cost_ledger ${where} GROUP BY ${column} ORDER BY ${column}`,
        )
        .all(...(runId === undefined ? [] : [runId])) as Array<{
        key: string | null;
        calls: number;
        cached_calls: number;
        input_tokens: number;
        output_tokens: number;
        cost: number;
        failed_calls: number;
        unreported_usage_calls: number | null;
      }>;
      return rows.map((row): UsageSummaryRow & UsageSummaryOutcome => ({
        key: row.key,
        calls: row.calls,
        cachedCalls: row.cached_calls,
        inputTokens: row.input_tokens,
        outputTokens: row.output_tokens,
        cost: row.cost,
        failedCalls: row.failed_calls,
        // Rows booked before schema 3 have usage_reported NULL: the CASE counts them as reported.
        unreportedUsageCalls: row.unreported_usage_calls ?? 0,
      }));
    },
  };
  return { methods, recordUnchecked };
}
