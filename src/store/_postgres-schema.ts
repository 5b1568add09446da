// Internal: the PostgreSQL store's schema, the same tables and versions as `_schema.ts` in
// PostgreSQL's types (BIGINT milliseconds, DOUBLE PRECISION costs, BIGSERIAL ids). `runs` and
// `task_failures` carry a `rowid` column that SQLite gives every table implicitly, so the shared
// queries' `ORDER BY created_at, rowid` (insertion order among equal times) mean the same here.
import { StoreError } from '../core/errors.js';
import type { PostgresConnection } from './_postgres-connection.js';
import { LATEST_SCHEMA_VERSION } from './_schema.js';

interface PostgresMigration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

// Append new migrations at the end, with the same version and description as `_schema.ts`.
const postgresMigrations: readonly PostgresMigration[] = [
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
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        rowid BIGSERIAL NOT NULL
      );
      CREATE INDEX runs_team ON runs (team);
      CREATE TABLE task_results (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        method TEXT NOT NULL,
        task_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        result TEXT NOT NULL,
        created_at BIGINT NOT NULL,
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
        started_at BIGINT,
        ended_at BIGINT,
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
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (scope, scope_id, name)
      );
      CREATE TABLE team_agents (
        team TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        identity TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (team, agent_id)
      );
      CREATE TABLE llm_cache (
        key TEXT PRIMARY KEY,
        model TEXT,
        value TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE cost_ledger (
        id BIGSERIAL PRIMARY KEY,
        run_id TEXT,
        agent_id TEXT,
        task_id TEXT,
        act TEXT,
        model TEXT,
        input_tokens BIGINT NOT NULL,
        output_tokens BIGINT NOT NULL,
        cost DOUBLE PRECISION NOT NULL,
        cached INTEGER NOT NULL,
        created_at BIGINT NOT NULL
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
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        rowid BIGSERIAL NOT NULL,
        PRIMARY KEY (run_id, method, task_id)
      );
    `,
  },
  {
    version: 3,
    description: 'cost ledger: status of each call, whether its usage was reported, attempts',
    sql: `
      ALTER TABLE cost_ledger ADD COLUMN status TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failed'));
      ALTER TABLE cost_ledger ADD COLUMN usage_reported INTEGER CHECK (usage_reported IN (0, 1));
      ALTER TABLE cost_ledger ADD COLUMN attempts INTEGER CHECK (attempts >= 0);
    `,
  },
  {
    version: 4,
    description: 'cost ledger: when each call started and ended, and (when captured) its prompt and completion',
    sql: `
      ALTER TABLE cost_ledger ADD COLUMN started_at DOUBLE PRECISION;
      ALTER TABLE cost_ledger ADD COLUMN ended_at DOUBLE PRECISION;
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
        created_at BIGINT NOT NULL,
        PRIMARY KEY (team, name, seq),
        UNIQUE (team, name, key)
      );
      CREATE TABLE reputation_folds (
        team TEXT NOT NULL,
        name TEXT NOT NULL,
        generation INTEGER NOT NULL,
        holder TEXT NOT NULL,
        lease_until BIGINT NOT NULL,
        folded_seq INTEGER NOT NULL,
        snapshot TEXT,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (team, name)
      );
      CREATE TABLE llm_claims (
        key TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        claimed_until BIGINT NOT NULL
      );
    `,
  },
];

if (postgresMigrations[postgresMigrations.length - 1]!.version !== LATEST_SCHEMA_VERSION) {
  throw new Error('internal: the PostgreSQL migrations must end at the SQLite schema version');
}

const VERSION_TABLE =
  'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, description TEXT NOT NULL, applied_at BIGINT NOT NULL)';

/** Highest applied version, 0 for a database without the version table (read-only opens). */
export function readPostgresSchemaVersion(connection: PostgresConnection): number {
  const table = connection.query("SELECT to_regclass('schema_version') IS NOT NULL AS present").rows[0]!;
  if (table.present !== true) return 0;
  return connection.query('SELECT COALESCE(MAX(version), 0) AS version FROM schema_version').rows[0]!.version as number;
}

/**
 * Brings the database (its current schema, i.e. the first of `search_path`) to the latest version in
 * ONE transaction that first takes a transaction advisory lock keyed by that schema: two processes
 * starting at once queue on the lock, and the second finds the work done. PostgreSQL's DDL is
 * transactional, so a failed step leaves the database as it was.
 */
export function migratePostgres(connection: PostgresConnection, label: string, now: () => number): number {
  connection.query('BEGIN');
  try {
    connection.query("SELECT pg_advisory_xact_lock(hashtextextended('repute-migrate:' || current_schema(), 0))");
    connection.query(VERSION_TABLE);
    const current = readPostgresSchemaVersion(connection);
    if (current > LATEST_SCHEMA_VERSION) {
      throw new StoreError(
        `store ${label} has schema version ${current}, newer than this Repute supports (${LATEST_SCHEMA_VERSION}); upgrade Repute or use a different database`,
      );
    }
    const appliedAt = current < LATEST_SCHEMA_VERSION ? now() : 0;
    for (const migration of postgresMigrations) {
      if (migration.version <= current) continue;
      try {
        connection.query(migration.sql);
      } catch (error) {
        throw new StoreError(
          `store ${label}: migration to schema version ${migration.version} (${migration.description}) failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
      connection.query('INSERT INTO schema_version (version, description, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.description,
        appliedAt,
      ]);
    }
    connection.query('COMMIT');
  } catch (error) {
    try {
      connection.query('ROLLBACK');
    } catch {
      // The connection is gone; the server rolled back.
    }
    throw error;
  }
  return LATEST_SCHEMA_VERSION;
}
