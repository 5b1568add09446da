// npm run bench:replay — wall time, peak RSS and proposals evaluated per second of the full replay
// grid on MATH-L5 (every task: --tasks 721 --split all, one seed), next to the floor (reading and
// parsing the dataset), and the 1-worker vs 2-worker ratio.
// Cold runs start from an empty answer-key cache; warm runs read the keys a first run saved.
// Usage: tsx bench/replay.ts [dataset-dir] [--repeats N] [--tasks N] [--split all|heldout|tuning] [--dist] [--memory]
//          [--dist --against OTHER_DIST_DIR]
// --memory instead sweeps the number of tasks (100, 250, 500, 721): peak RSS with 2 workers, and the
// largest live heap of a 1-worker run (a full GC forced every 10 conditions, so garbage not yet
// collected does not count): what grows with the tasks is live data or only uncollected garbage.
// Every measured run is a fresh process (like one `repute replay` call): in one long-lived process
// the in-thread run would be JIT-warm from the previous repeat while new worker threads start cold.
// 1-worker and 2-worker runs alternate, so a change in the machine's load hits both alike.
// --against OTHER_DIST_DIR (with --dist) compares this build with another one (a dist/ built in another
// checkout or worktree, whose node_modules resolve): 2-worker runs of the two builds alternate (ABBA),
// and it prints each build's medians and the median of the per-pair ratios. This machine's speed
// drifts by more than most changes within an hour, so only such paired runs tell two builds apart.
// --dist runs the compiled library from dist/ (`npm run build` first) in plain node instead of the
// TypeScript sources through tsx (tsx adds per-thread loader start-up and esbuild's keep-names wrappers).
import { execFile } from 'node:child_process';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { loadDataset as LoadDataset } from '../src/eval/proposals/load-dataset.js';
import type { threadCpuMs as ThreadCpuMs } from '../src/eval/replay/_thread-cpu.js';
import type { runReplay as RunReplay } from '../src/eval/replay/run-replay.js';
import { dataDir } from '../src/testing/_test-data-dir.js';
import { median } from './_median.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const path = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : join(dataDir, 'zeroeval-math-l5');
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const repeats = Number(flag('--repeats') ?? 3);
const tasks = Number(flag('--tasks') ?? 721);
const split = (flag('--split') ?? 'all') as 'all' | 'heldout' | 'tuning';
const once = flag('--once');
const fromDist = process.argv.includes('--dist');
const against = flag('--against');
if (against !== undefined && !fromDist) {
  process.stderr.write('bench:replay: --against compares two compiled builds; add --dist (and npm run build)\n');
  process.exit(2);
}
if (against !== undefined && !existsSync(join(against, 'eval', 'replay', 'run-replay.js'))) {
  process.stderr.write(
    `bench:replay: --against ${against} holds no compiled replay (eval/replay/run-replay.js); pass the dist/ directory of a built checkout\n`,
  );
  process.exit(2);
}
const library = fromDist ? '../dist' : '../src';

/** One measured run in this process, printed as one JSON line (the `--once N` child mode). */
interface Sample {
  wallMs: number;
  cpuMs: number;
  mainThreadCpuMs: number | undefined;
  gridMs: number;
  planMs: number;
  workerCpuMs: readonly number[];
  proposals: number;
  /** Peak resident set size of the whole process (all threads), in MB. */
  peakRssMb: number;
  /** With REPUTE_BENCH_LIVE=1 (and --expose-gc): the largest heap in use right after a forced full GC, in MB. */
  liveHeapMb?: number;
}

/** The `--once` child's live-heap sampler (REPUTE_BENCH_LIVE=1 with --expose-gc; the dist child has its own copy). */
function liveSampler() {
  const gc = (globalThis as { gc?: () => void }).gc;
  let live = 0;
  const on = process.env.REPUTE_BENCH_LIVE === '1' && gc !== undefined;
  return {
    sample: on
      ? (done: number) => {
          if (done % 10 !== 0) return;
          gc();
          live = Math.max(live, process.memoryUsage().heapUsed);
        }
      : undefined,
    result: () => (on ? { liveHeapMb: live / 1e6 } : {}),
  };
}

