import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../core/errors.js';
import { newPostgresStoreUrl, postgresAvailable } from './_test-postgres.js';
import { runStoreContract } from './_test-store-contract.js';
import { connectPostgres } from './_postgres-connection.js';
import { toPostgresPlaceholders } from './_postgres-store.js';
import { redactPostgresUrl } from './_postgres-url.js';
import { openStore } from './store.js';
import { createSharedReputation, foldReputation } from './shared-reputation.js';
import { createWriterModel, evidenceOf } from './_test-reputation-team.js';

describe('postgres store helpers', () => {
  it('turns ? into $n outside string literals and hides a URL password', () => {
    expect(toPostgresPlaceholders("SELECT ? WHERE a = '?' AND b = ?")).toBe("SELECT $1 WHERE a = '?' AND b = $2");
    expect(redactPostgresUrl('postgres://u:s3cret@h:5432/d')).toBe('postgres://u:***@h:5432/d');
    expect(redactPostgresUrl('postgresql://u@h/d')).toBe('postgresql://u@h/d');
  });
});

describe.skipIf(!postgresAvailable())('postgres store', () => {
  runStoreContract({ name: 'postgres', newLocation: newPostgresStoreUrl, crashTasks: 200 });

  it('says what to do when the server cannot be reached, without the password', () => {
    let message = '';
    try {
      openStore({ path: 'postgres://root:hunter2@127.0.0.1:1/none' });
    } catch (error) {
      expect(error).toBeInstanceOf(StoreError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/connection to the PostgreSQL server failed.*check that the server is up/);
    expect(message).not.toContain('hunter2');
  });

  it('opens read-only only a migrated store, and refuses writes then', () => {
    const url = newPostgresStoreUrl();
    expect(() => openStore({ path: url, readonly: true })).toThrow(/schema version 0, expected 5/);
    openStore({ path: url }).close();
    const reader = openStore({ path: url, readonly: true });
    try {
      expect(reader.listRuns()).toEqual([]);
      expect(() => reader.createRun({ id: 'r', kind: 'k', config: null })).toThrow(/opened read-only/);
    } finally {
      reader.close();
    }
  });
});

describe.skipIf(!postgresAvailable())('postgres store across processes', () => {
  const child = fileURLToPath(new URL('./_test-store-writer.ts', import.meta.url));
  const start = (url: string, startAt: number, args: string[] = []) =>
    new Promise<string>((resolve, reject) => {
      const process_ = spawn(process.execPath, ['--import', 'tsx', child, url, String(startAt), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      process_.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      process_.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      process_.on('error', reject);
      process_.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
    });

  it('migrates a new database once when four processes open it at the same instant', async () => {
    const url = newPostgresStoreUrl();
    // Children need ~1-2 s to load tsx; all start migrating at the same wall-clock instant after that.
    const startAt = Date.now() + 4000;
    const outputs = await Promise.all([0, 1, 2, 3].map(() => start(url, startAt)));
    for (const output of outputs) expect(output).toContain('open 5\n');
    const store = openStore({ path: url });
    try {
      // Each version applied exactly once, though four processes found an empty database.
      const versions = readVersions(url);
      expect(versions).toEqual([1, 2, 3, 4, 5]);
    } finally {
      store.close();
    }
  }, 60_000);

  it('serialises callers’ own transactions as SQLite does: three processes’ read-modify-writes lose nothing', async () => {
    const url = newPostgresStoreUrl();
    openStore({ path: url }).close();
    const startAt = Date.now() + 4000;
    await Promise.all(['a', 'b', 'c'].map((prefix) => start(url, startAt, [prefix, '30', 'rmw'])));
    const store = openStore({ path: url });
    try {
      // 3 processes × 30 increments.
      expect(store.loadReputation({ scope: { team: 'counter' }, name: 'n' })?.state).toBe(90);
    } finally {
      store.close();
    }
  }, 120_000);

  it('loses and doubles nothing when three processes record tasks of one run at once', async () => {
    const url = newPostgresStoreUrl();
    openStore({ path: url }).close();
    const startAt = Date.now() + 4000;
    await Promise.all(['a', 'b', 'c'].map((prefix) => start(url, startAt, [prefix, '40'])));
    const store = openStore({ path: url });
    try {
      // 3 writers × 40 tasks = 120 results, events with seq 1..120 gap-free, positions 0..119.
      expect(store.completedTaskIds('r', 'm')).toHaveLength(120);
      expect(store.events('r').map((event) => event.seq)).toEqual(Array.from({ length: 120 }, (_, index) => index + 1));
      expect(store.taskResults('r', 'm').map((result) => result.position)).toEqual(
        Array.from({ length: 120 }, (_, index) => index),
      );
      // 120 ledger entries × 0.25 = 30, × 1 input token = 120.
      expect(store.usageSummary({ by: 'run', runId: 'r' })[0]).toMatchObject({
        calls: 120,
        inputTokens: 120,
        cost: 30,
      });
    } finally {
      store.close();
    }
  }, 120_000);
});

/** The applied schema versions of the store at `url`, read over a plain connection. */
function readVersions(url: string): number[] {
  const connection = connectPostgres({ url, label: 'test', timeoutMs: 10_000 });
  try {
    return connection
      .query('SELECT version FROM schema_version ORDER BY version')
      .rows.map((row) => row.version as number);
  } finally {
    connection.close();
  }
}

describe.skipIf(!postgresAvailable())('shared reputation across processes (postgres)', () => {
  const child = fileURLToPath(new URL('./_test-reputation-writer.ts', import.meta.url));
  const team = { team: 'math', name: 'eigentrust' };
  const spawnWriter = (args: string[]) =>
    spawn(process.execPath, ['--import', 'tsx', child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const finish = (processHandle: ReturnType<typeof spawnWriter>) =>
    new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      processHandle.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      processHandle.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
      processHandle.on('error', reject);
      processHandle.on('close', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`)),
      );
    });

  it('loses and duplicates no update from three processes that also redeliver each other’s tasks, and folds exactly', async () => {
    const url = newPostgresStoreUrl();
    openStore({ path: url }).close();
    const startAt = Date.now() + 4000;
    // a re-records b's tasks, b c's and c a's: 3 × 30 tasks, each recorded twice, by two processes at once.
    const outputs = await Promise.all(
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
      ].map(([prefix, dup]) =>
        finish(spawnWriter(['write', url, String(startAt), prefix as string, '30', dup as string])),
      ),
    );
    const appended = outputs.map((output) => Number(/appended (\d+)/.exec(output)?.[1]));
    const store = openStore({ path: url });
    try {
      // 90 distinct keys: appended exactly once in all (whichever process came first), seq 1..90.
      expect(appended.reduce((sum, count) => sum + count, 0)).toBe(90);
      const events = store.reputationEvents(team);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 90 }, (_, index) => index + 1));
      const expectedKeys = ['a', 'b', 'c'].flatMap((prefix) =>
        Array.from({ length: 30 }, (_, index) => `${prefix}${index}`),
      );
      expect(events.map((event) => event.key).sort()).toEqual(expectedKeys.sort());
      for (const event of events) expect(event.evidence).toEqual(evidenceOf(event.key));
      // Every decision read a version no later than the event before its own.
      for (const event of events) expect(event.readVersion).toBeLessThan(event.seq);
      // Final reputation == a fresh fold of the log.
      const shared = createSharedReputation({
        store,
        ...team,
        createModel: createWriterModel,
        holder: 'test',
        leaseMs: 1,
      });
      const fresh = foldReputation(createWriterModel, null, events).snapshot();
      expect(shared.current().model.snapshot()).toEqual(fresh);
      await new Promise((resolve) => setTimeout(resolve, 2100)); // writers' 2 s leases end
      expect(shared.fold()).toMatchObject({ status: 'folded', foldedSeq: 90 });
      expect(store.reputationFold(team)?.snapshot).toEqual(fresh);
    } finally {
      store.close();
    }
  }, 120_000);

  it('a fold lease holder paused with SIGSTOP past its lease writes nothing once its fence is taken', async () => {
    const url = newPostgresStoreUrl();
    const store = openStore({ path: url });
    try {
      for (const key of ['k1', 'k2', 'k3', 'k4', 'k5'])
        store.appendReputationEvent({ ...team, key, evidence: evidenceOf(key) });
      const stale = spawnWriter(['stall', url, 'stale', '1000', '1500']);
      const done = finish(stale);
      // Stop the holder as soon as it has folded under its lease (generation 1), before it commits.
      await new Promise<void>((resolve, reject) => {
        stale.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('leased 1')) {
            stale.kill('SIGSTOP');
            resolve();
          }
        });
        stale.on('close', () => reject(new Error('stall child ended before it was leased')));
      });
      await new Promise((resolve) => setTimeout(resolve, 1300)); // past its 1000 ms lease
      const shared = createSharedReputation({
        store,
        ...team,
        createModel: createWriterModel,
        holder: 'fresh',
        leaseMs: 60_000,
      });
      // The same five events: the stale holder's fold would not move backwards, only the fence stops it.
      expect(shared.fold()).toMatchObject({ status: 'folded', generation: 2, foldedSeq: 5 });
      const taken = store.reputationFold(team);
      stale.kill('SIGCONT');
      const output = await done;
      expect(output).toContain('{"status":"fenced","generation":1}');
      // Nothing of the stale holder's: same holder, generation, fold and write time as after the takeover.
      expect(store.reputationFold(team)).toEqual(taken);
      expect(taken).toMatchObject({ holder: 'fresh', generation: 2, foldedSeq: 5 });
    } finally {
      store.close();
    }
  }, 60_000);
});
