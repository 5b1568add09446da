// npm run bench:llm — per-call overhead of the LLM plumbing (ledger → cache → retry → concurrency →
// timeout, src/llm) around a model that answers at once, against the bare model and against the
// store's per-task write. Each figure is the median over repeats of (wall time of a batch of
// sequential awaited calls) / (calls in the batch), after a warm-up.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpanData } from '../src/core/trace.js';
import { createCompletion } from '../src/llm/complete.js';
import { wrapWithPlumbing } from '../src/llm/create-language-model.js';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '../src/llm/language-model-types.js';
import { createProviderLimiter } from '../src/llm/semaphore.js';
import { openStore, type Store, type UsageEntry } from '../src/store/store.js';
import { ScriptedModel } from '../src/testing/scripted-model.js';
import { median } from './_median.js';

const repeats = 7;
const calls = 2000;
const warmupCalls = 2000;
const bigRun = 10_000;
const bigRunCalls = 200;

const params = (prompt: string): LanguageModelV3CallOptions => ({
  prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
  temperature: 0,
});
const scripted = () =>
  new ScriptedModel({ replies: () => ({ text: '{"answer": "42"}', usage: { inputTokens: 120, outputTokens: 30 } }) });

// A file store in WAL mode, as `repute run` uses (removed at the end); `-- --memory` for ':memory:'.
const memory = process.argv.includes('--memory');
const directory = mkdtempSync(join(tmpdir(), 'repute-bench-llm-'));
// Removed however the script ends (normally or on a thrown error): top-level code has no finally.
process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
const store: Store = openStore({ path: memory ? ':memory:' : join(directory, 'bench.db') });
const plumbed = (model: LanguageModelV3) =>
  wrapWithPlumbing({
    model,
    limiter: createProviderLimiter(),
    cache: store,
    ledger: store,
    price: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
    context: { runId: 'bench', agentId: 'a1' },
  });

// CPU time (user + system) per batch too: on a shared, loaded machine wall time also counts
// time spent waiting for a core, CPU time does not.
const cpuPerCall: number[] = [];

/** Wall µs per call of one batch: `call(index)` awaited `count` times in a row (CPU µs go to `cpuPerCall`). */
async function batch(count: number, call: (index: number) => Promise<unknown> | unknown): Promise<number> {
  const cpuStarted = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < count; index++) await call(index);
  const wall = ((performance.now() - started) * 1000) / count;
  const cpu = process.cpuUsage(cpuStarted);
  cpuPerCall.push((cpu.user + cpu.system) / count);
  return wall;
}

/** Runs `repeats` measured batches, returning wall and CPU µs per call of each. */
async function measure(run: (repeat: number) => Promise<number>): Promise<{ perCall: number[]; cpu: number[] }> {
  const perCall: number[] = [];
  const cpu: number[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    perCall.push(await run(repeat));
    cpu.push(cpuPerCall.at(-1) as number);
  }
  return { perCall, cpu };
}

type Row = { name: string; what: string; perCall: number[]; cpu: number[] };
const rows: Row[] = [];

// 1. The bare scripted model.
{
  const model = scripted();
  await batch(warmupCalls, (index) => model.doGenerate(params(`warm-${index}`)));
  const measured = await measure((repeat) => {
    model.calls.length = 0; // keep the call log from growing across repeats
    return batch(calls, (index) => model.doGenerate(params(`bare-${repeat}-${index}`)));
  });
  rows.push({ name: 'bare ScriptedModel.doGenerate', what: 'no plumbing', ...measured });
}

// 2. and 3. The plumbed model: every prompt new (cache miss: provider call, cache write, ledger row),
// then the same prompts again (cache hit: cache read, ledger row, no provider call).
{
  const base = scripted();
  const model = plumbed(base);
  await batch(warmupCalls, (index) => model.doGenerate(params(`warm-${index}`)));
  await batch(warmupCalls, (index) => model.doGenerate(params(`warm-${index}`)));
  base.calls.length = 0;
  const misses = await measure((repeat) =>
    batch(calls, (index) => model.doGenerate(params(`plumbed-${repeat}-${index}`))),
  );
  if (base.calls.length !== repeats * calls)
    throw new Error(`expected ${repeats * calls} provider calls, got ${base.calls.length}`);
  const hits = await measure((repeat) =>
    batch(calls, (index) => model.doGenerate(params(`plumbed-${repeat}-${index}`))),
  );
  if (base.calls.length !== repeats * calls)
    throw new Error(`cache hits reached the provider: ${base.calls.length - repeats * calls} call(s)`);
  rows.push({ name: 'plumbed, cache miss', what: 'provider call + SQLite cache write + ledger row', ...misses });
  rows.push({ name: 'plumbed, cache hit', what: 'SQLite cache read + ledger row, no provider call', ...hits });
}

