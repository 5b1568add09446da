// Measures the excess agreement of the clone inference (src/aggregation/minirep-clone-inference.ts)
// on the TUNING split: per dataset, the pairs of distinct declared groups in the zoo's recorded teams
// (tuning seeds), and the simulated profiles' pairs split into true copies and the rest. Prints the
// distribution (quantiles) of the excess wilsonLower(s, n, z) − e and of the point excess r − e, the
// pairs that would be flagged at the given margin, and the real pairs with the largest excess.
// Usage: npx tsx scripts/clone-excess.ts [--seeds 101,102,103] [--tasks 100] [--margin 0.25] [--z 2]
//          [--lower-start] [dataset-dir,dataset-dir]
import { flag } from './_args.js';
import { fitAgreement } from '../src/aggregation/minirep-clone-inference.js';
import { loadDataset } from '../src/eval/proposals/load-dataset.js';
import { createDefaultAnswerOps } from '../src/eval/replay/default-answer-ops.js';
import { prepareReplay } from '../src/eval/replay/prepare.js';
import type { PreparedReplay } from '../src/eval/replay/types.js';
import { simulateTeamDataset } from '../src/eval/zoo/simulated-team.js';
import {
  buildRecordedTeam,
  issueTeams,
  recordedShapeNames,
  type SimulatedShapeName,
  simulatedProfiles,
  simulatedShapeNames,
} from '../src/eval/zoo/zoo-teams.js';

const list = (value: string | undefined) =>
  value === undefined ? undefined : value.split(',').map((item) => item.trim());
const seeds = (list(flag('--seeds')) ?? ['101', '102', '103']).map(Number);
const tasks = Number(flag('--tasks') ?? 100);
const margin = Number(flag('--margin') ?? 0.25);
const z = Number(flag('--z') ?? 2);
const minTasks = Number(flag('--min-tasks') ?? 20);
const lowerStart = process.argv.includes('--lower-start');
const sizes = [3, 4, 5, 7, 10, 20, 40];
const positional = process.argv
  .slice(2)
  .find((value, index, all) => !value.startsWith('--') && !all[index - 1]?.startsWith('--'));
const ops = createDefaultAnswerOps();

interface PairFigure {
  label: string;
  excess: number;
  point: number;
  agreement: number;
  expected: number;
  tasks: number;
  flagged: boolean;
}

/** The pairs of one team over all its prepared tasks: counts, fit, figures. */
function teamPairs(prepared: PreparedReplay, team: readonly string[], label: string): PairFigure[] {
  const position = new Map(prepared.agents.map((agent, at) => [agent.id, at]));
  const groups = team.map((id) => prepared.agents[position.get(id) ?? 0]?.model ?? id);
  const m = team.length;
  const seen = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  const agree = Array.from({ length: m }, () => new Array<number>(m).fill(0));
  for (const task of prepared.tasks) {
    const keys = team.map((id) => task.keys[position.get(id) ?? 0] ?? null);
    for (let i = 0; i < m; i++)
      for (let j = i + 1; j < m; j++) {
        if (keys[i] === null || keys[j] === null) continue;
        const same = keys[i] === keys[j] ? 1 : 0;
        const [rowI, rowJ, agreeI, agreeJ] = [seen[i], seen[j], agree[i], agree[j]] as [
          number[],
          number[],
          number[],
          number[],
        ];
        rowI[j] = (rowI[j] ?? 0) + 1;
        rowJ[i] = (rowJ[i] ?? 0) + 1;
        agreeI[j] = (agreeI[j] ?? 0) + same;
        agreeJ[i] = (agreeJ[i] ?? 0) + same;
      }
  }
  const fit = fitAgreement({ seen, agree }, groups, { minTasks, margin, z, lowerStart });
  const flagged = new Set(fit.flagged.map((pair) => `${pair.left}-${pair.right}`));
  const out: PairFigure[] = [];
  for (let i = 0; i < m; i++)
    for (let j = i + 1; j < m; j++) {
      if (groups[i] === groups[j]) continue;
      const n = seen[i]?.[j] ?? 0;
      if (n < minTasks) continue;
      const s = agree[i]?.[j] ?? 0;
      const e = fit.expected[i]?.[j] ?? 0;
      const lower = wilson(s, n);
      out.push({
        label: `${label} ${team[i]}~${team[j]}`,
        excess: lower - e,
        point: s / n - e,
        agreement: s / n,
        expected: e,
        tasks: n,
        flagged: flagged.has(`${i}-${j}`),
      });
    }
  return out;
}

function wilson(s: number, n: number): number {
  const p = s / n;
  const z2 = z * z;
  return Math.max(0, (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n));
}

function quantiles(values: number[]): string {
  const sorted = values.slice().sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return [0.5, 0.9, 0.99, 1].map((q) => `${q === 1 ? 'max' : `q${q * 100}`} ${at(q).toFixed(3)}`).join(', ');
}

function report(name: string, pairs: PairFigure[]): void {
  const flagged = pairs.filter((pair) => pair.flagged);
  process.stdout.write(
    `${name}: ${pairs.length} pairs; excess (Wilson lower − expected) ${quantiles(pairs.map((p) => p.excess))}; point excess ${quantiles(pairs.map((p) => p.point))}; flagged at margin ${margin}: ${flagged.length}\n`,
  );
  for (const pair of pairs
    .slice()
    .sort((a, b) => b.excess - a.excess)
    .slice(0, 3))
    process.stdout.write(
      `  top: ${pair.label}: agreement ${pair.agreement.toFixed(2)} vs ${pair.expected.toFixed(2)} over ${pair.tasks} (excess ${pair.excess.toFixed(3)})\n`,
    );
}

for (const path of list(positional) ?? []) {
  const dataset = await loadDataset(path);
  const pairs: PairFigure[] = [];
  for (const seed of seeds) {
    const { prepared } = prepareReplay({ dataset, ops, seed, tasks, split: 'tuning', file: path, minAgents: 3 });
    for (const shape of recordedShapeNames)
      for (const size of sizes) {
        const team = buildRecordedTeam(shape, prepared.agents, size, seed);
        if (team !== undefined) pairs.push(...teamPairs(prepared, team, `${shape} ${size} s${seed}`));
      }
  }
  report(dataset.name, pairs);
}
if (!process.argv.includes('--no-simulated')) {
  const copies: PairFigure[] = [];
  const rest: PairFigure[] = [];
  for (const seed of seeds)
    for (const [shape, size] of [
      ...simulatedShapeNames.flatMap((name) => sizes.map((at) => [name, at] as const)),
      ...Object.entries(issueTeams).map(([name, team]) => [name, team.length] as const),
    ]) {
      const profiles =
        shape in issueTeams ? [...(issueTeams[shape] ?? [])] : simulatedProfiles(shape as SimulatedShapeName, size);
      const dataset = simulateTeamDataset({ name: shape, profiles, tasks: tasks * 6 + 50, seed });
      const { prepared } = prepareReplay({ dataset, ops, seed, tasks, split: 'tuning', minAgents: 3 });
      const copier = new Set(profiles.filter((p) => p.copies !== undefined).map((p) => p.id));
      if (copier.size > 0) copier.add('s00');
      for (const pair of teamPairs(
        prepared,
        prepared.agents.map((agent) => agent.id),
        `${shape} ${size} s${seed}`,
      )) {
        const [left, right] = pair.label.split(' ').at(-1)?.split('~') ?? [];
        (copier.has(left ?? '') && copier.has(right ?? '') ? copies : rest).push(pair);
      }
    }
  report('simulated copies', copies);
  report('simulated other pairs', rest);
}
