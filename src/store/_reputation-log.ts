import { InvalidArgumentError } from '../core/errors.js';
import type { Evidence } from '../core/reputation-model.js';
import { assertInteger, assertNonEmptyString } from '../core/validate.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import { type StoreContext, toJson } from './_store-context.js';
import type { ReputationEventInput, ReputationEventRecord, ReputationFoldRecord, Store } from './types.js';

interface EventRow {
  team: string;
  name: string;
  seq: number;
  key: string;
  run_id: string | null;
  task_id: string | null;
  evidence: string;
  read_version: number | null;
  created_at: number;
}

interface FoldRow {
  team: string;
  name: string;
  generation: number;
  holder: string;
  lease_until: number;
  folded_seq: number;
  snapshot: string | null;
  updated_at: number;
}

/** Appends one reputation event without the open check (the caller holds a transaction). */
export type AppendReputationEvent = (
  input: ReputationEventInput,
  parameter: string,
) => { seq: number; appended: boolean };

type LogMethods = Pick<
  Store,
  | 'appendReputationEvent'
  | 'reputationEvents'
  | 'reputationVersion'
  | 'acquireReputationLease'
  | 'commitReputationFold'
  | 'reputationFold'
>;

/**
 * The `reputation_events` and `reputation_folds` tables: a team's reputation as an append-only log
 * of evidence batches (gap-free `seq` per (team, name), one event per idempotency key), and the
 * folded snapshot of a prefix of it, written only by the holder of the fold lease whose generation
 * (the fence) is still current.
 */
