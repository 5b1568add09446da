// Overhead of the OpenAI-compatible team endpoint, served over HTTP from a file store (WAL), in two
// scenarios. `healthy`: 10 simulated agents that each answer after 200 ms; reports the latency a
// request adds over its slowest agent (p50, p90, p99 of sequential requests). `degraded`: the same
// team where one agent answers after 2.5 s and one is dead (fails at once with a provider error),
// served with quorum 8: the team decides once 8 agents answered, the dead agent's circuit opens after
// 3 failures; reports latency against the fastest quorum (when the 8th answer arrived) and the
// latency added over it. Both report requests per second with 50 concurrent clients.
// Run: npm run bench:serve (bundled with esbuild by bench/run-bundled.ts and run on plain node, as
// the built package runs: under tsx every lazy require inside Node's fetch goes through the loader
// thread and costs ms). BENCH_SEQUENTIAL (60) and BENCH_ROUNDS (6) set the run's size; BENCH_METHOD
// the deciding method (default: the served default, defaultServeMethod).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../src/agents/agent.js';
import { ProviderError } from '../src/core/errors.js';
import { allDebateMethodNames, type DebateMethodName, defaultServeMethod } from '../src/protocols/debate/methods.js';
import { startServer } from '../src/server/start-server.js';
import { createTeamService } from '../src/server/team-service.js';
import { openStore } from '../src/store/store.js';

const AGENTS = 10;
const DELAY_MS = 200;
const SLOW_MS = 2500;
const QUORUM = 8;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 60);
const CONCURRENCY = 50;
const CONCURRENT_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const METHOD = process.env.BENCH_METHOD ?? defaultServeMethod;
if (!(allDebateMethodNames as readonly string[]).includes(METHOD))
  throw new Error(`BENCH_METHOD=${METHOD} is not a served method; use one of ${allDebateMethodNames.join(', ')}`);

type Role = 'normal' | 'slow' | 'dead';

/** When each request's agents were first called and when each answered, measured inside the agents. */
interface Timing {
  readonly started: Map<string, number>;
  readonly answered: Map<string, number[]>;
}

