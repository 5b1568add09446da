import { InvalidArgumentError } from '../core/errors.js';
import { assertInteger, assertNonNegative } from '../core/validate.js';
import type { StoreContext } from './_store-context.js';
import type { Store, UsageEntry, UsageGroup } from './store.js';

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

/** The `cost_ledger` table: one row per LLM call or cache hit. */
export function createUsageTable({ db, now, guard, transaction }: StoreContext): {
  methods: Pick<Store, 'recordUsage' | 'usageEntries' | 'usageSummary'>;
  recordUnchecked: RecordUsage;
} {
  const statements = {
    insertUsage: db.prepare(
      'INSERT INTO cost_ledger (run_id, agent_id, task_id, act, model, input_tokens, output_tokens, cost, cached, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  };

  const recordUnchecked: RecordUsage = (entries, parameter) => {
    const createdAt = now();
    for (const [index, entry] of entries.entries()) {
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
                  SUM(output_tokens) AS output_tokens, SUM(cost) AS cost
           FROM cost_ledger ${where} GROUP BY ${column} ORDER BY ${column}`,
        )
        .all(...(runId === undefined ? [] : [runId])) as Array<{
        key: string | null;
        calls: number;
        cached_calls: number;
        input_tokens: number;
        output_tokens: number;
        cost: number;
      }>;
      return rows.map((row) => ({
        key: row.key,
        calls: row.calls,
        cachedCalls: row.cached_calls,
        inputTokens: row.input_tokens,
        outputTokens: row.output_tokens,
        cost: row.cost,
      }));
    },
  };
  return { methods, recordUnchecked };
}