if (once !== undefined) {
  const { runReplay } = (await import(`${library}/eval/replay/run-replay.js`)) as { runReplay: typeof RunReplay };
  const { threadCpuMs } = (await import(`${library}/eval/replay/_thread-cpu.js`)) as {
    threadCpuMs: typeof ThreadCpuMs;
  };
  const mainStarted = threadCpuMs();
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const live = liveSampler();
  const keyCache = process.env.REPUTE_BENCH_KEY_CACHE;
  const report = await runReplay({
    path,
    workers: Number(once),
    tasks,
    split,
    ...(live.sample === undefined ? {} : { onProgress: live.sample }),
    ...(keyCache ? { keyCache } : {}),
  });
  const cpu = process.cpuUsage(cpuStarted);
  const mainEnded = threadCpuMs();
  const sample: Sample = {
    wallMs: performance.now() - started,
    // CPU time of the whole process, worker threads and V8's helper threads included (user + system).
    cpuMs: (cpu.user + cpu.system) / 1000,
    mainThreadCpuMs: mainStarted === undefined || mainEnded === undefined ? undefined : mainEnded - mainStarted,
    gridMs: report.timing.gridMs,
    planMs: report.timing.planMs,
    workerCpuMs: report.timing.workerCpuMs,
    proposals: report.timing.proposalsEvaluated,
    // ru_maxrss of the process (Linux: kB), worker threads included.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    ...live.result(),
  };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
  process.exit(0);
}

const { loadDataset } = (await import(`${library}/eval/proposals/load-dataset.js`)) as {
  loadDataset: typeof LoadDataset;
};
const loadAtStart = loadavg()[0] ?? 0;

const floor: number[] = [];
for (let repeat = 0; repeat < Math.max(repeats, 3); repeat++) {
  const started = performance.now();
  await loadDataset(path);
  floor.push(performance.now() - started);
}
// Peak RSS of this process after parsing the dataset (the memory floor of any replay of it).
const floorRssMb = process.resourceUsage().maxRSS / 1024;

// A --dist run is plain `node` on the compiled library, as `node bin/repute.js replay` runs it: the
// child is a small ES module written next to the build cache (not -e: worker threads inherit
// --input-type), so neither tsx nor its loader thread is in the process (they add ~25 MB of RSS and
// loader start-up to every thread). From source the child re-runs this file under tsx in --once mode.
const distChild = `
const [library, path, workers, tasks, split] = process.argv.slice(2);
const { runReplay } = await import(library + 'eval/replay/run-replay.js');
const { threadCpuMs } = await import(library + 'eval/replay/_thread-cpu.js');
const mainStarted = threadCpuMs();
const started = performance.now();
const cpuStarted = process.cpuUsage();
// REPUTE_BENCH_LIVE=1 (with --expose-gc): a full GC every 10 conditions, the largest heap in use after it.
let liveHeap = 0;
const sample = process.env.REPUTE_BENCH_LIVE === '1' && globalThis.gc
  ? (done) => { if (done % 10 === 0) { globalThis.gc(); liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed); } }
  : undefined;
const keyCache = process.env.REPUTE_BENCH_KEY_CACHE || undefined;
const report = await runReplay({ path, workers: Number(workers), tasks: Number(tasks), split, onProgress: sample, keyCache });
const cpu = process.cpuUsage(cpuStarted);
const mainEnded = threadCpuMs();
process.stdout.write(JSON.stringify({
  wallMs: performance.now() - started,
  cpuMs: (cpu.user + cpu.system) / 1000,
  mainThreadCpuMs: mainStarted === undefined || mainEnded === undefined ? undefined : mainEnded - mainStarted,
  gridMs: report.timing.gridMs,
  planMs: report.timing.planMs,
  workerCpuMs: report.timing.workerCpuMs,
  proposals: report.timing.proposalsEvaluated,
  peakRssMb: process.resourceUsage().maxRSS / 1024,
  ...(sample === undefined ? {} : { liveHeapMb: liveHeap / 1e6 }),
}) + '\\n');
process.exit(0);
`;
const distChildFile = join(root, 'node_modules', '.cache', 'repute', 'bench-replay-child.mjs');
if (fromDist) {
  mkdirSync(dirname(distChildFile), { recursive: true });
  writeFileSync(distChildFile, distChild);
}

