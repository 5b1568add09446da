// npm run bench:replay — wall time and proposals evaluated per second of the full replay grid on
// MATH-L5, next to the floor (reading and parsing the dataset), and the 1-worker vs 2-worker ratio.
// Usage: tsx bench/replay.ts [dataset-dir] [--repeats N]
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

const runs: Record<number, { wall: number[]; grid: number[]; proposals: number }> = {};
for (const workers of [1, 2]) {
  runs[workers] = { wall: [], grid: [], proposals: 0 };
  for (let repeat = 0; repeat < repeats; repeat++) {
    const started = performance.now();
    const report = await runReplay({ path, workers });
    const entry = runs[workers] as { wall: number[]; grid: number[]; proposals: number };
    entry.wall.push(performance.now() - started);
    entry.grid.push(report.timing.gridMs);
    entry.proposals = report.timing.proposalsEvaluated;
  }
}

const one = runs[1] as { wall: number[]; grid: number[]; proposals: number };
const two = runs[2] as { wall: number[]; grid: number[]; proposals: number };
const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
process.stdout.write(`replay bench on ${path} (medians of ${repeats} runs; floor of ${floor.length})\n`);
line('floor: read + parse dataset', `${median(floor).toFixed(0)} ms`);
for (const [label, entry] of [['1 worker', one], ['2 workers', two]] as const) {
  line(`${label}: wall time (load + prepare + grid)`, `${(median(entry.wall) / 1000).toFixed(2)} s`);
  line(`${label}: grid only`, `${(median(entry.grid) / 1000).toFixed(2)} s`);
  line(`${label}: proposals evaluated per second`, `${Math.round(entry.proposals / (median(entry.wall) / 1000)).toLocaleString('en-US')} (${entry.proposals.toLocaleString('en-US')} proposals)`);
}
line('wall time ratio 1 worker / 2 workers', `${(median(one.wall) / median(two.wall)).toFixed(2)}×`);
line('wall time / floor (2 workers)', `${(median(two.wall) / median(floor)).toFixed(0)}×`);
