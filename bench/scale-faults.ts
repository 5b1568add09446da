// Acceptance fault run of issue 39: one team on a PostgreSQL database of its own (created here,
// dropped after), 3 `repute serve` replicas (real child processes, each on its own port) answering
// chat requests on the OpenAI-compatible team endpoint, each answered request then graded once
// (POST /v1/feedback), and 3 `repute worker` processes deciding the tasks a `repute run --workers 0`
// coordinator published to NATS JetStream, all against one local stub LLM endpoint. Half of the
// DECISIONS are run tasks, half served requests (each with its feedback update). While the load
// runs, a loop SIGKILLs the longest-running worker and a replica (a seeded draw, once the last
// replacement serves) every KILL_EVERY ms (± 50%, seeded) and starts a replacement of each (the
// replica on the same port). A client whose request or feedback failed because its replica died
// sends it again to the next replica. Checks at the end, from the store:
//   1. every run task has exactly one result (none lost, none doubled), positions gap-free;
//   2. every answered request's feedback is stored exactly once (one `feedback` event per
//      decision the client got, no other); decisions whose answer was lost with a killed replica
//      ("orphans", stored but never seen by a client) are counted and get no feedback;
//   3. the shared log (reputation_events of the team's Beta): seq gap-free, every event's
//      readVersion below its seq, exactly one event per run task, per distinct served request and
//      per feedback, nothing else; the fold the processes left equals a fresh fold of the log up
//      to its seq, and after one more fold the stored fold, the team's snapshot and current() equal
//      a fresh fold of the whole log;
//   4. a second method: the team's snapshot against the updates rebuilt from the stored decisions
//      and the grades the clients got (one consensus outcome per agent per run task and per
//      distinct served request, one outcome per graded agent per grade); every agent's outcomes
//      are of one kind, so this fold does not depend on commit order, and its evidence counts per
//      agent give lost and duplicated updates exactly (Beta's counts saturate with λ = 0.9).
// Each chat request carries an `Idempotency-Key` (one per logical request, reused by its retries:
// `scale-faults-<seed>-<index>`), so a retry whose first attempt had been decided before its
// replica died gets that decision back (`Idempotent-Replayed: true`) and stores none of its own;
// the run fails if any request has two decisions or any decision is an orphan, and checks that
// every key's stored answer is the one its client got. Counted per fault case (a request's first
// failed attempt: none, connection, HTTP 5xx): requests answered, retries, replayed answers,
// duplicated decisions, orphans and decisions without new evidence (which append no log event). `--no-idempotency-key` sends no key (the clients of the runs
// before the header): a retry carries the same conversation, and the endpoint counts an agent's
// evidence once per distinct request (its evidence keys in the store), so a retry whose first
// attempt had been decided stores a second decision (the first an orphan) but no second update;
// that mode reports duplicates and orphans without failing on them. Feedback is idempotent per
// decision id (the first grade is kept).
// Before the load it runs the stale-lease check of the store tests (a fold holder paused with
// SIGSTOP past its lease writes nothing once its fence is taken; `--no-sigstop` skips it).
// Run: nice -n 10 npm run faults:scale -- [DECISIONS] [--kill-every MS] [--concurrency N] [--seed N]
//        [--no-idempotency-key] [--no-sigstop]
//      (DECISIONS default 10000; REPUTE_BENCH_POSTGRES, REPUTE_BENCH_NATS override the services)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Evidence } from '../src/core/reputation-model.js';
import { createRng } from '../src/core/rng.js';
import { createReputationModel } from '../src/reputation/registry.js';
import { connectPostgres } from '../src/store/_postgres-connection.js';
import { createSharedReputation, foldReputation } from '../src/store/shared-reputation.js';
import { openStore, type Store } from '../src/store/store.js';
import { idempotencyStoreKey } from '../src/server/team-service.js';
import { startOpenAICompatibleServer } from '../src/testing/openai-compatible-server.js';
import {
  countServedFaults,
  type ServedAttempt,
  type ServedFaultCounts,
  servedFaultCases,
  servedTasksWithEvidence,
} from '../src/testing/_test-served-faults.js';
import { sumReply, writeSumTeam } from '../src/testing/_test-sum-team.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'kill-every': { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '6' },
    'ack-wait': { type: 'string', default: '8000' },
    'no-sigstop': { type: 'boolean', default: false },
    'no-idempotency-key': { type: 'boolean', default: false },
    seed: { type: 'string', default: '39' },
  },
});
const IDEMPOTENCY_KEYS = !flags['no-idempotency-key'];
const SEED = Number(flags.seed);
const DECISIONS = Number(positionals[0] ?? 10_000);
const KILL_EVERY_MS = Number(flags['kill-every']);
const CONCURRENCY = Number(flags.concurrency);
for (const [name, value, min] of [
  ['DECISIONS', DECISIONS, 2],
  ['--kill-every', KILL_EVERY_MS, 100],
  ['--concurrency', CONCURRENCY, 1],
  ['--seed', SEED, 0],
] as const)
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be an integer >= ${min}, got ${String(value)}; e.g. npm run faults:scale -- 200`);
const TASKS = Math.floor(DECISIONS / 2);
const REQUESTS = DECISIONS - TASKS;
const REPLICAS = 3;
const WORKERS = 3;
const TEAM = 'sum-team';
const METHOD = 'beta';
const AGENTS = ['alpha', 'beta-1', 'beta-2', 'weak'];
const serverUrl = process.env.REPUTE_BENCH_POSTGRES ?? 'postgres://root@127.0.0.1:5432/postgres';
const natsUrl = process.env.REPUTE_BENCH_NATS ?? 'nats://127.0.0.1:4222';
const root = join(import.meta.dirname, '..');
const logPath = join(tmpdir(), `repute-scale-faults-${process.pid}.log`);
const log = createWriteStream(logPath);

const startedAt = performance.now();
const elapsed = () => ((performance.now() - startedAt) / 1000).toFixed(0);
const say = (line: string) => console.log(`[${elapsed()} s] ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the CLI with `args`; its stderr (and stdout unless piped) goes to the log file. */
function startCli(label: string, args: readonly string[], stdout: 'pipe' | 'log' = 'log'): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tag = `${label} ${child.pid}`;
  child.stderr?.on('data', (chunk: Buffer) => log.write(`${tag}: ${chunk}`));
  if (stdout === 'log') child.stdout?.on('data', (chunk: Buffer) => log.write(`${tag} stdout: ${chunk}`));
  return child;
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** A free TCP port on the loopback interface (the replica of a slot is restarted on the same one). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** One served request as the client saw it in the end. */
interface Served {
  readonly prompt: string;
  readonly reference: string;
  /** Its `Idempotency-Key` (sent on every attempt), unless run with `--no-idempotency-key`. */
  readonly key: string | undefined;
  /** Every attempt of the chat request, in order. */
  readonly attempts: ServedAttempt[];
  taskId?: string;
  answers?: Record<string, string | null>;
  decided?: string | null;
  repeated?: string[];
  successes?: Record<string, number>;
  feedbackApplied?: boolean;
}

