// Overhead of the OpenAI-compatible team endpoint: 10 simulated agents that each answer after
// 200 ms, served over HTTP from a file store (WAL). Reports the latency a request adds over its
// slowest agent (p50, p90, p99 of sequential requests) and requests per second with 50 concurrent
// clients. Agents are called at once, so the ideal request takes as long as its slowest agent.
// Run: npm run bench:serve (compiled with esbuild and run on plain node, as the built package runs:
// under tsx every lazy require inside Node's fetch goes through the loader thread and costs ms).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../src/agents/agent.js';
import { startServer } from '../src/server/start-server.js';
import { createTeamService } from '../src/server/team-service.js';
import { openStore } from '../src/store/store.js';

const AGENTS = 10;
const DELAY_MS = 200;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 60);
const CONCURRENCY = 50;
const CONCURRENT_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

// Per request: when its slowest agent answered, measured inside the agents.
const slowest = new Map<string, number>();
const started = new Map<string, number>();

function simulatedAgent(index: number): Agent {
  const id = `sim-${index}`;
  const zero = { inputTokens: 0, outputTokens: 0, cost: 0, cached: false };
  const fail = () => Promise.reject(new Error('not used by the serve benchmark'));
  return {
    identity: { id, model: `model-${index % 5}` },
    kind: 'simulated',
    async propose({ task }) {
      const begin = performance.now();
      if (!started.has(task.id)) started.set(task.id, begin);
      await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
      slowest.set(task.id, Math.max(slowest.get(task.id) ?? 0, performance.now() - (started.get(task.id) ?? begin)));
      // Seven agents answer 42, three answer 41: the method has something to decide.
      const answer = index < 7 ? '42' : '41';
      return { value: { agentId: id, taskId: task.id, round: 0, text: `{"answer":"${answer}"}`, answer }, usage: zero };
    },
    revise: fail,
    rate: fail,
    audit: fail,
    refineSubscription: fail,
  };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

const dir = mkdtempSync(join(tmpdir(), 'repute-bench-serve-'));
// Removed however the script ends (normally or on a thrown error): top-level code has no finally.
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const store = openStore({ path: join(dir, 'repute.db') });
let counter = 0;
const team = createTeamService({
  name: 'bench',
  agents: Array.from({ length: AGENTS }, (_, index) => simulatedAgent(index)),
  store,
  kind: 'number',
  generateId: () => `chat-${++counter}`,
});
const server = await startServer({ store, team, port: 0 });
const url = `${server.url}/v1/chat/completions`;

async function request(index: number): Promise<{ total: number; overhead: number }> {
  const begin = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'team:bench', messages: [{ role: 'user', content: `What is 40 + ${index % 3}?` }] }),
  });
  const body = (await response.json()) as { repute: { taskId: string; decision: { answer: string } } };
  const total = performance.now() - begin;
  if (response.status !== 200 || body.repute.decision.answer !== '42')
    throw new Error(`unexpected response ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
  const agents = slowest.get(body.repute.taskId) as number;
  return { total, overhead: total - agents };
}

// Warm-up (JIT, connection pool, first SQLite pages).
for (let index = 0; index < 5; index++) await request(index);

const sequential: Array<{ total: number; overhead: number }> = [];
const cpuBefore = process.cpuUsage();
for (let index = 0; index < SEQUENTIAL; index++) sequential.push(await request(index));
const cpu = process.cpuUsage(cpuBefore);
// CPU time of server and client per request (user + system): what a request costs on an idle core,
// independent of how loaded the machine is.
const cpuPerRequest = (cpu.user + cpu.system) / 1000 / SEQUENTIAL;
const overheads = sequential.map((entry) => entry.overhead);

const concurrentStart = performance.now();
let done = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async (_, client) => {
    for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
      await request(client * CONCURRENT_ROUNDS + round);
      done++;
    }
  }),
);
const seconds = (performance.now() - concurrentStart) / 1000;

const decisions = store.taskResults(team.runId).length;
await server.close();
store.close();

const fmt = (value: number) => value.toFixed(2);
console.log(
  `team endpoint: ${AGENTS} simulated agents × ${DELAY_MS} ms, minirep, file store (WAL), Node ${process.version}`,
);
console.log(
  `sequential ${SEQUENTIAL} requests: latency p50 ${fmt(
    percentile(
      sequential.map((entry) => entry.total),
      0.5,
    ),
  )} ms; added over the slowest agent p50 ${fmt(percentile(overheads, 0.5))} ms, p90 ${fmt(percentile(overheads, 0.9))} ms, p99 ${fmt(percentile(overheads, 0.99))} ms`,
);
console.log(
  `CPU per request (server + client, same process): ${fmt(cpuPerRequest)} ms; load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`,
);
console.log(
  `${CONCURRENCY} concurrent clients × ${CONCURRENT_ROUNDS} requests: ${done} in ${seconds.toFixed(2)} s = ${(done / seconds).toFixed(1)} requests/s (ideal ${(CONCURRENCY / (DELAY_MS / 1000)).toFixed(0)}/s)`,
);
console.log(`decisions stored: ${decisions} (expected ${5 + SEQUENTIAL + done})`);
if (percentile(overheads, 0.5) > 5) {
  console.log(`FAIL: p50 added latency ${fmt(percentile(overheads, 0.5))} ms exceeds 5 ms`);
  process.exitCode = 1;
}
