import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, migrate } from './_schema.js';
import { openStore } from './store.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';

// A store file as Repute 0.1.0 wrote it (schema version 1, before the store was split by table family), built
// here from SQL rather than checked in as a binary. The DDL is a frozen copy of migration 1: never edit it to match
// a later schema; a later release adds its own fixture and must still open this one.
const SCHEMA_V1 = `
  CREATE TABLE schema_version (version INTEGER NOT NULL, description TEXT NOT NULL, applied_at INTEGER NOT NULL);
  CREATE TABLE runs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, team TEXT, config TEXT NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE INDEX runs_team ON runs (team);
  CREATE TABLE task_results (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, method TEXT NOT NULL, task_id TEXT NOT NULL, position INTEGER NOT NULL, result TEXT NOT NULL, created_at INTEGER NOT NULL, UNIQUE (run_id, method, task_id));
  CREATE INDEX task_results_order ON task_results (run_id, method, position);
  CREATE TABLE events (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, seq INTEGER NOT NULL, type TEXT NOT NULL, method TEXT, task_id TEXT, span_id TEXT, parent_id TEXT, started_at INTEGER, ended_at INTEGER, error TEXT, data TEXT NOT NULL, PRIMARY KEY (run_id, seq));
  CREATE INDEX events_type ON events (run_id, type);
  CREATE TABLE reputation (scope TEXT NOT NULL CHECK (scope IN ('run', 'team')), scope_id TEXT NOT NULL, name TEXT NOT NULL, snapshot TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (scope, scope_id, name));
  CREATE TABLE team_agents (team TEXT NOT NULL, agent_id TEXT NOT NULL, position INTEGER NOT NULL, identity TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (team, agent_id));
  CREATE TABLE llm_cache (key TEXT PRIMARY KEY, model TEXT, value TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE cost_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT, agent_id TEXT, task_id TEXT, act TEXT, model TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost REAL NOT NULL, cached INTEGER NOT NULL, created_at INTEGER NOT NULL);
  CREATE INDEX cost_ledger_run ON cost_ledger (run_id);

  INSERT INTO schema_version VALUES (1, 'runs, task results, events, reputation, teams, llm cache, cost ledger', 1000);
  INSERT INTO runs VALUES ('run-1', 'debate', 'math-team', '{"seed":7}', 'interrupted', 1000, 1500);
  INSERT INTO task_results VALUES ('run-1', 'minirep', 't1', 0, '{"correct":true}', 1100);
  INSERT INTO task_results VALUES ('run-1', 'minirep', 't2', 1, '{"correct":false}', 1200);
  INSERT INTO events VALUES ('run-1', 1, 'vote', 'minirep', 't1', 's1', NULL, 10, 20, NULL, '{"type":"vote","taskId":"t1","agentId":"a"}');
  INSERT INTO events VALUES ('run-1', 2, 'selection', 'minirep', 't2', NULL, NULL, NULL, NULL, 'boom', '{"type":"selection","taskId":"t2"}');
  INSERT INTO reputation VALUES ('team', 'math-team', 'minirep', '{"schemaVersion":1,"model":"minirep","state":{"a":0.5}}', 1200);
  INSERT INTO team_agents VALUES ('math-team', 'b', 1, '{"id":"b","model":"m2"}', 900);
  INSERT INTO team_agents VALUES ('math-team', 'a', 0, '{"id":"a","model":"m1"}', 900);
  INSERT INTO llm_cache VALUES ('hash-1', 'm1', '{"text":"4"}', 1000);
  INSERT INTO cost_ledger (run_id, agent_id, task_id, act, model, input_tokens, output_tokens, cost, cached, created_at) VALUES ('run-1', 'a', 't1', 'propose', 'm1', 120, 30, 0.002, 0, 1100);
  INSERT INTO cost_ledger (run_id, agent_id, task_id, act, model, input_tokens, output_tokens, cost, cached, created_at) VALUES ('run-1', 'a', 't2', 'propose', 'm1', 80, 20, 0, 1, 1200);
`;

