import type Database from 'better-sqlite3';
import { StoreError } from '../core/errors.js';

/** One forward-only schema step; `version` n upgrades a database from n - 1 to n. */
interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

// Append new migrations at the end; never edit a released one (databases in the field ran it).
const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, task results, events, reputation, teams, llm cache, cost ledger',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        team TEXT,
        config TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX runs_team ON runs (team);

      CREATE TABLE task_results (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        method TEXT NOT NULL,
        task_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        result TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (run_id, method, task_id)
      );
      CREATE INDEX task_results_order ON task_results (run_id, method, position);

      CREATE TABLE events (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        method TEXT,
        task_id TEXT,
        span_id TEXT,
        parent_id TEXT,
        started_at INTEGER,
        ended_at INTEGER,
        error TEXT,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE INDEX events_type ON events (run_id, type);

      CREATE TABLE reputation (
        scope TEXT NOT NULL CHECK (scope IN ('run', 'team')),
        scope_id TEXT NOT NULL,
        name TEXT NOT NULL,
        snapshot TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (scope, scope_id, name)
      );

      CREATE TABLE team_agents (
        team TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        identity TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (team, agent_id)
      );

      CREATE TABLE llm_cache (
        key TEXT PRIMARY KEY,
        model TEXT,
        value TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE cost_ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT,
        agent_id TEXT,
        task_id TEXT,
        act TEXT,
        model TEXT,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost REAL NOT NULL,
        cached INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX cost_ledger_run ON cost_ledger (run_id);
    `,
  },
  {
    version: 2,
    description: 'failed tasks: kept apart from results so a rerun redoes them',
    sql: `
      CREATE TABLE task_failures (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        method TEXT NOT NULL,
        task_id TEXT NOT NULL,
        failure TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, method, task_id)
      );
    `,
  },
  {
    version: 3,
    description: 'cost ledger: status of each call, whether its usage was reported, attempts',
    // Rows booked before this step keep status 'ok' (older Repute booked failed calls only when the
    // provider call itself succeeded) and NULL for what was not recorded then (usage reported, attempts).
    sql: `
      ALTER TABLE cost_ledger ADD COLUMN status TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failed'));
      ALTER TABLE cost_ledger ADD COLUMN usage_reported INTEGER CHECK (usage_reported IN (0, 1));
      ALTER TABLE cost_ledger ADD COLUMN attempts INTEGER CHECK (attempts >= 0);
    `,
  },
  {
    version: 4,
    description: 'cost ledger: when each call started and ended, and (when captured) its prompt and completion',
    // Rows booked before this step keep NULL: their timing and content were not recorded.
    sql: `
      ALTER TABLE cost_ledger ADD COLUMN started_at REAL;
      ALTER TABLE cost_ledger ADD COLUMN ended_at REAL;
      ALTER TABLE cost_ledger ADD COLUMN prompt TEXT;
      ALTER TABLE cost_ledger ADD COLUMN completion TEXT;
    `,
  },
  {
    version: 5,
    description: 'shared reputation: event log with idempotency keys, fenced folds; LLM request claims',
    sql: `
      CREATE TABLE reputation_events (
        team TEXT NOT NULL,
        name TEXT NOT NULL,
        seq INTEGER NOT NULL,
        key TEXT NOT NULL,
        run_id TEXT,
        task_id TEXT,
        evidence TEXT NOT NULL,
        read_version INTEGER,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (team, name, seq),
        UNIQUE (team, name, key)
      );

      CREATE TABLE reputation_folds (
        team TEXT NOT NULL,
        name TEXT NOT NULL,
        generation INTEGER NOT NULL,
        holder TEXT NOT NULL,
        lease_until INTEGER NOT NULL,
        folded_seq INTEGER NOT NULL,
        snapshot TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (team, name)
      );

      CREATE TABLE llm_claims (
        key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        claimed_until INTEGER NOT NULL
      );
    `,
  },
];

/** Highest schema version this build of Repute knows. */
export const LATEST_SCHEMA_VERSION = migrations[migrations.length - 1]!.version;

/**
 * Brings the database to {@link LATEST_SCHEMA_VERSION}, one transaction per step, and returns the
 * resulting version. Refuses databases written by a newer Repute.
 */
export function migrate(db: Database.Database, path: string, now: () => number): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, description TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const readVersion = db.prepare('SELECT COALESCE(MAX(version), 0) AS version FROM schema_version');
  const versionNow = () => (readVersion.get() as { version: number }).version;
  const current = versionNow();
  if (current > LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      `store ${path} has schema version ${current}, newer than this Repute supports (${LATEST_SCHEMA_VERSION}); upgrade Repute or open a different store file`,
    );
  }
  const insertVersion = db.prepare('INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)');
  // One clock reading for the whole upgrade: the steps are applied together.
  const appliedAt = current < LATEST_SCHEMA_VERSION ? now() : 0;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    const apply = db.transaction(() => {
      // Read again under the write lock: another process opening the same new store may have
      // applied this step between our first read and this transaction.
      if (versionNow() >= migration.version) return;
      db.exec(migration.sql);
      insertVersion.run(migration.version, migration.description, appliedAt);
    });
    try {
      apply.immediate();
    } catch (error) {
      throw new StoreError(
        `store ${path}: migration to schema version ${migration.version} (${migration.description}) failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  return LATEST_SCHEMA_VERSION;
}
