import { InvalidArgumentError } from '../core/errors.js';
import type { SpanData } from '../core/trace.js';
import { assertInteger, assertNonEmptyString } from '../core/validate.js';
import type { RunRow } from './_runs.js';
import { setConditions, type StoreContext, toJson } from './_store-context.js';
import type { EventInput, Store } from './types.js';

interface EventRow {
  run_id: string;
  seq: number;
  type: string;
  method: string | null;
  task_id: string | null;
  span_id: string | null;
  parent_id: string | null;
  started_at: number | null;
  ended_at: number | null;
  error: string | null;
  data: string;
}

/** Appends events to a run's log without the open/run checks (the caller holds a transaction). */
export type AppendEvents = (
  runId: string,
  events: readonly (EventInput | SpanData)[],
  defaults: { method?: string; taskId?: string },
) => number[];

/** The `events` table: a run's append-only log. */
export function createEventsTable(
  { db, guard, transaction, lock }: StoreContext,
  requireRun: (runId: string) => RunRow,
): {
  methods: Pick<Store, 'appendEvents' | 'events'>;
  appendUnchecked: AppendEvents;
} {
  const statements = {
    nextSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM events WHERE run_id = ?'),
    insertEvent: db.prepare(
      'INSERT INTO events (run_id, seq, type, method, task_id, span_id, parent_id, started_at, ended_at, error, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  };

  const appendUnchecked: AppendEvents = (runId, events, defaults) => {
    lock(`run:${runId}`);
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

  const methods: Pick<Store, 'appendEvents' | 'events'> = {
    appendEvents(runId, events) {
      guard();
      assertNonEmptyString('runId', runId);
      return transaction(() => {
        requireRun(runId);
        return appendUnchecked(runId, events, {});
      });
    },

    events(runId, filter = {}) {
      guard();
      const { clauses, values } = setConditions<string | number>([
        ['run_id = ?', runId],
        ['type = ?', filter.type],
        ['method = ?', filter.method],
        ['task_id = ?', filter.taskId],
        ['seq > ?', filter.afterSeq],
      ]);
      const limit = filter.limit;
      if (limit !== undefined)
        assertInteger('filter.limit', limit, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. { limit: 500 }');
      // A follower reading a long log in batches reads only each batch, not the whole rest of the log.
      const rows = db
        .prepare(
          `SELECT * FROM events WHERE ${clauses.join(' AND ')} ORDER BY seq${limit === undefined ? '' : ' LIMIT ?'}`,
        )
        .all(...values, ...(limit === undefined ? [] : [limit])) as EventRow[];
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
  };
  return { methods, appendUnchecked };
}

function normalizeEvent(raw: EventInput | SpanData, parameter: string): EventInput {
  const event: EventInput = isEventInput(raw) ? raw : { data: raw };
  if (
    event.data === null ||
    typeof event.data !== 'object' ||
    typeof event.data.type !== 'string' ||
    event.data.type.length === 0
  ) {
    throw new InvalidArgumentError({
      parameter: `${parameter}.data`,
      value: event.data,
      message: `${parameter}.data must be span data with a non-empty string 'type' (see SpanData)`,
    });
  }
  return event;
}

function isEventInput(raw: EventInput | SpanData): raw is EventInput {
  return (
    raw !== null &&
    typeof raw === 'object' &&
    'data' in raw &&
    typeof (raw as EventInput).data === 'object' &&
    !('type' in raw)
  );
}

function eventTaskId(data: SpanData): string | null {
  return 'taskId' in data && typeof data.taskId === 'string' ? data.taskId : null;
}