const thisDist = new URL('../dist/', import.meta.url).href;
// The answer-key cache (`keyCache` of runReplay, on by default in the CLI): a `cold` run starts from an
// empty cache directory of its own (a first run on a dataset, computing every key); a `warm` run reads
// the shared directory that one unmeasured run filled first (any later run of the same build on the same data).
const warmCache = mkdtempSync(join(tmpdir(), 'repute-bench-keys-'));
let warmFilled = false;
const run = async (
  workers: number,
  options: { tasks?: number; live?: boolean; dist?: string; cache?: 'cold' | 'warm' | 'fill' } = {},
): Promise<Sample> => {
  if (options.cache === 'warm' && !warmFilled) {
    warmFilled = true;
    await run(workers, { ...options, cache: 'fill' });
  }
  const script = fileURLToPath(import.meta.url);
  const count = String(options.tasks ?? tasks);
  const gcFlag = options.live === true ? ['--expose-gc'] : [];
  const args = fromDist
    ? [...gcFlag, distChildFile, options.dist ?? thisDist, path, String(workers), count, split]
    : [...process.execArgv, ...gcFlag, script, path, '--once', String(workers), '--tasks', count, '--split', split];
  const shared = options.cache === 'warm' || options.cache === 'fill';
  const cache = shared ? warmCache : mkdtempSync(join(tmpdir(), 'repute-bench-keys-'));
  const env = {
    ...process.env,
    ...(options.live === true ? { REPUTE_BENCH_LIVE: '1' } : {}),
    REPUTE_BENCH_KEY_CACHE: cache,
  };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20, env });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Sample;
  } finally {
    if (!shared) rmSync(cache, { recursive: true, force: true });
  }
};
process.on('exit', () => rmSync(warmCache, { recursive: true, force: true }));

if (process.argv.includes('--memory')) {
  process.stdout.write(
    `replay memory on ${path} (--split ${split}, one seed) from ${fromDist ? 'dist/ (node)' : 'src/ (tsx)'}, a fresh process per run; floor (parse the dataset): peak RSS ${floorRssMb.toFixed(0)} MB\n`,
  );
  process.stdout.write(
    'tasks   peak RSS, 2 workers   live heap, 1 worker (max after a forced GC)   peak RSS of that run\n',
  );
  for (const count of [100, 250, 500, 721]) {
    const peak = await run(2, { tasks: count });
    const live = await run(1, { tasks: count, live: true });
    process.stdout.write(
      `${String(count).padEnd(7)} ${`${peak.peakRssMb.toFixed(0)} MB`.padEnd(21)} ${`${(live.liveHeapMb ?? Number.NaN).toFixed(1)} MB`.padEnd(45)} ${live.peakRssMb.toFixed(0)} MB\n`,
    );
  }
  process.exit(0);
}

if (against !== undefined) {
  const otherDist = `${pathToFileURL(resolve(against)).href}/`;
  const mine: Sample[] = [];
  const other: Sample[] = [];
  // ABBA order: each build runs first in half of the pairs.
  for (let repeat = 0; repeat < repeats; repeat++) {
    const first = repeat % 2 === 0;
    const a = first ? await run(2) : undefined;
    other.push(await run(2, { dist: otherDist }));
    mine.push(a ?? (await run(2)));
  }
  const medianOf = (entries: readonly Sample[], pick: (sample: Sample) => number) => median(entries.map(pick));
  const pairRatio = (pick: (sample: Sample) => number) =>
    median(mine.map((sample, index) => pick(sample) / pick(other[index] as Sample)));
  const row = (label: string, pick: (sample: Sample) => number, unit: (value: number) => string) =>
    process.stdout.write(
      `${label.padEnd(30)} ${unit(medianOf(mine, pick)).padEnd(14)} ${unit(medianOf(other, pick)).padEnd(14)} ${pairRatio(pick).toFixed(3)}×\n`,
    );
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  process.stdout.write(
    `replay A/B on ${path} (--tasks ${tasks} --split ${split}, one seed, 2 workers), ${repeats} alternating pairs of fresh processes; medians, and the median of the per-pair ratios\n`,
  );
  process.stdout.write(`${''.padEnd(30)} ${'this build'.padEnd(14)} ${'--against'.padEnd(14)} this / against\n`);
  row('wall time', (sample) => sample.wallMs, seconds);
  row('CPU time (all threads)', (sample) => sample.cpuMs, seconds);
  row('CPU time of the main thread', (sample) => sample.mainThreadCpuMs ?? Number.NaN, seconds);
  row('of which planning attacks', (sample) => sample.planMs, seconds);
  row(
    'peak RSS',
    (sample) => sample.peakRssMb,
    (mb) => `${mb.toFixed(0)} MB`,
  );
  process.stdout.write(
    `wall times: this build ${mine.map((sample) => (sample.wallMs / 1000).toFixed(2)).join(' / ')} s; --against ${other.map((sample) => (sample.wallMs / 1000).toFixed(2)).join(' / ')} s\n`,
  );
  process.stdout.write(
    `load average at start / end (1 min): ${loadAtStart.toFixed(1)} / ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores\n`,
  );
  process.exit(0);
}

// Cold runs with 1 and 2 workers, and warm 2-worker runs, in rotating order.
const one: Sample[] = [];
const two: Sample[] = [];
const warm: Sample[] = [];
const kinds = [
  () => run(1).then((sample) => one.push(sample)),
  () => run(2).then((sample) => two.push(sample)),
  () => run(2, { cache: 'warm' }).then((sample) => warm.push(sample)),
];
for (let repeat = 0; repeat < repeats; repeat++)
  for (let index = 0; index < kinds.length; index++)
    await (kinds[(index + repeat) % kinds.length] as () => Promise<number>)();