// 4. The agent-facing call: createCompletion over the plumbed model, cache hits (usage read back
// from the ledger's booking).
{
  const model = plumbed(scripted());
  const complete = createCompletion({ model, runId: 'bench' });
  const request = (prompt: string) => ({
    system: 'You are agent a1.',
    prompt,
    context: { agentId: 'a1', taskId: 't', act: 'propose' },
  });
  for (let index = 0; index < calls; index++) await complete(request(`completion-${index}`));
  await batch(warmupCalls, (index) => complete(request(`completion-${index}`)));
  const measured = await measure(() =>
    batch(calls, async (index) => {
      const { usage } = await complete(request(`completion-${index}`));
      if (!usage.cached) throw new Error('expected a cache hit');
    }),
  );
  rows.push({ name: 'createCompletion, cache hit', what: 'plumbed hit + message building + usage', ...measured });
}

// 5. The per-task store write, small (1 event, 1 ledger entry) and debate-sized (10 agents x 3 acts),
// each repeat in a fresh run of `calls` tasks; then the small write in a run that already holds
// `bigRun` tasks, since the write's cost grows with the run's size.
{
  const usage = (count: number): UsageEntry[] =>
    Array.from({ length: count }, (_, index) => ({
      runId: 'bench',
      agentId: `a${index % 10}`,
      taskId: 't',
      act: index < 10 ? 'propose' : 'revise',
      model: 'm',
      inputTokens: 120,
      outputTokens: 30,
      cost: 0.000036,
      cached: false,
    }));
  const events = (count: number): SpanData[] =>
    Array.from({ length: count }, (_, round) => ({
      type: 'debate-round',
      taskId: 't',
      round,
      answers: Object.fromEntries(Array.from({ length: 10 }, (_, agent) => [`a${agent}`, '42'])),
    }));
  const writer = (runId: string, eventCount: number, usageCount: number) => {
    store.createRun({ id: runId, kind: 'bench', config: {} });
    return (taskId: string) =>
      store.recordTaskResult({
        runId,
        method: 'm',
        taskId,
        result: { correct: true, decided: '42' },
        events: events(eventCount),
        usage: usage(usageCount),
      });
  };
  for (const [name, eventCount, usageCount] of [
    ['store.recordTaskResult, small', 1, 1],
    ['store.recordTaskResult, debate', 4, 30],
  ] as const) {
    const warm = writer(`warm-${eventCount}-${usageCount}`, eventCount, usageCount);
    await batch(warmupCalls, (index) => warm(`t-${index}`));
    const measured = await measure((repeat) => {
      const write = writer(`bench-${eventCount}-${usageCount}-${repeat}`, eventCount, usageCount);
      return batch(calls, (index) => write(`t-${index}`));
    });
    rows.push({
      name,
      what: `1 result + ${eventCount} event(s) + ${usageCount} ledger row(s), one transaction; fresh run of ${calls} tasks`,
      ...measured,
    });
  }
  const write = writer('big', 1, 1);
  for (let index = 0; index < bigRun; index++) write(`fill-${index}`);
  const measured = await measure((repeat) => batch(bigRunCalls, (index) => write(`t-${repeat}-${index}`)));
  rows.push({
    name: `  same, small, at task ${bigRun / 1000}k`,
    what: `as small, ${bigRunCalls} writes into a run already holding ${bigRun} tasks`,
    ...measured,
  });
}

store.close();

const cpuOf = (name: string) => median(rows.find((row) => row.name === name)!.cpu);
console.log(
  `bench:llm  ${repeats} repeats x ${calls} sequential awaited calls, medians of per-batch means; store: ${memory ? ':memory:' : `file (WAL) in ${tmpdir()}`}`,
);
console.log(
  `node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} (wall time includes waiting for a core; CPU time does not)`,
);
console.log('');
console.log(`${'step'.padEnd(32)} ${'wall µs'.padStart(8)} ${'CPU µs'.padStart(8)}  ${'wall min-max'.padEnd(13)} what`);
for (const row of rows) {
  const range = `${Math.min(...row.perCall).toFixed(0)}-${Math.max(...row.perCall).toFixed(0)}`;
  console.log(
    `${row.name.padEnd(32)} ${median(row.perCall).toFixed(2).padStart(8)} ${median(row.cpu).toFixed(2).padStart(8)}  ${range.padEnd(13)} ${row.what}`,
  );
}
const bareCpu = cpuOf('bare ScriptedModel.doGenerate');
const missOverhead = cpuOf('plumbed, cache miss') - bareCpu;
const hitOverhead = cpuOf('plumbed, cache hit');
const small = cpuOf('store.recordTaskResult, small');
console.log('');
console.log(
  `plumbing CPU overhead per call: ${missOverhead.toFixed(1)} µs on a miss (beyond the bare model), ${hitOverhead.toFixed(1)} µs for a hit;`,
);
console.log(
  `a small recordTaskResult costs ${small.toFixed(1)} µs CPU, i.e. miss/write ${(missOverhead / small).toFixed(2)}, hit/write ${(hitOverhead / small).toFixed(2)}.`,
);