const admin = connectPostgres({ url: serverUrl, label: serverUrl, timeoutMs: 60_000 });
const database = `repute_scale_faults_${process.pid}_${randomBytes(4).toString('hex')}`;
const storeUrl = new URL(serverUrl);
storeUrl.pathname = `/${database}`;
const problems: string[] = [];
// Set on a client's fatal error and on the way out: the other clients stop too.
let stopClients = false;
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'repute-scale-faults-'));
const llm = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
try {
  say(
    `${DECISIONS} decisions: ${TASKS} run tasks on ${WORKERS} workers + ${REQUESTS} served requests (each graded once) on ${REPLICAS} replicas, ${IDEMPOTENCY_KEYS ? `each with an Idempotency-Key (seed ${SEED})` : 'with no Idempotency-Key (--no-idempotency-key)'}; kill a worker and a replica every ${KILL_EVERY_MS} ms; child logs in ${logPath}`,
  );
  if (!flags['no-sigstop']) {
    // The stale-lease case is a test of the store already; run it rather than copying it.
    say('stale lease check: npx vitest run src/store/postgres-store.test.ts -t SIGSTOP');
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('npx', ['vitest', 'run', 'src/store/postgres-store.test.ts', '-t', 'SIGSTOP'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REPUTE_REQUIRE_POSTGRES: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
      });
      let output = '';
      child.stdout?.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr?.on('data', (chunk) => {
        output += chunk;
      });
      child.on('exit', (exitCode) => {
        log.write(`vitest SIGSTOP:\n${output}\n`);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: strips colour codes
        const passed = exitCode === 0 && /Tests\s+1 passed/.test(output.replace(/\u001b\[[0-9;]*m/g, ''));
        say(
          passed
            ? 'stale lease check: passed (the paused holder commit was fenced, the fold row is the new holder)'
            : 'stale lease check: FAILED',
        );
        resolve(passed ? exitCode : 1);
      });
    });
    if (code !== 0) problems.push('stale lease check (SIGSTOP) did not pass; see the log');
  }

  admin.query(`CREATE DATABASE ${database}`);
  const team = writeSumTeam(dir, {
    baseURL: llm.baseURL,
    tasks: TASKS,
    methods: [METHOD],
    rounds: 0,
    // A call that meets a keep-alive socket the stub just closed is retried, as in production (2
    // retries left 2 of 3,000 run tasks failed in a 6,000 run; a rerun would decide them).
    maxRetries: 5,
    extra: `serve: { method: ${METHOD}, kind: number }\n`,
  });
  const runId = `scale-faults-${randomBytes(4).toString('hex')}`;
  const storeFlags = ['--store', storeUrl.toString()];
  const runFlags = [
    '--run-id',
    runId,
    ...storeFlags,
    '--nats',
    natsUrl,
    '--ack-wait',
    String(Number(flags['ack-wait'])),
  ];
  // The schema once, before the processes race to it (they would be safe, this is only quicker).
  openStore({ path: storeUrl.toString() }).close();

  // Serve replicas, each on a port of its own; a replacement takes its slot's port.
  const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
  const replicas: Array<{ child: ChildProcess; url: string; ready: boolean }> = [];
  const startReplica = (slot: number) => {
    const child = startCli(
      `serve#${slot}`,
      ['serve', team, ...storeFlags, '--port', String(ports[slot]), '--no-access-log'],
      'pipe',
    );
    children.push(child);
    const entry = { child, url: `http://127.0.0.1:${ports[slot]}`, ready: false };
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      if (/^http:\/\/\S+$/m.test(stdout)) entry.ready = true;
    });
    replicas[slot] = entry;
  };
  for (let slot = 0; slot < REPLICAS; slot++) startReplica(slot);

  // The run: its coordinator publishes the tasks; workers decide them.
  const coordinator = startCli('run', ['run', team, ...runFlags, '--workers', '0', '--json'], 'pipe');
  children.push(coordinator);
  let summary = '';
  coordinator.stdout?.on('data', (chunk) => {
    summary += chunk;
  });
  const runExit = new Promise<number | null>((resolve) => coordinator.on('exit', (code) => resolve(code)));
  let runDone = false;
  void runExit.then(() => {
    runDone = true;
  });
  let skippedDeliveries = 0;
  const workers: Array<{ child: ChildProcess; startedAt: number }> = [];
  const startWorker = (slot: number) => {
    const child = startCli(`worker#${slot}`, ['worker', team, ...runFlags]);
    child.stderr?.on('data', (chunk: Buffer) => {
      const match = /skipped (\d+)/.exec(chunk.toString());
      if (match) skippedDeliveries += Number(match[1]);
    });
    children.push(child);
    workers[slot] = { child, startedAt: performance.now() };
  };
  for (let slot = 0; slot < WORKERS; slot++) startWorker(slot);

  // The clients: CONCURRENCY loops, each taking the next request, sending it to a replica (round
  // robin), and its feedback after it; a failure (a dead replica) moves to the next replica.
  const served: Served[] = Array.from({ length: REQUESTS }, (_, index) => {
    // Small numbers: the number kind's relative tolerance (1e-6) would grade weak's n + 1 right near 10⁶.
    const left = 1_000 + index;
    return {
      prompt: `What is ${left} + 7?`,
      reference: String(left + 7),
      key: IDEMPOTENCY_KEYS ? idempotencyKeyOf(SEED, index) : undefined,
      attempts: [],
    };
  });
  let nextRequest = 0;
  let answered = 0;
  let graded = 0;
  let retries = 0;
  let cursor = 0;
  const retryReasons = new Map<string, number>();
  /**
   * POSTs `body` to `path` on the next live replica until one answers 2xx; returns the body and
   * whether it was a replay. Each attempt's outcome goes to `attempts` when given.
   */
  async function send(
    path: string,
    body: unknown,
    { key, attempts }: { key?: string | undefined; attempts?: ServedAttempt[] } = {},
  ): Promise<{ body: unknown; replayed: boolean }> {
    for (let attempt = 1; ; attempt++) {
      if (stopClients) throw new Error('stopped');
      const slot = cursor++ % REPLICAS;
      const replica = replicas[slot];
      if (replica === undefined || !replica.ready || !alive(replica.child)) {
        await sleep(20);
        continue;
      }
      let reason: string;
      try {
        const response = await fetch(`${replica.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(120_000),
        });
        const text = await response.text();
        if (response.ok)
          return { body: JSON.parse(text), replayed: response.headers.get('idempotent-replayed') === 'true' };
        if (response.status < 500)
          throw new Error(`${path} answered ${response.status} (not retried): ${text.slice(0, 300)}`);
        reason = `HTTP ${response.status}`;
        log.write(`client: ${path} on ${replica.url}: ${response.status} ${text.slice(0, 300)}\n`);
      } catch (error) {
        if (error instanceof Error && error.message.includes('not retried')) throw error;
        const cause = (error as { cause?: { code?: string } }).cause;
        reason = cause?.code ?? (error instanceof Error ? error.name : String(error));
      }
      retries++;
      attempts?.push({ kind: 'failed', reason });
      log.write(`client: ${path} attempt ${attempt} on replica ${slot} (pid ${replica.child.pid}) failed: ${reason}\n`);
      retryReasons.set(reason, (retryReasons.get(reason) ?? 0) + 1);
      if (attempt >= 100) throw new Error(`${path}: gave up after ${attempt} attempts (last: ${reason})`);
      await sleep(100);
    }
  }
  async function client(): Promise<void> {
    for (;;) {
      const index = nextRequest++;
      const request = served[index];
      if (request === undefined) return;
      const sent = await send(
        '/v1/chat/completions',
        { model: `team:${TEAM}`, messages: [{ role: 'user', content: request.prompt }] },
        { key: request.key, attempts: request.attempts },
      );
      const completion = sent.body as {
        repute: {
          taskId: string;
          decision: { answer: string | null };
          weights: Array<{ agentId: string; answer: string | null }>;
          repeated: string[];
        };
      };
      request.taskId = completion.repute.taskId;
      request.attempts.push({ kind: 'answered', taskId: completion.repute.taskId, replayed: sent.replayed });
      request.decided = completion.repute.decision.answer;
      request.answers = Object.fromEntries(completion.repute.weights.map((weight) => [weight.agentId, weight.answer]));
      request.repeated = completion.repute.repeated;
      answered++;
      const grade = (await send('/v1/feedback', { taskId: request.taskId, reference: request.reference })).body as {
        applied: boolean;
        successes: Record<string, number>;
      };
      request.successes = grade.successes;
      request.feedbackApplied = grade.applied;
      graded++;
    }
  }

  // Wait for the replicas' first start before the clients go (restarts are waited for by `send`).
  while (replicas.some((replica) => !replica.ready)) {
    if (replicas.some((replica) => !alive(replica.child))) throw new Error(`a serve replica exited; see ${logPath}`);
    await sleep(200);
  }
  say(`3 replicas up on ports ${ports.join(', ')}; load starts`);
  const loadStarted = performance.now();
  let clientsDone = false;
  let clientError: unknown;
  const clients = Promise.all(Array.from({ length: CONCURRENCY }, () => client())).then(
    () => {
      clientsDone = true;
    },
    (error: unknown) => {
      clientError = error;
      stopClients = true;
      clientsDone = true;
    },
  );

  let workerKills = 0;
  let replicaKills = 0;
  let loadEnded = 0;
  const markEnd = () => {
    loadEnded = performance.now();
  };
  // Progress every 10 s, read from the store and the clients.
  const monitor = connectPostgres({ url: storeUrl.toString(), label: 'monitor', timeoutMs: 60_000 });
  const decidedTasks = () => {
    try {
      return Number(monitor.query('SELECT count(*) AS n FROM task_results WHERE run_id = $1', [runId]).rows[0]?.n ?? 0);
    } catch {
      return 0;
    }
  };
  const progress = setInterval(() => {
    say(
      `run tasks decided ${decidedTasks()}/${TASKS}; requests answered ${answered}/${REQUESTS}, graded ${graded}; kills ${workerKills} workers + ${replicaKills} replicas (${replicaKillsSkipped} replica kills skipped: a replacement not up yet); client retries ${retries}; load ${loadavg()[0]?.toFixed(1)}`,
    );
  }, 10_000);

  // The fault loop: while load runs, SIGKILL a worker (the longest running) and a replica (a seeded
  // draw, only once the last replacement is serving, so clients always have a replica), start
  // replacements; the interval is KILL_EVERY ms with a seeded jitter of ±50%.
  const rng = createRng(39);
  let replicaKillsSkipped = 0;
  const bothDone = Promise.all([clients.then(markEnd), runExit.then(markEnd)]);
  while (!(runDone && clientsDone)) {
    await Promise.race([sleep(KILL_EVERY_MS * (0.5 + rng())), bothDone]);
    if (runDone && clientsDone) break;
    if (!runDone) {
      const oldest = workers.reduce(
        (best, entry, slot) => (entry.startedAt < (workers[best]?.startedAt ?? Number.POSITIVE_INFINITY) ? slot : best),
        0,
      );
      workers[oldest]?.child.kill('SIGKILL');
      workerKills++;
      startWorker(oldest);
    }
    if (!clientsDone) {
      const slot = Math.floor(rng() * REPLICAS);
      const replica = replicas[slot];
      if (replica === undefined || replicas.some((entry) => !entry.ready)) {
        replicaKillsSkipped++;
        continue;
      }
      replica.ready = false;
      replica.child.kill('SIGKILL');
      await new Promise((resolve) => (alive(replica.child) ? replica.child.once('exit', resolve) : resolve(null)));
      replicaKills++;
      startReplica(slot);
    }
  }
  await clients;
  const code = await runExit;
  clearInterval(progress);
  const loadSeconds = (loadEnded - loadStarted) / 1000;
  say(
    `load done in ${loadSeconds.toFixed(1)} s: run tasks decided ${decidedTasks()}/${TASKS}; requests answered ${answered}/${REQUESTS}, graded ${graded}; kills ${workerKills} workers + ${replicaKills} replicas`,
  );
  monitor.close();
  if (clientError !== undefined) problems.push(`clients stopped: ${String(clientError)}`);
  if (code !== 0) problems.push(`repute run exited ${code}; see ${logPath}`);

  // Stop the rest the normal way (a replica marks its run interrupted).
  await Promise.all(
    children.filter(alive).map(
      (child) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );

  // Checks, from the store.
  const store = openStore({ path: storeUrl.toString() });
  type Decided = { answer: string | null; participants: string[]; answers: { [agent: string]: string | null } };
  // 1. Run tasks: exactly one result each.
  const results = store.taskResults<Decided>(runId, METHOD);
  const resultIds = new Set(results.map((record) => record.taskId));
  const taskLost = TASKS - resultIds.size;
  const taskDoubled = results.length - resultIds.size;
  if (taskLost !== 0 || taskDoubled !== 0)
    problems.push(`run tasks: ${results.length} results, ${resultIds.size} distinct, of ${TASKS}`);
  if (results.some((record, index) => record.position !== index))
    problems.push(`run tasks: positions not 0..${TASKS - 1}`);

  // 2. Served decisions and feedback.
  const serveRuns = store.listRuns({ kind: 'serve', team: TEAM });
  const storedDecisions = new Map<string, Decided>();
  const feedbackEvents = new Map<string, number>();
  for (const run of serveRuns) {
    for (const record of store.taskResults<Decided>(run.id, METHOD)) storedDecisions.set(record.taskId, record.result);
    for (const event of store.events(run.id, { type: 'feedback' }))
      if (event.taskId !== null) feedbackEvents.set(event.taskId, (feedbackEvents.get(event.taskId) ?? 0) + 1);
  }
  const clientIds = new Set(served.flatMap((request) => (request.taskId === undefined ? [] : [request.taskId])));
  const decisionsMissing = [...clientIds].filter((taskId) => !storedDecisions.has(taskId)).length;
  // The served decisions that appended reputation evidence to the log: a decision whose agents had
  // all given evidence on its request before (a retry decided again) appends no event at all. Its
  // grade's event (`.../feedback`, same task id) is not evidence of the decision.
  const serveRunIds = new Set(serveRuns.map((run) => run.id));
  const withEvidence = servedTasksWithEvidence(
    store
      .reputationEvents({ team: TEAM, name: METHOD })
      .map((event) => ({ ...event, evidenceCount: event.evidence.length })),
    serveRunIds,
  );
  // Per fault case: the clients' attempts against the stored decisions, each decision filed under
  // the request it answered (its agents' sum names the request: 1,000 + index + 7).
  const faultReport = countServedFaults({
    requests: served.map((request, index) => ({ request: index, attempts: request.attempts })),
    decisions: [...storedDecisions].map(([taskId, result]) => ({
      taskId,
      request: requestOfDecision(result),
      evidence: withEvidence.has(taskId),
    })),
  });
  const orphans = faultReport.total.orphans;
  // With keys: each key's stored answer is the decision its client got.
  let keyRecordsMatching = 0;
  const keyRecordsWrong: string[] = [];
  if (IDEMPOTENCY_KEYS)
    for (const request of served) {
      if (request.key === undefined || request.taskId === undefined) continue;
      const record = store.getCachedResponse(idempotencyStoreKey(TEAM, request.key)) as
        | { answer?: { taskId?: string } }
        | undefined;
      if (record?.answer?.taskId === request.taskId) keyRecordsMatching++;
      else
        keyRecordsWrong.push(`${request.key}: ${record?.answer?.taskId ?? 'no record'} (client got ${request.taskId})`);
    }
  if (keyRecordsWrong.length > 0)
    problems.push(
      `idempotency: ${keyRecordsWrong.length} keys whose stored answer is not the client's (${keyRecordsWrong.slice(0, 5).join('; ')})`,
    );
  if (IDEMPOTENCY_KEYS && (faultReport.total.duplicated > 0 || faultReport.total.orphans > 0))
    problems.push(
      `idempotency: with an Idempotency-Key on every request, ${faultReport.total.duplicated} duplicated decisions (two or more for one logical request) and ${faultReport.total.orphans} orphans (${faultReport.unattributed} naming no request); both must be 0: a retry must get the first decision back (see the per-case lines above and ${logPath})`,
    );
  const unanswered = REQUESTS - clientIds.size;
  let feedbackLost = 0;
  let feedbackDoubled = 0;
  for (const taskId of clientIds) {
    const count = feedbackEvents.get(taskId) ?? 0;
    if (count === 0) feedbackLost++;
    if (count > 1) feedbackDoubled += count - 1;
  }
  const feedbackStray = [...feedbackEvents.keys()].filter((taskId) => !clientIds.has(taskId)).length;
  if (unanswered !== 0) problems.push(`served requests: ${unanswered} of ${REQUESTS} never answered`);
  if (decisionsMissing !== 0) problems.push(`served requests: ${decisionsMissing} answered decisions not in the store`);
  if (feedbackLost + feedbackDoubled + feedbackStray !== 0)
    problems.push(
      `feedback: ${feedbackLost} lost, ${feedbackDoubled} doubled, ${feedbackStray} on decisions no client got`,
    );
  const retriedDecided = served.filter((request) => (request.repeated?.length ?? 0) > 0).length;
  const feedbackRepeated = served.filter((request) => request.feedbackApplied === false).length;

  // 3. The team's reputation against a fresh fold of every update.
  const batches: Evidence[][] = [];
  for (const { taskId, result } of results)
    batches.push(
      result.participants.map((agent) => ({
        type: 'outcome' as const,
        taskId,
        subject: agent,
        success: result.answer !== null && result.answers[agent] === result.answer ? 1 : 0,
      })),
    );
  for (const request of served) {
    if (request.taskId === undefined || request.answers === undefined) continue;
    const { taskId, answers, decided } = request;
    batches.push(
      AGENTS.map((agent) => ({
        type: 'outcome' as const,
        taskId,
        subject: agent,
        success: decided !== null && answers[agent] === decided ? 1 : 0,
      })),
    );
    batches.push(
      Object.entries(request.successes ?? {}).map(([agent, success]) => ({
        type: 'outcome' as const,
        taskId,
        subject: agent,
        success,
      })),
    );
  }
  // Every agent's outcomes are of one kind here (weak always off by one, the others right), so the
  // fold does not depend on the order in which processes committed; checked, not assumed.
  const kinds = new Map<string, Set<number>>();
  for (const batch of batches)
    for (const item of batch)
      if (item.type === 'outcome') kinds.set(item.subject, (kinds.get(item.subject) ?? new Set()).add(item.success));
  const mixed = [...kinds].filter(([, set]) => set.size > 1).map(([agent]) => agent);
  if (mixed.length > 0) problems.push(`agents with mixed outcomes (order would matter): ${mixed.join(', ')}`);
  const fresh = createReputationModel(METHOD, { agents: AGENTS });
  for (const batch of batches) fresh.observe(batch);
  type BetaState = {
    beliefs: Array<{ observer: string | null; subject: string; positive: number; negative: number }>;
    evidenceCounts: { [agent: string]: number };
  };
  // 4. The shared log; its final fold (as a holder of its own) also brings the team's snapshot up to date.
  const logCheck = await checkLog(store, {
    runId,
    taskIds: Array.from({ length: TASKS }, (_, index) => `t${index + 1}`),
    serveRunIds,
    clientIds,
    requests: REQUESTS,
    decisions: storedDecisions.size,
    withoutEvidence: faultReport.total.withoutEvidence,
  });
  problems.push(...logCheck.problems);
  const want = fresh.snapshot().state as unknown as BetaState;
  const stored = store.loadReputation({ scope: { team: TEAM }, name: METHOD })?.state as unknown as
    | BetaState
    | undefined;
  store.close();
  if (JSON.stringify(stored) !== JSON.stringify(want))
    log.write(`stored team reputation: ${JSON.stringify(stored)}\nfresh fold: ${JSON.stringify(want)}\n`);
  let evidenceLost = 0;
  let evidenceDoubled = 0;
  if (stored === undefined) problems.push(`no stored ${METHOD} reputation of team ${TEAM}`);
  else {
    for (const agent of AGENTS) {
      const difference = (stored.evidenceCounts[agent] ?? 0) - (want.evidenceCounts[agent] ?? 0);
      if (difference < 0) evidenceLost -= difference;
      if (difference > 0) evidenceDoubled += difference;
      if (difference !== 0)
        problems.push(
          `reputation of ${agent}: ${stored.evidenceCounts[agent] ?? 0} outcomes stored, the fresh fold has ${want.evidenceCounts[agent] ?? 0}`,
        );
      const storedBelief = stored.beliefs.find((belief) => belief.observer === null && belief.subject === agent);
      const wantBelief = want.beliefs.find((belief) => belief.observer === null && belief.subject === agent);
      for (const side of ['positive', 'negative'] as const)
        if (Math.abs((storedBelief?.[side] ?? 0) - (wantBelief?.[side] ?? 0)) > 1e-9)
          problems.push(
            `reputation of ${agent}: ${side} ${storedBelief?.[side]} stored, the fresh fold has ${wantBelief?.[side]}`,
          );
    }
  }
  const parsed = (() => {
    try {
      return (JSON.parse(summary) as { status?: string }).status ?? '?';
    } catch {
      return 'no summary';
    }
  })();
  const seconds = (performance.now() - startedAt) / 1000;
  console.log('');
  console.log(
    `scale faults: ${DECISIONS} decisions (${TASKS} run tasks on ${WORKERS} workers, run ${parsed}; ${REQUESTS} served requests on ${REPLICAS} replicas, each graded) in ${loadSeconds.toFixed(1)} s of load (${seconds.toFixed(1)} s in all), ${(DECISIONS / loadSeconds).toFixed(2)} decisions/s; load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `faults: ${workerKills} workers and ${replicaKills} replicas SIGKILLed and restarted (every ${KILL_EVERY_MS} ms ± 50%; ${replicaKillsSkipped} replica kills skipped while a replacement was starting); ${retries} client retries (${[...retryReasons].map(([reason, count]) => `${reason} ${count}`).join(', ') || 'none'}); workers skipped ${skippedDeliveries} redelivered tasks already decided`,
  );
  console.log(`run tasks: ${resultIds.size}/${TASKS} decided, ${taskLost} lost, ${taskDoubled} duplicated`);
  console.log(
    `served: ${clientIds.size}/${REQUESTS} answered, ${storedDecisions.size} decisions stored (${orphans} orphans: decided, answer lost with a killed replica); ${retriedDecided} answers to a retry whose first attempt had been decided (its evidence not counted again)`,
  );
  const countsLine = (counts: ServedFaultCounts) =>
    `${counts.requests} requests, ${counts.answered} answered, ${counts.retries} retries, ${counts.replayed} replayed, ${counts.decisions} decisions, ${counts.duplicated} duplicated, ${counts.orphans} orphans, ${counts.withoutEvidence} without new evidence`;
  console.log(
    `idempotency (${IDEMPOTENCY_KEYS ? `Idempotency-Key on every request, seed ${SEED}` : 'no Idempotency-Key: --no-idempotency-key'}): ${countsLine(faultReport.total)}${faultReport.unattributed > 0 ? ` (${faultReport.unattributed} decisions name no request)` : ''}${IDEMPOTENCY_KEYS ? `; ${keyRecordsMatching}/${clientIds.size} key records hold the answer the client got` : ''}`,
  );
  for (const name of servedFaultCases) console.log(`  fault case ${name}: ${countsLine(faultReport.cases[name])}`);
  console.log(
    `feedback: ${clientIds.size - feedbackLost}/${clientIds.size} counted once, ${feedbackLost} lost, ${feedbackDoubled} duplicated, ${feedbackStray} stray; ${feedbackRepeated} retried posts answered with the first grade`,
  );
  console.log(
    `reputation (team ${TEAM}, ${METHOD}): the team's snapshot vs a fold of the ${batches.length} updates rebuilt from the stored decisions and grades: ${evidenceLost} outcomes lost, ${evidenceDoubled} duplicated`,
  );
  for (const line of logCheck.lines) console.log(line);
  console.log(problems.length === 0 ? 'ALL CHECKS PASSED' : `PROBLEMS:\n${problems.join('\n')}`);
  if (problems.length > 0) process.exitCode = 1;
} finally {
  stopClients = true;
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
  // A failed run keeps its database for a look at what went wrong.
  if (problems.length === 0) admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  else console.log(`database kept for inspection: ${storeUrl.toString()} (drop it with DROP DATABASE ${database})`);
  admin.close();
}
// Nothing of this run is left to wait for (a client stuck on a dead replica must not hold the process).
await new Promise((resolve) => log.end(resolve));
process.exit();

/** What the shared log (reputation_events) says about the run's updates. */
interface LogCheck {
  readonly lines: string[];
  readonly problems: string[];
}

/**
 * Checks the team's shared reputation log: seq gap-free, every decision read a version before its
 * own append, one event per run task, one per distinct served request, one per feedback (none
 * stray); the fold the processes left equals a fresh fold of the log up to its seq; after one more
 * fold (as a holder of its own), the stored fold and the team's snapshot equal a fresh fold of the
 * whole log.
 */
async function checkLog(
  store: Store,
  input: {
    runId: string;
    taskIds: readonly string[];
    serveRunIds: ReadonlySet<string>;
    clientIds: ReadonlySet<string>;
    requests: number;
    /** Stored served decisions. */
    decisions: number;
    /** Stored served decisions that appended no reputation event (counted by countServedFaults). */
    withoutEvidence: number;
  },
): Promise<LogCheck> {
  const lines: string[] = [];
  const problems: string[] = [];
  const key = { team: TEAM, name: METHOD };
  const createModel = () => createReputationModel(METHOD, { agents: AGENTS });
  const events = store.reputationEvents(key);
  if (events.some((event, index) => event.seq !== index + 1)) problems.push('log: seq not gap-free from 1');
  const late = events.filter((event) => event.readVersion !== null && event.readVersion >= event.seq).length;
  if (late > 0) problems.push(`log: ${late} events whose decision read a version at or after their own seq`);
  const runKeys = new Map<string, number>();
  const serveKeys = new Set<string>();
  const serveEmpty = new Set<string>();
  const feedbackKeys = new Map<string, number>();
  let stray = 0;
  for (const event of events) {
    const eventKey = baseEventKey(event.key);
    if (eventKey.endsWith('/feedback')) {
      if (event.taskId !== null && input.clientIds.has(event.taskId))
        feedbackKeys.set(event.taskId, (feedbackKeys.get(event.taskId) ?? 0) + (eventKey === event.key ? 1 : 0));
      else stray++;
    } else if (event.runId === input.runId && event.taskId !== null) {
      runKeys.set(event.taskId, (runKeys.get(event.taskId) ?? 0) + (eventKey === event.key ? 1 : 0));
    } else if (event.runId !== null && input.serveRunIds.has(event.runId)) {
      (event.evidence.length > 0 ? serveKeys : serveEmpty).add(eventKey);
    } else stray++;
  }
  const runLost = input.taskIds.filter((taskId) => !runKeys.has(taskId)).length;
  const runExtra = [...runKeys.keys()].filter((taskId) => !input.taskIds.includes(taskId)).length;
  const feedbackLost = [...input.clientIds].filter((taskId) => !feedbackKeys.has(taskId)).length;
  const serveDifference = serveKeys.size - input.requests;
  lines.push(
    `log: ${events.length} events, seq 1..${events.length}; run tasks ${runKeys.size}/${input.taskIds.length} (${runLost} lost, ${runExtra} extra); served requests ${serveKeys.size}/${input.requests} (${input.withoutEvidence} stored decisions with no new evidence, which append no event; ${serveEmpty.size} events with an empty evidence list); feedback ${feedbackKeys.size}/${input.clientIds.size} (${feedbackLost} lost); ${stray} stray; ${late} read after their own seq`,
  );
  if (runLost + runExtra > 0) problems.push(`log: run tasks ${runLost} lost, ${runExtra} extra`);
  if (feedbackLost > 0) problems.push(`log: ${feedbackLost} feedback updates lost`);
  if (serveDifference !== 0)
    problems.push(`log: ${serveKeys.size} served decisions with evidence, ${input.requests} distinct requests`);
  // Each decision with new evidence appends one event key, the others none.
  if (input.decisions - input.withoutEvidence !== serveKeys.size)
    problems.push(
      `log: ${input.decisions} served decisions, ${input.withoutEvidence} of them without new evidence, but ${serveKeys.size} served event keys with evidence`,
    );
  if (stray > 0) problems.push(`log: ${stray} events of no run task, served decision or answered feedback`);
  // The fold the processes left, against a fresh fold of the same prefix.
  const left = store.reputationFold(key);
  if (left?.snapshot) {
    const prefix = foldReputation(createModel, null, events.slice(0, left.foldedSeq)).snapshot();
    const same = JSON.stringify(prefix) === JSON.stringify(left.snapshot);
    lines.push(
      `fold left by the processes: generation ${left.generation}, seq ${left.foldedSeq} of ${events.length}; ${same ? 'equals' : 'DIFFERS FROM'} a fresh fold of events 1..${left.foldedSeq}`,
    );
    if (!same) problems.push(`the stored fold (seq ${left.foldedSeq}) differs from a fresh fold of the log`);
  } else lines.push('fold left by the processes: none');
  // One more fold, as a holder of its own (waits out the lease of a holder that was killed).
  const shared = createSharedReputation({ store, ...key, createModel, holder: `scale-faults-check:${process.pid}` });
  let outcome = shared.fold();
  for (let waited = 0; outcome.status === 'busy' && waited < 15_000; waited += 500) {
    await sleep(500);
    outcome = shared.fold();
  }
  const whole = foldReputation(createModel, null, events).snapshot();
  const final = store.reputationFold(key);
  const finalSame = JSON.stringify(final?.snapshot) === JSON.stringify(whole);
  const teamSame =
    JSON.stringify(store.loadReputation({ scope: { team: TEAM }, name: METHOD })) === JSON.stringify(whole);
  const currentSame = JSON.stringify(shared.current().model.snapshot()) === JSON.stringify(whole);
  lines.push(
    `final fold (${outcome.status}, seq ${final?.foldedSeq}): ${finalSame ? 'equals' : 'DIFFERS FROM'} a fresh fold of all ${events.length} events; the team's snapshot ${teamSame ? 'equals' : 'DIFFERS FROM'} it; current() ${currentSame ? 'equals' : 'DIFFERS FROM'} it`,
  );
  if (!finalSame || !teamSame || !currentSame)
    problems.push('the stored reputation (fold, team snapshot or current state) differs from a fresh fold of the log');
  return { lines, problems };
}

/** A reputation event's key without the `#n` of its second and later evidence batches. */
function baseEventKey(key: string): string {
  return key.replace(/#\d+$/, '');
}

/** The `Idempotency-Key` of the run's request `index`: a function of the seed and the index only. */
function idempotencyKeyOf(seed: number, index: number): string {
  return `scale-faults-${seed}-${index}`;
}

/** The request a stored served decision answered: its agents' sum (1,000 + index + 7), or `undefined`. */
function requestOfDecision(result: { answers: { [agent: string]: string | null } }): number | undefined {
  // weak answers the sum + 1; the others the sum.
  const sum = AGENTS.filter((agent) => agent !== 'weak')
    .map((agent) => result.answers[agent])
    .find((answer) => answer !== null && answer !== undefined);
  const index = Number(sum) - 1_007;
  return Number.isInteger(index) && index >= 0 && index < REQUESTS ? index : undefined;
}
