// npm run bench:live — wall time of a 10-agent debate (Propose + 2 debate rounds) with 200 ms of
// simulated latency per agent call, against the critical-path bound 3 × 200 ms, and the
// framework's own overhead per agent call (same debate at zero latency), medians of repeated runs.
import { createSimulatedAgent } from '../src/agents/simulated-agent.js';
import { createSimulationWorld } from '../src/agents/simulation-world.js';
import { createPluralityAggregator } from '../src/aggregation/plurality.js';
import { createRng } from '../src/core/rng.js';
import { createMemoryTraceSink, createTracer } from '../src/core/trace.js';
import { runDebate } from '../src/protocols/debate/run-debate.js';
import { generateTasks } from '../src/tasks/generate-tasks.js';
import { median } from './_median.js';

const agentsCount = 10;
const latencyMs = 200;
const debateRounds = 2; // + Propose = 3 sequential rounds
const repeats = 7;
const overheadTasks = 200;

const referenced = generateTasks({ count: overheadTasks, seed: 1 });
const world = createSimulationWorld({ tasks: referenced, seed: 1 });
const team = (latency: number) =>
  Array.from({ length: agentsCount }, (_, index) =>
    createSimulatedAgent({
      identity: { id: `agent-${index}`, model: `model-${index % 4}` },
      profile: { skill: 0.6 },
      world,
      seed: 1,
      latencyMs: latency,
    }),
  );
const aggregator = createPluralityAggregator();

async function debateOnce(latency: number, taskIndex: number): Promise<number> {
  const tracer = createTracer({ sink: createMemoryTraceSink(), now: () => performance.now() });
  const started = performance.now();
  await runDebate({
    team: team(latency),
    task: (referenced[taskIndex] as (typeof referenced)[number]).task,
    rounds: debateRounds,
    aggregator,
    rng: createRng(taskIndex),
    tracer,
  });
  return performance.now() - started;
}

// Warm up the JIT so the first measured run is not an outlier.
for (let index = 0; index < 20; index++) await debateOnce(0, index);

const walls: number[] = [];
for (let repeat = 0; repeat < repeats; repeat++) walls.push(await debateOnce(latencyMs, repeat));

const callsPerDebate = agentsCount * (1 + debateRounds);
const perCall: number[] = [];
for (let repeat = 0; repeat < repeats; repeat++) {
  const started = performance.now();
  for (let index = 0; index < overheadTasks; index++) await debateOnce(0, index);
  perCall.push(((performance.now() - started) * 1000) / (overheadTasks * callsPerDebate));
}

const bound = (1 + debateRounds) * latencyMs;
const sequential = callsPerDebate * latencyMs;
const wall = median(walls);
console.log(
  `bench:live  ${agentsCount} simulated agents, Propose + ${debateRounds} debate rounds, ${latencyMs} ms latency per call, ${repeats} repeats`,
);
console.log(
  `wall time (median)             ${wall.toFixed(1)} ms   (runs: ${walls.map((value) => value.toFixed(0)).join(', ')})`,
);
console.log(`critical-path bound 3 x ${latencyMs} ms  ${bound} ms   ratio ${(wall / bound).toFixed(3)}`);
console.log(`all calls one after another     ${sequential} ms   (${callsPerDebate} calls)`);
console.log(
  `framework overhead per call     ${median(perCall).toFixed(1)} µs   (median of ${repeats} x ${overheadTasks} debates at zero latency, tracing into memory)`,
);
