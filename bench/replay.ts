// npm run bench:replay — wall time and proposals evaluated per second of the full replay grid on
// MATH-L5, next to the floor (reading and parsing the dataset), and the 1-worker vs 2-worker ratio.
// Usage: tsx bench/replay.ts [dataset-dir] [--repeats N]
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../src/eval/proposals/load-dataset.js';
import { runReplay } from '../src/eval/replay/run-replay.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dataRoot = process.env.REPUTE_DATA_DIR ?? join(root, '..', 'shared', 'data');
const path = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : join(dataRoot, 'zeroeval-math-l5');
const repeatsFlag = process.argv.indexOf('--repeats');
const repeats = repeatsFlag > 0 ? Number(process.argv[repeatsFlag + 1]) : 3;

const median = (values: number[]) => {
  const sorted = values.slice().sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const floor: number[] = [];
for (let repeat = 0; repeat < Math.max(repeats, 3); repeat++) {
  const started = performance.now();
  await loadDataset(path);
  floor.push(performance.now() - started);
}

type Runs = { wall: number[]; grid: number[]; cpu: number[]; proposals: number };
const runs: Record<number, Runs> = {};
for (const workers of [1, 2]) {
  runs[workers] = { wall: [], grid: [], cpu: [], proposals: 0 };
  for (let repeat = 0; repeat < repeats; repeat++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const report = await runReplay({ path, workers });
    const cpu = process.cpuUsage(cpuStarted);
    const entry = runs[workers] as Runs;
    entry.wall.push(performance.now() - started);
    // CPU time of the whole process, worker threads included (user + system).
    entry.cpu.push((cpu.user + cpu.system) / 1000);
    entry.grid.push(report.timing.gridMs);
    entry.proposals = report.timing.proposalsEvaluated;
  }
}

const one = runs[1] as Runs;
const two = runs[2] as Runs;
const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
process.stdout.write(`replay bench on ${path} (medians of ${repeats} runs; floor of ${floor.length})\n`);
line('floor: read + parse dataset', `${median(floor).toFixed(0)} ms`);
for (const [label, entry] of [['1 worker', one], ['2 workers', two]] as const) {
  line(`${label}: wall time (load + prepare + grid)`, `${(median(entry.wall) / 1000).toFixed(2)} s`);
  line(`${label}: grid only`, `${(median(entry.grid) / 1000).toFixed(2)} s`);
  line(`${label}: CPU time (all threads)`, `${(median(entry.cpu) / 1000).toFixed(2)} s`);
  line(`${label}: proposals evaluated per second`, `${Math.round(entry.proposals / (median(entry.wall) / 1000)).toLocaleString('en-US')} (${entry.proposals.toLocaleString('en-US')} proposals)`);
}
line('wall time ratio 1 worker / 2 workers', `${(median(one.wall) / median(two.wall)).toFixed(2)}×`);
line('load average at the end (1 min)', `${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`);
line('wall time / floor (2 workers)', `${(median(two.wall) / median(floor)).toFixed(0)}×`);