function simulatedAgent(index: number, role: Role, timing: Timing): Agent {
  const id = `sim-${index}`;
  const zero = { inputTokens: 0, outputTokens: 0, cost: 0, cached: false };
  const fail = () => Promise.reject(new Error('not used by the serve benchmark'));
  return {
    identity: { id, model: `model-${index % 5}` },
    kind: 'simulated',
    async propose({ task }) {
      const begin = performance.now();
      if (!timing.started.has(task.id)) timing.started.set(task.id, begin);
      if (role === 'dead')
        throw new ProviderError({
          provider: 'bench',
          attempts: 1,
          reason: 'network',
          message: `${id}: connection refused`,
        });
      await new Promise((resolve) => setTimeout(resolve, role === 'slow' ? SLOW_MS : DELAY_MS));
      const times = timing.answered.get(task.id) ?? [];
      times.push(performance.now() - (timing.started.get(task.id) ?? begin));
      timing.answered.set(task.id, times);
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

interface ScenarioResult {
  readonly latencyP50: number;
  /** p50 of the time the request's agents needed (slowest agent, or the quorum's last answer). */
  readonly agentsP50: number;
  readonly added: { readonly p50: number; readonly p90: number; readonly p99: number };
  readonly cpuPerRequest: number;
  readonly perSecond: number;
  readonly done: number;
  readonly decisions: number;
  readonly skipped: Readonly<Record<string, number>>;
}

async function runScenario({ roles, quorum }: { roles: readonly Role[]; quorum?: number }): Promise<ScenarioResult> {
  const timing: Timing = { started: new Map(), answered: new Map() };
  const dir = mkdtempSync(join(tmpdir(), 'repute-bench-serve-'));
  // Removed however the script ends (normally or on a thrown error): top-level code has no finally.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const store = openStore({ path: join(dir, 'repute.db') });
  let counter = 0;
  const team = createTeamService({
    name: 'bench',
    agents: roles.map((role, index) => simulatedAgent(index, role, timing)),
    store,
    kind: 'number',
    method: METHOD as DebateMethodName,
    generateId: () => `chat-${++counter}`,
    ...(quorum === undefined ? {} : { quorum }),
  });
  const server = await startServer({ store, team, port: 0 });
  const url = `${server.url}/v1/chat/completions`;
  const skipped: Record<string, number> = {};
  // What the agents needed: the slowest answer without a quorum, the quorum-th answer with one.
  const agentsNeeded = (taskId: string) => {
    const times = [...(timing.answered.get(taskId) ?? [])].sort((left, right) => left - right);
    return (quorum === undefined ? times.at(-1) : times[quorum - 1]) as number;
  };

  async function request(index: number): Promise<{ total: number; overhead: number; agents: number }> {
    const begin = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'team:bench',
        messages: [{ role: 'user', content: `What is 40 + ${index % 3}?` }],
      }),
    });
    const body = (await response.json()) as {
      repute: { taskId: string; decision: { answer: string }; skipped: Array<{ reason: string }> };
    };
    const total = performance.now() - begin;
    if (response.status !== 200 || body.repute.decision.answer !== '42')
      throw new Error(`unexpected response ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
    for (const skip of body.repute.skipped) skipped[skip.reason] = (skipped[skip.reason] ?? 0) + 1;
    const agents = agentsNeeded(body.repute.taskId);
    return { total, overhead: total - agents, agents };
  }

  // Warm-up (JIT, connection pool, first SQLite pages; the dead agent's circuit opens here).
  for (let index = 0; index < 5; index++) await request(index);

  const sequential: Array<{ total: number; overhead: number; agents: number }> = [];
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < SEQUENTIAL; index++) sequential.push(await request(index));
  const cpu = process.cpuUsage(cpuBefore);
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
  // Late answers (the slow agent's) are recorded before the store closes.
  await team.idle();
  const decisions = store.taskResults(team.runId).length;
  await server.close();
  store.close();
  return {
    latencyP50: percentile(
      sequential.map((entry) => entry.total),
      0.5,
    ),
    agentsP50: percentile(
      sequential.map((entry) => entry.agents),
      0.5,
    ),
    added: { p50: percentile(overheads, 0.5), p90: percentile(overheads, 0.9), p99: percentile(overheads, 0.99) },
    // CPU time of server and client per request (user + system): what a request costs on an idle
    // core, independent of how loaded the machine is.
    cpuPerRequest: (cpu.user + cpu.system) / 1000 / SEQUENTIAL,
    perSecond: done / seconds,
    done,
    decisions,
    skipped,
  };
}

const fmt = (value: number) => value.toFixed(2);
const healthyRoles: Role[] = Array.from({ length: AGENTS }, () => 'normal');
// Agents 7 (answers 41) and 9 (answers 41): one slow, one dead; the quorum of 8 is the 8 others.
const degradedRoles: Role[] = healthyRoles.map((role, index) => (index === 7 ? 'slow' : index === 9 ? 'dead' : role));
console.log(
  `team endpoint: ${AGENTS} simulated agents × ${DELAY_MS} ms, ${METHOD}, file store (WAL), Node ${process.version}, ${availableParallelism()} cores`,
);
const healthy = await runScenario({ roles: healthyRoles });
console.log(
  `healthy, sequential ${SEQUENTIAL} requests: latency p50 ${fmt(healthy.latencyP50)} ms; added over the slowest agent p50 ${fmt(healthy.added.p50)} ms, p90 ${fmt(healthy.added.p90)} ms, p99 ${fmt(healthy.added.p99)} ms; CPU per request (server + client, same process) ${fmt(healthy.cpuPerRequest)} ms`,
);
console.log(
  `healthy, ${CONCURRENCY} concurrent clients × ${CONCURRENT_ROUNDS} requests: ${healthy.done} at ${healthy.perSecond.toFixed(1)} requests/s (ideal ${(CONCURRENCY / (DELAY_MS / 1000)).toFixed(0)}/s); decisions stored ${healthy.decisions} (expected ${5 + SEQUENTIAL + healthy.done})`,
);
const degraded = await runScenario({ roles: degradedRoles, quorum: QUORUM });
const ratio = degraded.latencyP50 / degraded.agentsP50;
console.log(
  `degraded (one agent ${SLOW_MS} ms, one dead; quorum ${QUORUM}), sequential ${SEQUENTIAL} requests: latency p50 ${fmt(degraded.latencyP50)} ms = ${ratio.toFixed(3)} × the fastest quorum's p50 ${fmt(degraded.agentsP50)} ms (slowest agent ${SLOW_MS} ms); added over the quorum p50 ${fmt(degraded.added.p50)} ms, p90 ${fmt(degraded.added.p90)} ms, p99 ${fmt(degraded.added.p99)} ms; CPU per request ${fmt(degraded.cpuPerRequest)} ms`,
);
console.log(
  `degraded, ${CONCURRENCY} concurrent clients × ${CONCURRENT_ROUNDS} requests: ${degraded.done} at ${degraded.perSecond.toFixed(1)} requests/s; decisions stored ${degraded.decisions} (expected ${5 + SEQUENTIAL + degraded.done}); agents left out: ${JSON.stringify(degraded.skipped)}`,
);
console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}`,
);
if (healthy.added.p50 > 5) {
  console.log(`FAIL: healthy p50 added latency ${fmt(healthy.added.p50)} ms exceeds 5 ms`);
  process.exitCode = 1;
}
if (ratio > 1.2) {
  console.log(`FAIL: degraded p50 latency is ${ratio.toFixed(3)} × the fastest quorum, above 1.2`);
  process.exitCode = 1;
}