const of = (entries: readonly Sample[], pick: (sample: Sample) => number) => median(entries.map(pick));
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(58)} ${value}\n`);
process.stdout.write(
  `replay bench on ${path} (--tasks ${tasks} --split ${split}, one seed) from ${fromDist ? 'dist/ (node)' : 'src/ (tsx)'}, a fresh process per run (medians of ${repeats} runs; floor of ${floor.length}); cold runs start from an empty answer-key cache, warm runs read the keys a first run saved\n`,
);
line('floor: read + parse dataset', `${median(floor).toFixed(0)} ms, peak RSS ${floorRssMb.toFixed(0)} MB`);
for (const [label, entries] of [
  ['1 worker', one],
  ['2 workers', two],
  ['2 workers, warm', warm],
] as const) {
  line(`${label}: wall time (load + prepare + grid)`, seconds(of(entries, (sample) => sample.wallMs)));
  line(
    `${label}: peak RSS (process, all threads)`,
    `${of(entries, (sample) => sample.peakRssMb).toFixed(0)} MB (runs: ${entries.map((sample) => sample.peakRssMb.toFixed(0)).join(', ')})`,
  );
  line(`${label}: grid only (plan + replay)`, seconds(of(entries, (sample) => sample.gridMs)));
  line(`${label}: of which planning attacks`, seconds(of(entries, (sample) => sample.planMs)));
  line(`${label}: CPU time (all threads)`, seconds(of(entries, (sample) => sample.cpuMs)));
  line(`${label}: CPU time of the main thread`, seconds(of(entries, (sample) => sample.mainThreadCpuMs ?? Number.NaN)));
  line(
    `${label}: proposals evaluated per second`,
    `${Math.round((entries[0]?.proposals ?? 0) / (of(entries, (sample) => sample.wallMs) / 1000)).toLocaleString('en-US')} (${(entries[0]?.proposals ?? 0).toLocaleString('en-US')} proposals)`,
  );
}
// With 2 workers the calling thread is one lane and one worker thread the other.
line(
  '2 workers: CPU time of the worker thread',
  two.map((sample) => sample.workerCpuMs.map((value) => seconds(value)).join(' + ')).join(', '),
);
// With two free cores the wall time is about the busier lane's thread CPU (this thread loads,
// prepares and plans besides replaying its share of the conditions).
const critical = (sample: Sample) => Math.max(sample.mainThreadCpuMs ?? Number.NaN, ...sample.workerCpuMs);
line('2 workers: busier lane thread CPU (main or worker)', seconds(of(two, critical)));
line(
  'wall time ratio 1 worker / 2 workers',
  `${(of(one, (sample) => sample.wallMs) / of(two, (sample) => sample.wallMs)).toFixed(2)}×`,
);
line(
  'thread CPU ratio 1 worker / busier lane',
  `${(of(one, (sample) => sample.mainThreadCpuMs ?? Number.NaN) / of(two, critical)).toFixed(2)}× (expected speed-up on 2 free cores)`,
);
line(
  'CPU time ratio 2 workers / 1 worker',
  `${(of(two, (sample) => sample.cpuMs) / of(one, (sample) => sample.cpuMs)).toFixed(2)}×`,
);
line(
  'load average at start / end (1 min)',
  `${loadAtStart.toFixed(1)} / ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores`,
);
line('wall time / floor (2 workers)', `${(of(two, (sample) => sample.wallMs) / median(floor)).toFixed(0)}×`);
line(
  'wall time ratio cold / warm key cache (2 workers)',
  `${(of(two, (sample) => sample.wallMs) / of(warm, (sample) => sample.wallMs)).toFixed(2)}×`,
);
// Issue #9 item 8: the full MATH-L5 grid (one seed) in at most 8 s and 300 MB peak RSS, default workers.
for (const [label, entries] of [
  ['2 workers, cold', two],
  ['2 workers, warm', warm],
] as const) {
  const wall = of(entries, (sample) => sample.wallMs) / 1000;
  const rss = of(entries, (sample) => sample.peakRssMb);
  line(
    `target (${label}): wall ≤ 8 s, peak RSS ≤ 300 MB`,
    `${wall.toFixed(2)} s ${wall <= 8 ? 'met' : 'missed'}, ${rss.toFixed(0)} MB ${rss <= 300 ? 'met' : 'missed'}`,
  );
}