function writeOldStore(): string {
  const path = join(temporaryDirectory('repute-store-v1-'), 'old.db');
  const db = new Database(path);
  db.exec(SCHEMA_V1);
  db.close();
  return path;
}

describe('a store written by the previous version (schema 1)', () => {
  it('migrates to the current schema and reads every table family through the Store interface', () => {
    const path = writeOldStore();
    // Read-only opening never migrates, so it refuses the old file and says how to upgrade it.
    expect(() => openStore({ path, readonly: true })).toThrow(
      /has schema version 1, expected 5; open it once without readonly to migrate it/,
    );
    const store = openStore({ path, now: () => 2000 });
    expect(store.schemaVersion).toBe(5);
    // Schema 2 added task_failures: empty for the old run.
    expect(store.taskFailures('run-1')).toEqual([]);
    expect(store.getRun('run-1')).toEqual({
      schemaVersion: 1,
      id: 'run-1',
      kind: 'debate',
      team: 'math-team',
      config: { seed: 7 },
      status: 'interrupted',
      createdAt: 1000,
      updatedAt: 1500,
    });
    expect(store.completedTaskIds('run-1', 'minirep')).toEqual(['t1', 't2']);
    expect(store.taskResults('run-1').map((record) => [record.taskId, record.position, record.result])).toEqual([
      ['t1', 0, { correct: true }],
      ['t2', 1, { correct: false }],
    ]);
    expect(store.events('run-1', { type: 'vote' })).toEqual([
      {
        schemaVersion: 1,
        runId: 'run-1',
        seq: 1,
        type: 'vote',
        method: 'minirep',
        taskId: 't1',
        spanId: 's1',
        parentId: null,
        startedAt: 10,
        endedAt: 20,
        error: null,
        data: { type: 'vote', taskId: 't1', agentId: 'a' },
      },
    ]);
    expect(store.loadReputation({ scope: { team: 'math-team' }, name: 'minirep' })).toEqual({
      schemaVersion: 1,
      model: 'minirep',
      state: { a: 0.5 },
    });
    // Saved order is the position column, not insertion order.
    expect(store.loadTeam('math-team')).toEqual([
      { id: 'a', model: 'm1' },
      { id: 'b', model: 'm2' },
    ]);
    expect(store.getCachedResponse('hash-1')).toEqual({ text: '4' });
    expect(store.countCachedResponses()).toBe(1);
    // Totals by hand: 120 + 80 = 200 input, 30 + 20 = 50 output tokens, cost 0.002 + 0, one cached call of two.
    // Schema 3 added status, usage reported and attempts: old rows are successes that did not record the other two.
    expect(store.usageSummary({ by: 'agent', runId: 'run-1' })).toEqual([
      {
        key: 'a',
        calls: 2,
        cachedCalls: 1,
        inputTokens: 200,
        outputTokens: 50,
        cost: 0.002,
        failedCalls: 0,
        unreportedUsageCalls: 0,
      },
    ]);
    expect(
      store.usageEntries().map((entry) => {
        const { status, usageReported, attempts } = entry as typeof entry & Record<string, unknown>;
        return [status, usageReported, attempts];
      }),
    ).toEqual([
      ['ok', null, null],
      ['ok', null, null],
    ]);
    store.close();
  });

  it('resumes the old run: the next task gets position 2 and event seq 3, alongside the old rows', () => {
    const path = writeOldStore();
    const store = openStore({ path, now: () => 2000 });
    const { run, resumed } = store.ensureRun({ id: 'run-1', kind: 'debate', team: 'math-team', config: { seed: 7 } });
    expect(resumed).toBe(true);
    expect(run.status).toBe('running');
    const record = store.recordTaskResult({
      runId: 'run-1',
      method: 'minirep',
      taskId: 't3',
      result: { correct: true },
      events: [{ type: 'vote', taskId: 't3', agentId: 'b' } as never],
      usage: [{ agentId: 'b', inputTokens: 1, outputTokens: 1, cost: 0.5, cached: false }],
    });
    expect(record.position).toBe(2);
    expect(store.events('run-1', { taskId: 't3' }).map((event) => event.seq)).toEqual([3]);
    expect(store.usageEntries({}).map((entry) => entry.id)).toEqual([1, 2, 3]);
    // A failure recorded in the migrated file, then the file opens read-only (it is current now).
    expect(
      store.recordTaskFailure({ runId: 'run-1', method: 'minirep', taskId: 't4', failure: { kind: 'timeout' } }),
    ).toMatchObject({ attempts: 1, createdAt: 2000 });
    store.close();
    const reader = openStore({ path, readonly: true });
    expect(reader.completedTaskIds('run-1', 'minirep')).toEqual(['t1', 't2', 't3']);
    expect(reader.taskFailures('run-1').map((failure) => failure.taskId)).toEqual(['t4']);
    reader.close();
    // The old step stays as written; the upgrade added step 2 at the store's clock.
    const versions = new Database(path, { readonly: true })
      .prepare('SELECT version, applied_at FROM schema_version ORDER BY version')
      .all();
    expect(versions).toEqual([
      { version: 1, applied_at: 1000 },
      { version: 2, applied_at: 2000 },
      { version: 3, applied_at: 2000 },
      { version: 4, applied_at: 2000 },
      { version: 5, applied_at: 2000 },
    ]);
  });
});

