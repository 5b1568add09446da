// The PostgreSQL store's overhead per decision against SQLite, measured in one run: each round
// records 100 decisions on a SQLite file and 100 on a PostgreSQL database of its own (created and
// dropped here), alternating, so both see the same machine load; the ratio is per round, and the
// median over rounds is printed. A decision writes what a debate task writes: its result, 5 trace
// events, 3 ledger entries, the run and team snapshots and one shared-reputation event.
// Run: npm run bench:scale   (REPUTE_BENCH_POSTGRES overrides postgres://root@127.0.0.1:5432/postgres)
// Then worker throughput: `repute run --workers N` (N = 1, 2, 3, one after another, each with its own
// run id) on the same PostgreSQL database, against a local OpenAI-compatible stub that answers every
// call after 200 ms; printed as tasks per second and as ratios to one worker. Needs NATS JetStream
// at REPUTE_BENCH_NATS (default nats://127.0.0.1:4222).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectPostgres } from '../src/store/_postgres-connection.js';
import { openStore, type Store } from '../src/store/store.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startOpenAICompatibleServer } from '../src/testing/openai-compatible-server.js';
import { sumReply, writeSumTeam } from '../src/testing/_test-sum-team.js';
import { median } from './_median.js';

const serverUrl = process.env.REPUTE_BENCH_POSTGRES ?? 'postgres://root@127.0.0.1:5432/postgres';
const natsUrl = process.env.REPUTE_BENCH_NATS ?? 'nats://127.0.0.1:4222';
const WORKER_TASKS = 24;
const ROUNDS = 5;
const PER_ROUND = 100;

function recordDecisions(store: Store, round: number): number {
  const snapshot = { schemaVersion: 1 as const, model: 'beta', agents: ['a1', 'a2', 'a3'], state: { round } };
  const started = performance.now();
  for (let index = 0; index < PER_ROUND; index++) {
    const taskId = `t${round}-${index}`;
    store.recordTaskResult({
      runId: 'bench',
      method: 'minirep',
      taskId,
      result: { answer: '4', correct: true, support: { '4': 0.8, '5': 0.2 } },
      events: [
        { type: 'task', taskId },
        ...['a1', 'a2', 'a3'].map((agentId) => ({ type: 'proposal' as const, taskId, round: 0, agentId, answer: '4' })),
        { type: 'vote', taskId, answer: '4', support: { '4': 1 }, reasons: [] },
      ],
      usage: ['a1', 'a2', 'a3'].map((agentId) => ({
        runId: 'bench',
        agentId,
        taskId,
        inputTokens: 800,
        outputTokens: 60,
        cost: 0.0004,
        cached: false,
      })),
      reputation: [
        { scope: { runId: 'bench' }, name: 'minirep', snapshot },
        { scope: { team: 'bench-team' }, name: 'minirep', snapshot },
      ],
      reputationEvents: [
        {
          team: 'bench-team',
          name: 'minirep',
          key: `bench/${taskId}`,
          evidence: [{ type: 'outcome', taskId, subject: 'a1', success: 1 }],
          readVersion: index,
        },
      ],
    });
  }
  return (performance.now() - started) / PER_ROUND;
}

const admin = connectPostgres({ url: serverUrl, label: serverUrl, timeoutMs: 60_000 });
const database = `repute_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
admin.query(`CREATE DATABASE ${database}`);
const folder = mkdtempSync(join(tmpdir(), 'repute-bench-scale-'));
try {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const sqlite = openStore({ path: join(folder, 'bench.db') });
  const postgres = openStore({ path: url.toString() });
  for (const store of [sqlite, postgres])
    store.createRun({ id: 'bench', kind: 'bench', team: 'bench-team', config: null });
  // Warm-up round (JIT, prepared statements), not counted.
  recordDecisions(sqlite, -1);
  recordDecisions(postgres, -1);
  const rows: Array<{ sqlite: number; postgres: number }> = [];
  for (let round = 0; round < ROUNDS; round++)
    rows.push({ sqlite: recordDecisions(sqlite, round), postgres: recordDecisions(postgres, round) });
  sqlite.close();
  postgres.close();
  for (const [index, row] of rows.entries())
    console.log(
      `round ${index + 1}: sqlite ${row.sqlite.toFixed(2)} ms/decision, postgres ${row.postgres.toFixed(2)} ms/decision, ratio ${(row.postgres / row.sqlite).toFixed(1)}x`,
    );
  const sqliteMedian = median(rows.map((row) => row.sqlite));
  const postgresMedian = median(rows.map((row) => row.postgres));
  console.log(
    `median over ${ROUNDS} rounds of ${PER_ROUND} decisions: sqlite ${sqliteMedian.toFixed(2)} ms, postgres ${postgresMedian.toFixed(2)} ms; postgres overhead ${(postgresMedian - sqliteMedian).toFixed(2)} ms/decision, ratio ${median(rows.map((row) => row.postgres / row.sqlite)).toFixed(1)}x`,
  );
  await benchWorkers(url.toString());
} finally {
  admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  admin.close();
  rmSync(folder, { recursive: true, force: true });
}

/**
 * Runs WORKER_TASKS sum tasks (method majority: 4 agents propose, then revise, each call 200 ms) with
 * 1, 2 and 3 workers; throughput is measured from the first to the last stored result (process start
 * excluded), and the whole command's wall time is printed beside it.
 */
async function benchWorkers(storeUrl: string): Promise<void> {
  const server = await startOpenAICompatibleServer({
    script: (request) => ({ type: 'reply', text: sumReply(request), delayMs: 200 }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'repute-bench-workers-'));
  try {
    const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks: WORKER_TASKS, methods: ['majority'] });
    const rows: Array<{ workers: number; perSecond: number; wallSeconds: number }> = [];
    for (const workers of [1, 2, 3]) {
      const runId = `bench-w${workers}-${randomBytes(4).toString('hex')}`;
      const started = performance.now();
      await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/run-cli.ts',
          'run',
          team,
          '--run-id',
          runId,
          '--store',
          storeUrl,
          '--workers',
          String(workers),
          '--nats',
          natsUrl,
          '--json',
        ],
        { cwd: join(import.meta.dirname, '..') },
      );
      const wallSeconds = (performance.now() - started) / 1000;
      const store = openStore({ path: storeUrl });
      const times = store.taskResults(runId, 'majority').map((record) => record.createdAt);
      store.close();
      if (times.length !== WORKER_TASKS)
        throw new Error(`run ${runId} stored ${times.length} of ${WORKER_TASKS} tasks`);
      // n results span n - 1 intervals between the first and the last.
      const perSecond = ((times.length - 1) * 1000) / (Math.max(...times) - Math.min(...times));
      rows.push({ workers, perSecond, wallSeconds });
    }
    for (const row of rows)
      console.log(
        `workers ${row.workers}: ${row.perSecond.toFixed(2)} tasks/s (${WORKER_TASKS} tasks, 8 calls of 200 ms each), ${(row.perSecond / rows[0]!.perSecond).toFixed(2)}x one worker; command wall time ${row.wallSeconds.toFixed(1)} s`,
      );
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
