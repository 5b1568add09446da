// `repute run --workers` and `repute worker` against the real NATS JetStream at 127.0.0.1:4222 (or
// REPUTE_TEST_NATS); skipped with one line when none answers, unless REPUTE_REQUIRE_NATS=1.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newPostgresStoreUrl, postgresAvailable } from '../../store/_test-postgres.js';
import { openStore, type Store } from '../../store/store.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { repoRoot, runJson, runToExit } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { sumReply, writeSumTeam } from '../../testing/_test-sum-team.js';
import { toyColluders, toyHonest, toyTasks, writeToyTeam } from '../../testing/_test-toy-team.js';
import { queueDepth, taskQueueNames, taskStream } from './_task-queue.js';

const natsUrl = process.env.REPUTE_TEST_NATS ?? 'nats://127.0.0.1:4222';
// The SIGKILL test runs on a SQLite file (one host) and, when a server answers, on PostgreSQL.
const stores = postgresAvailable() ? ['sqlite', 'postgres'] : ['sqlite'];

async function natsAvailable(): Promise<boolean> {
  const nats = await import('nats');
  try {
    const connection = await nats.connect({ servers: natsUrl, timeout: 2000 });
    await (await connection.jetstreamManager()).getAccountInfo();
    await connection.close();
    return true;
  } catch (error) {
    if (process.env.REPUTE_REQUIRE_NATS === '1') throw error;
    console.info(`NATS worker tests skipped: no JetStream at ${natsUrl} (${(error as Error).message})`);
    return false;
  }
}
const hasNats = await natsAvailable();

/** The run's queue consumer as the server holds it, or undefined when it does not exist. */
async function queueConsumer(runId: string) {
  const nats = await import('nats');
  const connection = await nats.connect({ servers: natsUrl });
  try {
    const manager = await connection.jetstreamManager();
    return await manager.consumers.info(taskStream, taskQueueNames(runId).durable).catch(() => undefined);
  } finally {
    await connection.close();
  }
}

let server: OpenAICompatibleServer | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await server?.close();
  server = undefined;
});

/** What a run stored, without wall-clock fields: results, events, ledger and reputation per method. */
function stored(store: Store, runId: string, methods: readonly string[]) {
  return {
    results: methods.map((method) =>
      store.taskResults(runId, method).map((record) => [record.taskId, record.position, record.result]),
    ),
    events: store
      .events(runId)
      .map((event) => [
        event.type,
        event.method,
        event.taskId,
        event.spanId,
        event.parentId,
        JSON.stringify(event.data),
      ]),
    reputation: methods.map((method) => [
      store.loadReputation({ scope: { runId }, name: method }) ?? null,
      store.loadReputation({ scope: { team: 'sum-team' }, name: method }) ?? null,
    ]),
    calls: store.usageEntries({ runId }).length,
  };
}

function startWorker(team: string, runId: string, extra: readonly string[] = []): ChildProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/run-cli.ts', 'worker', team, '--run-id', runId, ...extra],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk) => process.stderr.write(chunk));
  children.push(child);
  return child;
}

/** Starts `repute run <args> --json` (killed after the test if still running); resolves to its summary. */
function startCoordinator(
  args: readonly string[],
): Promise<{ status: string; methods: Record<string, { done: number }> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', 'run', ...args, '--json'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`repute run exited ${code}`)),
    ),
  );
}