// Migration 2 as released (frozen copy, like SCHEMA_V1): a store of schema version 2 is SCHEMA_V1 plus this.
const SCHEMA_V2_STEP = `
  CREATE TABLE task_failures (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, method TEXT NOT NULL, task_id TEXT NOT NULL, failure TEXT NOT NULL, attempts INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (run_id, method, task_id));
  INSERT INTO schema_version VALUES (2, 'failed tasks: kept apart from results so a rerun redoes them', 1300);
`;

describe('a store written before the ledger kept call status (schema 2)', () => {
  it('adds status, usage reported and attempts to the ledger, keeping the old rows and totals', () => {
    const path = join(temporaryDirectory('repute-store-v2-'), 'old.db');
    const db = new Database(path);
    db.exec(SCHEMA_V1);
    db.exec(SCHEMA_V2_STEP);
    db.close();
    expect(() => openStore({ path, readonly: true })).toThrow(
      /has schema version 2, expected 5; open it once without readonly to migrate it/,
    );
    const store = openStore({ path, now: () => 3000 });
    expect(store.schemaVersion).toBe(5);
    store.recordUsage({
      runId: 'run-1',
      agentId: 'a',
      inputTokens: 0,
      outputTokens: 0,
      cost: 0.001,
      cached: false,
      status: 'failed',
      usageReported: false,
      attempts: 2,
    } as never);
    // Old rows: ok, not recorded (null); the new row: failed, unreported, 2 attempts.
    expect(
      store.usageEntries({ runId: 'run-1' }).map((entry) => {
        const { status, usageReported, attempts } = entry as typeof entry & Record<string, unknown>;
        return [entry.id, status, usageReported, attempts, entry.inputTokens];
      }),
    ).toEqual([
      [1, 'ok', null, null, 120],
      [2, 'ok', null, null, 80],
      [3, 'failed', false, 2, 0],
    ]);
    // Totals: 120 + 80 + 0 = 200 input tokens; 0.002 + 0 + 0.001 = 0.003; one failed call, one unreported.
    const [total] = store.usageSummary({ by: 'run', runId: 'run-1' });
    expect(total).toMatchObject({
      calls: 3,
      cachedCalls: 1,
      inputTokens: 200,
      failedCalls: 1,
      unreportedUsageCalls: 1,
    });
    expect(total!.cost).toBeCloseTo(0.003, 12);
    store.close();
    // The new columns refuse what they cannot hold, even from outside Repute.
    const raw = new Database(path);
    expect(() =>
      raw
        .prepare(
          "INSERT INTO cost_ledger (input_tokens, output_tokens, cost, cached, created_at, status) VALUES (1, 1, 0, 0, 1, 'maybe')",
        )
        .run(),
    ).toThrow(/CHECK constraint failed/);
    expect(raw.prepare('SELECT version, applied_at FROM schema_version ORDER BY version').all()).toEqual([
      { version: 1, applied_at: 1000 },
      { version: 2, applied_at: 1300 },
      { version: 3, applied_at: 3000 },
      { version: 4, applied_at: 3000 },
      { version: 5, applied_at: 3000 },
    ]);
    raw.close();
  });
});

