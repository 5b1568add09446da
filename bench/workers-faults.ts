// Fault run of workers: `repute run --workers 0` publishes TASKS sum tasks × 2 methods (majority,
// beta) to the NATS JetStream queue of a PostgreSQL store (a database of its own, dropped after);
// three `repute worker` processes decide them while a loop SIGKILLs one of them every KILL_EVERY_MS
// (picked by a seeded draw) and starts a replacement. At the end it checks, from the store alone:
// every task has exactly one result per method with gap-free positions, and the run's and the
// team's Beta state equal a fresh count of the stored decisions' evidence (each agent gets one
// observation per task, λ = 0.9 forgetting: (1 - 0.9^n) / 0.1), so no update is lost or doubled.
// Run: npm run faults:workers -- [TASKS]   (default 300; REPUTE_BENCH_POSTGRES, REPUTE_BENCH_NATS)
// The acceptance run of issue 39 also kills serve replicas; those are not part of this script.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../src/core/rng.js';
import { connectPostgres } from '../src/store/_postgres-connection.js';
import { openStore } from '../src/store/store.js';
import { startOpenAICompatibleServer } from '../src/testing/openai-compatible-server.js';
import { sumReply, writeSumTeam } from '../src/testing/_test-sum-team.js';

const TASKS = Number(process.argv[2] ?? 300);
const KILL_EVERY_MS = 4000;
const serverUrl = process.env.REPUTE_BENCH_POSTGRES ?? 'postgres://root@127.0.0.1:5432/postgres';
const natsUrl = process.env.REPUTE_BENCH_NATS ?? 'nats://127.0.0.1:4222';
const root = join(import.meta.dirname, '..');

function start(args: readonly string[], stdout: 'pipe' | 'ignore' = 'ignore'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', ...args], {
    cwd: root,
    stdio: ['ignore', stdout, 'pipe'],
  });
}

const admin = connectPostgres({ url: serverUrl, label: serverUrl, timeoutMs: 60_000 });
const database = `repute_faults_${process.pid}_${randomBytes(4).toString('hex')}`;
admin.query(`CREATE DATABASE ${database}`);
const storeUrl = new URL(serverUrl);
storeUrl.pathname = `/${database}`;
const server = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
const dir = mkdtempSync(join(tmpdir(), 'repute-faults-workers-'));
const workers: ChildProcess[] = [];
let skippedDeliveries = 0;
try {
  const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks: TASKS, methods: ['majority', 'beta'] });
  const runId = `faults-${randomBytes(4).toString('hex')}`;
  const flags = [
    '--run-id',
    runId,
    '--store',
    storeUrl.toString(),
    '--nats',
    natsUrl,
    '--ack-wait',
    '5000',
    '--reputation',
    'fresh',
  ];
  const startedAt = performance.now();
  const coordinator = start(['run', team, ...flags, '--workers', '0', '--json'], 'pipe');
  let summary = '';
  coordinator.stdout?.on('data', (chunk) => {
    summary += chunk;
  });
  coordinator.stderr?.resume();
  const finished = new Promise<number | null>((resolve) => coordinator.on('exit', (code) => resolve(code)));
  const startWorker = () => {
    const child = start(['worker', team, ...flags]);
    child.stderr?.on('data', (chunk: Buffer) => {
      const match = /skipped (\d+)/.exec(chunk.toString());
      if (match) skippedDeliveries += Number(match[1]);
    });
    workers.push(child);
    return child;
  };
  const live = [startWorker(), startWorker(), startWorker()];
  const rng = createRng(39);
  let kills = 0;
  let done = false;
  void finished.then(() => {
    done = true;
  });
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
    if (done) break;
    const index = Math.floor(rng() * live.length);
    live[index]?.kill('SIGKILL');
    kills++;
    live[index] = startWorker();
  }
  const code = await finished;
  const seconds = (performance.now() - startedAt) / 1000;
  for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  if (code !== 0) throw new Error(`repute run exited ${code}`);
  const store = openStore({ path: storeUrl.toString() });
  const problems: string[] = [];
  for (const method of ['majority', 'beta']) {
    const records = store.taskResults(runId, method);
    const ids = new Set(records.map((record) => record.taskId));
    if (records.length !== TASKS || ids.size !== TASKS)
      problems.push(`${method}: ${records.length} results, ${ids.size} distinct, of ${TASKS}`);
    if (records.some((record, index) => record.position !== index))
      problems.push(`${method}: positions not 0..${TASKS - 1}`);
  }
  const observations = new Map<string, { positive: number; negative: number }>();
  for (const { result } of store.taskResults<{
    answer: string;
    participants: string[];
    answers: Record<string, string>;
  }>(runId, 'beta')) {
    for (const agent of result.participants) {
      const counts = observations.get(agent) ?? { positive: 0, negative: 0 };
      if (result.answers[agent] === result.answer) counts.positive++;
      else counts.negative++;
      observations.set(agent, counts);
    }
  }
  // Each agent's outcomes are all of one kind here (weak always off by one), so the fold's order does not matter.
  const fold = (n: number) => (1 - 0.9 ** n) / 0.1;
  let lost = 0;
  let doubled = 0;
  for (const scope of [{ runId }, { team: 'sum-team' }]) {
    const snapshot = store.loadReputation({ scope, name: 'beta' }) as unknown as {
      state: { beliefs: Array<{ observer: string | null; subject: string; positive: number; negative: number }> };
    };
    for (const belief of snapshot.state.beliefs.filter((entry) => entry.observer === null)) {
      const expected = observations.get(belief.subject) ?? { positive: 0, negative: 0 };
      for (const side of ['positive', 'negative'] as const) {
        const want = fold(expected[side]);
        if (Math.abs(belief[side] - want) > 1e-9) {
          problems.push(`${JSON.stringify(scope)} ${belief.subject} ${side}: ${belief[side]} != fresh fold ${want}`);
          if (belief[side] < want) lost++;
          else doubled++;
        }
      }
    }
  }
  store.close();
  const parsed = JSON.parse(summary) as { status: string };
  console.log(
    `${TASKS} tasks x 2 methods = ${2 * TASKS} decisions on 3 workers in ${seconds.toFixed(1)} s, ${kills} workers SIGKILLed and replaced; run ${parsed.status}`,
  );
  console.log(
    `skipped deliveries reported by workers that exited normally: ${skippedDeliveries}; reputation counts off the fresh fold: ${lost} low, ${doubled} high`,
  );
  console.log(
    problems.length === 0
      ? 'every task decided exactly once; final reputation equals a fresh fold of the decisions'
      : `PROBLEMS:\n${problems.join('\n')}`,
  );
  if (problems.length > 0) process.exitCode = 1;
} finally {
  for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  admin.close();
}