export function createReputationLogTable({ db, now, guard, transaction, lock }: StoreContext): {
  methods: LogMethods;
  appendUnchecked: AppendReputationEvent;
} {
  const statements = {
    byKey: db.prepare('SELECT seq FROM reputation_events WHERE team = ? AND name = ? AND key = ?'),
    lastSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM reputation_events WHERE team = ? AND name = ?'),
    insert: db.prepare(
      'INSERT INTO reputation_events (team, name, seq, key, run_id, task_id, evidence, read_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    fold: db.prepare('SELECT * FROM reputation_folds WHERE team = ? AND name = ?'),
    insertFold: db.prepare(
      'INSERT INTO reputation_folds (team, name, generation, holder, lease_until, folded_seq, snapshot, updated_at) VALUES (?, ?, 1, ?, ?, 0, NULL, ?)',
    ),
    renew: db.prepare('UPDATE reputation_folds SET lease_until = ? WHERE team = ? AND name = ? AND generation = ?'),
    takeOver: db.prepare(
      'UPDATE reputation_folds SET generation = generation + 1, holder = ?, lease_until = ? WHERE team = ? AND name = ? AND generation = ?',
    ),
    // The fence: only the current generation writes, and a fold never moves backwards.
    saveTeamSnapshot: db.prepare(
      "INSERT INTO reputation (scope, scope_id, name, snapshot, updated_at) VALUES ('team', ?, ?, ?, ?) ON CONFLICT (scope, scope_id, name) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at",
    ),
    commit: db.prepare(
      'UPDATE reputation_folds SET snapshot = ?, folded_seq = ?, updated_at = ? WHERE team = ? AND name = ? AND generation = ? AND folded_seq <= ?',
    ),
  };

  const appendUnchecked: AppendReputationEvent = (input, parameter) => {
    const { team, name, key } = input;
    assertNonEmptyString(`${parameter}.team`, team, "pass the team key, e.g. 'math-team'");
    assertNonEmptyString(`${parameter}.name`, name, "pass the method name, e.g. 'minirep'");
    assertNonEmptyString(`${parameter}.key`, key, 'pass an idempotency key such as `${runId}/${method}/${taskId}`');
    if (!Array.isArray(input.evidence)) {
      throw new InvalidArgumentError({
        parameter: `${parameter}.evidence`,
        value: input.evidence,
        message: `${parameter}.evidence must be an array of Evidence (one task's batch)`,
      });
    }
    const readVersion = input.readVersion ?? null;
    if (readVersion !== null)
      assertInteger(
        `${parameter}.readVersion`,
        readVersion,
        0,
        Number.MAX_SAFE_INTEGER,
        'pass the version the decision read',
      );
    const evidence = toJson(`${parameter}.evidence`, input.evidence);
    lock(`reputation:${team}/${name}`);
    const existing = statements.byKey.get(team, name, key) as { seq: number } | undefined;
    // A redelivered task (same key) is recorded once: the first append wins.
    if (existing !== undefined) return { seq: existing.seq, appended: false };
    const seq = (statements.lastSeq.get(team, name) as { seq: number }).seq + 1;
    statements.insert.run(
      team,
      name,
      seq,
      key,
      input.runId ?? null,
      input.taskId ?? null,
      evidence,
      readVersion,
      now(),
    );
    return { seq, appended: true };
  };

  const methods: LogMethods = {
    appendReputationEvent(input) {
      guard();
      return transaction(() => appendUnchecked(input, 'input'));
    },

    reputationEvents({ team, name, afterSeq = 0, limit, runId }) {
      guard();
      if (limit !== undefined) assertInteger('limit', limit, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. { limit: 1000 }');
      if (runId !== undefined) assertNonEmptyString('runId', runId, 'pass the run whose events to read');
      const rows = db
        .prepare(
          `SELECT * FROM reputation_events WHERE team = ? AND name = ? AND seq > ?${runId === undefined ? '' : ' AND run_id = ?'} ORDER BY seq${limit === undefined ? '' : ' LIMIT ?'}`,
        )
        .all(
          team,
          name,
          afterSeq,
          ...(runId === undefined ? [] : [runId]),
          ...(limit === undefined ? [] : [limit]),
        ) as EventRow[];
      return rows.map(
        (row): ReputationEventRecord => ({
          schemaVersion: 1,
          team: row.team,
          name: row.name,
          seq: row.seq,
          key: row.key,
          runId: row.run_id,
          taskId: row.task_id,
          evidence: JSON.parse(row.evidence) as Evidence[],
          readVersion: row.read_version,
          createdAt: row.created_at,
        }),
      );
    },

    reputationVersion({ team, name }) {
      guard();
      return (statements.lastSeq.get(team, name) as { seq: number }).seq;
    },

    acquireReputationLease({ team, name, holder, leaseMs }) {
      guard();
      assertNonEmptyString('holder', holder, 'pass an id unique to this process, e.g. `${hostname}:${pid}`');
      assertInteger('leaseMs', leaseMs, 1, 2_147_483_647, 'pass the lease in milliseconds, e.g. 10000');
      return transaction(() => {
        lock(`reputation:${team}/${name}`);
        const at = now();
        const row = statements.fold.get(team, name) as FoldRow | undefined;
        if (row === undefined) {
          statements.insertFold.run(team, name, holder, at + leaseMs, at);
        } else if (row.holder === holder) {
          // Still ours (nobody took over, or the generation would have moved): renew it.
          statements.renew.run(at + leaseMs, team, name, row.generation);
        } else if (row.lease_until <= at) {
          statements.takeOver.run(holder, at + leaseMs, team, name, row.generation);
        } else {
          return undefined;
        }
        return toFold(statements.fold.get(team, name) as FoldRow);
      });
    },

    commitReputationFold({ team, name, generation, foldedSeq, snapshot }) {
      guard();
      const json = toJson('snapshot', snapshot);
      return transaction(() => {
        lock(`reputation:${team}/${name}`);
        const at = now();
        if (statements.commit.run(json, foldedSeq, at, team, name, generation, foldedSeq).changes !== 1) return false;
        // The team's snapshot (what loadReputation({ team }) and the dashboard read) is the fenced fold.
        statements.saveTeamSnapshot.run(team, name, json, at);
        return true;
      });
    },

    reputationFold({ team, name }) {
      guard();
      const row = statements.fold.get(team, name) as FoldRow | undefined;
      return row === undefined ? undefined : toFold(row);
    },
  };
  return { methods, appendUnchecked };
}

function toFold(row: FoldRow): ReputationFoldRecord {
  return {
    schemaVersion: 1,
    team: row.team,
    name: row.name,
    generation: row.generation,
    holder: row.holder,
    leaseUntil: row.lease_until,
    foldedSeq: row.folded_seq,
    snapshot: row.snapshot === null ? null : (JSON.parse(row.snapshot) as ReputationSnapshot),
    updatedAt: row.updated_at,
  };
}
