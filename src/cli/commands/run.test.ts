import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { killRunOnceCommitted, runJson, runToExit } from '../../testing/_test-cli-run.js';
import { makeReadOnly, makeWritable } from '../../testing/_test-read-only.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { sumReply, writeSumTeam } from '../../testing/_test-sum-team.js';

/** Four agents (`weak` is off by one) on `tasks` sums, with the cache on, debating under majority, beta and minirep. */
function writeTeam(dir: string, baseURL: string, tasks: number, agentExtra = ''): string {
  return writeSumTeam(dir, { baseURL, tasks, methods: ['majority', 'beta', 'minirep'], agentExtra, cache: true });
}

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('repute run', () => {
  it('replays a second run entirely from the cache: zero provider requests, identical decisions and events', async () => {
    server = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
    const dir = temporaryDirectory('repute-run-');
    const team = writeTeam(dir, server.baseURL, 4);
    const first = await runJson(team, '--run-id', 'first', '--reputation', 'fresh');
    const requests = server.requestCount;
    // 4 agents × (propose + 1 revise) × 4 tasks × 3 methods = 96 calls (no ratings in these methods).
    // Methods that show the same peers send identical requests, so part of them already come from
    // the cache within the first run: every call is either a provider request or a cache hit.
    expect(first.usage.calls).toBe(96);
    expect(requests).toBeGreaterThanOrEqual(32);
    expect(first.usage.cachedCalls).toBe(96 - requests);
    expect(first.methods.majority).toEqual({ done: 4, resumed: 0, failed: 0, accuracy: 1, failures: 0 });
    expect(first.status).toBe('completed');

    const second = await runJson(team, '--run-id', 'second', '--reputation', 'fresh');
    expect(server.requestCount).toBe(requests);
    expect(second.usage).toMatchObject({ calls: 96, cachedCalls: 96, cost: 0 });
    const store = openStore({ path: join(dir, 'repute.db') });
    for (const method of ['majority', 'beta', 'minirep']) {
      expect(store.taskResults('second', method).map((record) => record.result)).toEqual(
        store.taskResults('first', method).map((record) => record.result),
      );
    }
    // Every event but the version of the team's reputation log each decision read: the second run's
    // decisions read the same state (its own events, from the prior) at later positions of the log.
    const strip = (runId: string) =>
      store.events(runId).map((event) => {
        const { readVersion: _version, ...data } = event.data as { readVersion?: number };
        return [event.type, event.method, event.taskId, event.spanId, event.parentId, JSON.stringify(data)];
      });
    expect(strip('second')).toEqual(strip('first'));
    expect(strip('first').length).toBeGreaterThan(0);
    // Each beta decision records the version it read: the log's seq of the run's previous beta
    // event (0 for the first task); the first run's 4 events are seq 1..4, the second's 5..8.
    const versions = (runId: string) =>
      store
        .events(runId)
        .filter((event) => event.method === 'beta' && event.type === 'vote')
        .map((event) => (event.data as { readVersion?: number }).readVersion);
    expect(versions('first')).toEqual([0, 1, 2, 3]);
    expect(versions('second')).toEqual([0, 5, 6, 7]);
    store.close();
  }, 60_000);

  it('stops before creating the store when an agent API key is missing, naming the variable', async () => {
    // Before: the error came only once the live team was built, after the store file had been created
    // and migrated (an empty ~90 KB store left behind).
    const dir = temporaryDirectory('repute-nokey-');
    const team = writeTeam(dir, 'http://127.0.0.1:9/v1', 2, '\n    apiKeyEnv: REPUTE_TEST_MISSING_KEY');
    const { REPUTE_TEST_MISSING_KEY: _unset, ...environment } = process.env;
    const result = await runToExit(
      [team, '--methods', 'majority', '--allow-env', 'REPUTE_TEST_MISSING_KEY'],
      environment,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('REPUTE_TEST_MISSING_KEY is not set');
    expect(result.stderr).toContain('agents[0].apiKeyEnv');
    expect(readdirSync(dir).filter((name) => name.startsWith('repute.db'))).toEqual([]);
  }, 30_000);

  it('stores a task whose acts failed after retries as failed, never as a result, and never stores the API key', async () => {
    const secret = 'sk-test-4f9a2c81d7e6b3';
    // Agent `weak` always gets an error whose body echoes the Authorization header (a leaky server).
    server = await startOpenAICompatibleServer({
      script: (request) =>
        sumReply(request).includes('"answer"') && JSON.stringify(request.body).includes('You are agent weak,')
          ? { type: 'echo-auth', status: 500 }
          : sumReply(request),
    });
    const dir = temporaryDirectory('repute-fail-');
    const team = writeTeam(dir, server.baseURL, 3, '\n    apiKeyEnv: REPUTE_TEST_KEY');
    const result = await runToExit([team, '--methods', 'majority', '--json', '--max-failures', '5'], {
      ...process.env,
      REPUTE_TEST_KEY: secret,
      REPUTE_ALLOW_ENV: 'REPUTE_TEST_KEY',
    });
    // Old main: exit 0, the 3 tasks stored as results with 6 failed acts. Now each task is failed.
    expect(result.code).toBe(4);
    const summary = JSON.parse(result.stdout);
    expect(summary.status).toBe('failed');
    expect(summary.methods.majority).toEqual({ done: 0, resumed: 0, failed: 3, accuracy: null, failures: 0 });
    // One summary line for the one failure kind: weak's propose fails (HTTP 500) in each of the 3
    // tasks; its revise round fails too, so 2 failed calls per task = 6.
    const port = new URL(server.baseURL).port;
    expect(result.stderr).toContain(
      `repute run: failed: http://127.0.0.1:${port}/v1 answered HTTP 500: 6 calls failed after retries, in 3 tasks`,
    );
    expect(result.stderr).toMatch(/repute run: RunFailedError: 3 of 3 tasks failed/);
    expect(server.requests.some((request) => request.headers.authorization === `Bearer ${secret}`)).toBe(true);
    expect(result.stdout + result.stderr).not.toContain(secret);
    const bytes =
      readFileSync(join(dir, 'repute.db')).toString('latin1') +
      (existsSync(join(dir, 'repute.db-wal')) ? readFileSync(join(dir, 'repute.db-wal')).toString('latin1') : '');
    expect(bytes).not.toContain(secret);
    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const runId = store.listRuns()[0]!.id;
    expect(store.getRun(runId)?.status).toBe('failed');
    expect(store.taskResults(runId)).toEqual([]);
    const failures = store.taskFailures<{ failures: Array<{ message: string; status: number }> }>(runId);
    expect(failures.map((failure) => failure.taskId)).toEqual(['t1', 't2', 't3']);
    // The message keeps what happened (HTTP 500, echoed header) with the key scrubbed by src/llm.
    expect(failures[0]!.failure.failures[0]!.message).toMatch(/HTTP 500: .*authorization Bearer \[redacted\]/);
    expect(JSON.stringify(failures)).not.toContain(secret);
    store.close();
  }, 60_000);

  it('with the endpoint down: exit 4, run failed, nothing stored as a result; the rerun once it is up redoes every task', async () => {
    // Old main: exit 0, accuracy 0.0%, run `completed`, and the rerun sent 0 requests.
    const dir = temporaryDirectory('repute-down-');
    server = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
    const baseURL = server.baseURL;
    await server.close();
    server = undefined;
    const team = writeTeam(dir, baseURL, 2);
    const failed = await runToExit([team, '--methods', 'majority', '--json']);
    expect(failed.code).toBe(4);
    expect(failed.stderr).toContain(`prompts will be sent to ${new URL(baseURL).origin} (alpha, beta-1, beta-2, weak)`);
    // Every act of both tasks finds no server: one summary line, both tasks failed.
    expect(failed.stderr).toMatch(
      /repute run: failed: http:\/\/127\.0\.0\.1:\d+\/v1 answered network error \(no connection\): \d+ calls failed after retries, in 2 tasks/,
    );
    const before = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const runId = before.listRuns()[0]!.id;
    expect(before.getRun(runId)?.status).toBe('failed');
    expect(before.taskResults(runId)).toEqual([]);
    before.close();

    // The same port again, now answering.
    server = await startOpenAICompatibleServer({
      script: (request) => sumReply(request),
      port: Number(new URL(baseURL).port),
    });
    const rerun = await runJson(team, '--methods', 'majority');
    expect(rerun).toMatchObject({
      runId,
      status: 'completed',
      methods: { majority: { done: 2, resumed: 0, failed: 0, accuracy: 1 } },
    });
    // 4 agents × (propose + revise) × 2 tasks = 16 requests, none cached from the failed run.
    expect(server.requestCount).toBe(16);
    const after = openStore({ path: join(dir, 'repute.db'), readonly: true });
    expect(after.getRun(runId)?.status).toBe('completed');
    expect(after.taskFailures(runId)).toEqual([]);
    after.close();
  }, 60_000);

  it('stops after --max-failures tasks failed the same way, naming endpoint and status', async () => {
    server = await startOpenAICompatibleServer({
      script: () => ({ type: 'error', status: 401, message: 'invalid api key' }),
    });
    const dir = temporaryDirectory('repute-401-');
    const team = writeTeam(dir, server.baseURL, 8);
    const failed = await runToExit([team, '--methods', 'majority,beta', '--max-failures', '2']);
    expect(failed.code).toBe(4);
    const port = new URL(server.baseURL).port;
    expect(failed.stderr).toMatch(
      new RegExp(
        `RunFailedError: stopped after 2 tasks in a row failed the same way \\(http://127\\.0\\.0\\.1:${port}/v1 answered HTTP 401\\)`,
      ),
    );
    // 401 is not retried: 2 tasks × 4 agents' propose calls, then the revise calls of each task
    // (peers still debate: each agent revises with nothing parseable shown) = 2 × 8 = 16 at most.
    expect(server.requestCount).toBeLessThanOrEqual(16);
    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const runId = store.listRuns()[0]!.id;
    expect(store.getRun(runId)?.status).toBe('failed');
    expect(store.taskFailures(runId).map((failure) => failure.taskId)).toEqual(['t1', 't2']);
    store.close();
  }, 60_000);

  it('resumes after SIGKILL with no task lost or counted twice', async () => {
    server = await startOpenAICompatibleServer({
      script: (request) => ({ type: 'reply', text: sumReply(request), delayMs: 40 }),
    });
    const dir = temporaryDirectory('repute-kill-');
    const team = writeTeam(dir, server.baseURL, 8);
    const dbPath = join(dir, 'repute.db');
    // Kill once a few tasks are committed (polling the store from this process).
    expect(
      await killRunOnceCommitted({
        args: [team, '--methods', 'majority,beta', '--json'],
        dbPath,
        committed: 3,
        attempts: 400,
      }),
    ).toBe('SIGKILL');
    const before = openStore({ path: dbPath, readonly: true });
    const runId = before.listRuns()[0]!.id;
    const committed = before.taskResults(runId).length;
    before.close();
    expect(committed).toBeGreaterThanOrEqual(3);
    expect(committed).toBeLessThan(16);

    const resumed = await runJson(team, '--methods', 'majority,beta');
    expect(resumed.runId).toBe(runId);
    expect(resumed.methods.majority.done + resumed.methods.beta.done).toBe(16);
    expect(resumed.methods.majority.resumed + resumed.methods.beta.resumed).toBe(committed);
    const store = openStore({ path: dbPath, readonly: true });
    for (const method of ['majority', 'beta']) {
      const ids = store.taskResults(runId, method).map((record) => record.taskId);
      expect(ids.slice().sort()).toEqual(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
      expect(store.events(runId, { type: 'vote', method })).toHaveLength(8);
    }
    expect(store.getRun(runId)?.status).toBe('completed');
    store.close();
  }, 90_000);

  it('refuses --reputation with more than one value, naming the flag and the value, before any write', async () => {
    const dir = temporaryDirectory('repute-rep-flag-');
    const team = writeTeam(dir, 'http://127.0.0.1:9/v1', 2);
    // Old: `fresh,continue` ran with `fresh` and silently dropped `continue`.
    for (const value of ['fresh,continue', 'continue,fresh']) {
      const result = await runToExit([team, '--reputation', value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `repute run: InvalidArgumentError: --reputation takes one value, continue or fresh, got ${JSON.stringify(value)}; pass --reputation continue or --reputation fresh`,
      );
    }
    expect(existsSync(join(dir, 'repute.db'))).toBe(false);
  }, 60_000);

  it('refuses a store it cannot write with a StoreError that says what to do, leaving no lock behind', async (context) => {
    server = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
    const dir = temporaryDirectory('repute-ro-');
    const team = writeTeam(dir, server.baseURL, 2);
    expect((await runToExit([team, '--methods', 'majority'])).code).toBe(0);
    const requests = server.requestCount;
    const store = join(dir, 'repute.db');
    // A read-only store file. Old: the run started, then died on its first write with a bare
    // `SqliteError: attempt to write a readonly database` (exit 1).
    if (!makeReadOnly(store, false)) context.skip();
    try {
      const result = await runToExit([team, '--methods', 'majority', '--run-id', 'second']);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`repute run: StoreError: store ${store} is read-only`);
      expect(result.stderr).toMatch(/make it writable .*or use another store file \(--store PATH/);
    } finally {
      makeWritable(store, false);
    }
    // A read-only folder. Old: a bare `Error: EPERM: operation not permitted, open '<store>.<run>.lock...tmp'`.
    const folder = join(dir, 'locked');
    mkdirSync(folder);
    if (!makeReadOnly(folder, true)) context.skip();
    try {
      const result = await runToExit([team, '--methods', 'majority', '--store', join(folder, 'repute.db')]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(
        `repute run: StoreError: cannot write in the folder ${folder} of store ${join(folder, 'repute.db')}`,
      );
      expect(result.stderr).toMatch(/make the folder writable or pass --store <a \.db path in a writable folder>/);
    } finally {
      makeWritable(folder, true);
    }
    expect(server.requestCount).toBe(requests);
    expect(readdirSync(dir).filter((name) => name.endsWith('.lock'))).toEqual([]);
    expect(readdirSync(folder)).toEqual([]);
  }, 60_000);
});