// Migration 3 as released (frozen copy): a store of schema version 3 is SCHEMA_V1 + SCHEMA_V2_STEP plus this.
const SCHEMA_V3_STEP = `
  ALTER TABLE cost_ledger ADD COLUMN status TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failed'));
  ALTER TABLE cost_ledger ADD COLUMN usage_reported INTEGER CHECK (usage_reported IN (0, 1));
  ALTER TABLE cost_ledger ADD COLUMN attempts INTEGER CHECK (attempts >= 0);
  INSERT INTO schema_version VALUES (3, 'cost ledger: status of each call, whether its usage was reported, attempts', 1400);
`;

describe('a store written before the ledger kept call timing and content (schema 3)', () => {
  it('adds start, end, prompt and completion to the ledger; old rows keep null for them', () => {
    const path = join(temporaryDirectory('repute-store-v3-'), 'old.db');
    const db = new Database(path);
    db.exec(SCHEMA_V1);
    db.exec(SCHEMA_V2_STEP);
    db.exec(SCHEMA_V3_STEP);
    db.close();
    expect(() => openStore({ path, readonly: true })).toThrow(/has schema version 3, expected 5/);
    const store = openStore({ path, now: () => 5000 });
    expect(store.schemaVersion).toBe(5);
    store.recordUsage({
      runId: 'run-1',
      agentId: 'a',
      inputTokens: 3,
      outputTokens: 2,
      cost: 0,
      cached: false,
      startedAt: 4000,
      endedAt: 4250,
      prompt: '[{"role":"user","content":"What is 1 + 1?"}]',
      completion: '2',
    } as never);
    expect(
      store.usageEntries({ runId: 'run-1' }).map((entry) => {
        const { startedAt, endedAt, prompt, completion } = entry as typeof entry & Record<string, unknown>;
        return [entry.id, startedAt, endedAt, prompt, completion];
      }),
    ).toEqual([
      [1, null, null, null, null],
      [2, null, null, null, null],
      [3, 4000, 4250, '[{"role":"user","content":"What is 1 + 1?"}]', '2'],
    ]);
    // An end before the start is refused, naming the field.
    expect(() =>
      store.recordUsage({
        inputTokens: 0,
        outputTokens: 0,
        cost: 0,
        cached: false,
        startedAt: 10,
        endedAt: 9,
      } as never),
    ).toThrow(/entries\[0\]\.endedAt must not be before startedAt/);
    store.close();
  });
});

describe('two processes opening the same new store at once', () => {
  it('apply each schema step once: the second skips a step the first applied after its first read', () => {
    const path = join(temporaryDirectory('repute-store-race-'), 'new.db');
    const first = new Database(path);
    const second = new Database(path);
    // `now` is read after the version check and before the first step's transaction: the window in
    // which another process may finish the whole upgrade. Before the fix the second connection then
    // applied step 1 again and failed with "table runs already exists".
    const version = migrate(second, path, () => {
      expect(migrate(first, path, () => 1000)).toBe(LATEST_SCHEMA_VERSION);
      return 2000;
    });
    expect(version).toBe(LATEST_SCHEMA_VERSION);
    const rows = second.prepare('SELECT version, applied_at FROM schema_version ORDER BY version').all();
    const expected = Array.from({ length: LATEST_SCHEMA_VERSION }, (_, index) => ({
      version: index + 1,
      applied_at: 1000,
    }));
    expect(rows).toEqual(expected);
    first.close();
    second.close();
    openStore({ path }).close();
  });
});