describe.skipIf(!hasNats)('repute run --workers (NATS JetStream task queue)', () => {
  it('with one worker stores exactly what the single process stores', async () => {
    server = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
    const methods = ['majority', 'beta', 'minirep'];
    const runId = `w1-${randomBytes(4).toString('hex')}`;
    const single = temporaryDirectory('repute-w1-single-');
    const queued = temporaryDirectory('repute-w1-queued-');
    const args = ['--run-id', runId, '--reputation', 'fresh'];
    const alone = await runJson(writeSumTeam(single, { baseURL: server.baseURL, tasks: 5, methods }), ...args);
    const spread = await runJson(
      writeSumTeam(queued, { baseURL: server.baseURL, tasks: 5, methods }),
      ...args,
      '--workers',
      '1',
      '--nats',
      natsUrl,
    );
    expect(spread.status).toBe('completed');
    expect({ ...spread, store: '' }).toEqual({ ...alone, store: '' });
    const a = openStore({ path: join(single, 'repute.db'), readonly: true });
    const b = openStore({ path: join(queued, 'repute.db'), readonly: true });
    const expected = stored(a, runId, methods);
    // 5 tasks × 3 methods; 4 agents × (propose + revise) per task = 120 calls.
    expect(expected.results.flat()).toHaveLength(15);
    expect(expected.calls).toBe(120);
    expect(stored(b, runId, methods)).toEqual(expected);
    a.close();
    b.close();
    // The run is over: its queue consumer (created by the worker) was deleted, not left on the server.
    expect(await queueConsumer(runId)).toBeUndefined();
    expect(await queueDepth(natsUrl, runId)).toBeUndefined();
  }, 120_000);

  it.each(stores)(
    'on %s: redelivers the tasks of a worker killed with SIGKILL: every task decided once, no evidence lost or doubled',
    async (kind) => {
      // Every call takes 150 ms, so a worker is almost always inside a task when it is killed.
      server = await startOpenAICompatibleServer({
        script: (request) => ({ type: 'reply', text: sumReply(request), delayMs: 150 }),
      });
      const methods = ['majority', 'beta'];
      const tasks = 12;
      const runId = `wk-${randomBytes(4).toString('hex')}`;
      const dir = temporaryDirectory('repute-wkill-');
      const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks, methods });
      const dbPath = kind === 'postgres' ? newPostgresStoreUrl() : join(dir, 'repute.db');
      const queueFlags = ['--nats', natsUrl, '--ack-wait', '1500', '--reputation', 'fresh', '--store', dbPath];
      // The coordinator starts no local worker; the test starts three and kills one of them.
      const coordinator = startCoordinator([team, '--run-id', runId, '--workers', '0', ...queueFlags]);
      const workers = [0, 1, 2].map(() => startWorker(team, runId, queueFlags));
      let killedAt = -1;
      for (let attempt = 0; attempt < 600 && killedAt < 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        try {
          const store = openStore({ path: dbPath, readonly: true });
          const done = store.taskResults(runId).length;
          store.close();
          if (done >= 3) {
            workers[0]!.kill('SIGKILL');
            killedAt = done;
          }
        } catch {
          // Not created yet.
        }
      }
      expect(killedAt).toBeGreaterThanOrEqual(3);
      // What a crash leaves behind expires: the queue consumer carries the 1-hour inactive threshold
      // (3,600,000 ms = 3.6e12 ns), so it goes once no worker pulls from it for that long.
      expect((await queueConsumer(runId))?.config.inactive_threshold).toBe(3_600_000 * 1_000_000);
      // A replacement worker joins, as a supervisor would restart it.
      startWorker(team, runId, queueFlags);
      const summary = await coordinator;
      expect(summary.status).toBe('completed');
      expect(summary.methods.majority?.done).toBe(tasks);
      expect(summary.methods.beta?.done).toBe(tasks);
      const store = openStore({ path: dbPath, readonly: true });
      for (const method of methods) {
        const ids = store.taskResults(runId, method).map((record) => record.taskId);
        expect([...ids].sort()).toEqual(Array.from({ length: tasks }, (_, index) => `t${index + 1}`).sort());
        expect(store.taskResults(runId, method).map((record) => record.position)).toEqual(
          Array.from({ length: tasks }, (_, index) => index),
        );
      }
      // Beta with consensus feedback: each participant of a task gets one observation, positive when
      // its final answer is the decision, and the default Beta forgets with λ = 0.9 (each observation
      // first multiplies both counts by 0.9). Here every agent gets the same outcome in every task
      // (`weak` is always off by one), so after n observations its count is 1 + 0.9 + ... + 0.9^(n-1)
      // = (1 - 0.9^n) / 0.1 in any order: 12 tasks give 7.17570463519. One lost update gives n = 11
      // (6.86189404), one doubled n = 13 (7.45813417). n is counted from the stored records.
      const observations: Record<string, { positive: number; negative: number }> = {};
      for (const { result } of store.taskResults<{
        answer: string;
        participants: string[];
        answers: Record<string, string>;
      }>(runId, 'beta')) {
        for (const agent of result.participants) {
          observations[agent] ??= { positive: 0, negative: 0 };
          if (result.answers[agent] === result.answer) observations[agent].positive++;
          else observations[agent].negative++;
        }
      }
      expect(observations.weak).toEqual({ positive: 0, negative: tasks });
      expect(observations.alpha).toEqual({ positive: tasks, negative: 0 });
      const forgetting = (n: number) => (1 - 0.9 ** n) / 0.1;
      for (const scope of [{ runId }, { team: 'sum-team' }]) {
        const counts = betaCounts(store.loadReputation({ scope, name: 'beta' }));
        expect(Object.keys(counts).sort()).toEqual(Object.keys(observations).sort());
        for (const [agent, { positive, negative }] of Object.entries(observations)) {
          expect(counts[agent]!.positive).toBeCloseTo(forgetting(positive), 12);
          expect(counts[agent]!.negative).toBeCloseTo(forgetting(negative), 12);
        }
      }
      store.close();
    },
    180_000,
  );
});

describe('repute run --workers, before any queue', () => {
  it('refuses a protocol whose state workers cannot share (DRF) with exit 2, before creating the store', async () => {
    const dir = temporaryDirectory('repute-wdrf-');
    const team = writeToyTeam(dir, {
      name: 'drf-team',
      baseURL: 'http://127.0.0.1:9/v1',
      tasks: toyTasks(2),
      protocol: 'type: drf, k: 5, threshold: 0.5',
      agents: [...toyHonest, ...toyColluders],
    });
    const result = await runToExit([team, '--workers', '2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('protocol drf carries state from task to task that workers cannot share');
    expect(existsSync(join(dir, 'repute.db'))).toBe(false);
  }, 60_000);
});

/** Per agent evidence counts of a saved Beta state. */
function betaCounts(snapshot: unknown): Record<string, { positive: number; negative: number }> {
  const { beliefs } = (
    snapshot as {
      state: { beliefs: Array<{ observer: string | null; subject: string; positive: number; negative: number }> };
    }
  ).state;
  return Object.fromEntries(
    beliefs
      .filter((belief) => belief.observer === null)
      .map((belief) => [belief.subject, { positive: belief.positive, negative: belief.negative }]),
  );
}
