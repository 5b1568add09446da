// How close can a label-free, agreement-weighted vote come to a clean team's best member? For the
// clean teams of `repute replay` (same tasks, teams and seeds), prints per composition, in %:
// - majority: one vote per member (clone-capped, as every vote here);
// - DS batch: Dawid & Skene's one-coin model fitted by EM on all the team's tasks at once, without
//   labels (src/eval/replay/_label-free-ceiling.ts), then a log-odds vote with those estimates; the
//   best of 12 settings (EM's q × the vote's q) chosen per composition in hindsight;
// - DS online: the same fit, refitted before each task on the tasks before it only (warm-started,
//   5 EM steps), as an online method would have to; best of the same 12 settings in hindsight;
// - DS top-1: the accuracy of the member the batch fit ranks first;
// - oracle: the same vote with each member's true accuracy on these tasks (hindsight), best vote q;
// - best member: the team's best member on these tasks.
// The batch fit sees every answer of every task, past and future, and the settings are picked after
// the fact, so "DS batch" flatters what any online label-free method (MiniRep included) can reach.
// With --baselines <conditions.csv> (of a `repute replay --out` run with the same seeds, split and
// tasks), it also counts strict wins over the best of the six baselines on the attacked conditions
// (ADAPT left out: its attacks follow MiniRep's own run) of two references that know what no method
// is told, best setting in hindsight: the oracle vote (each member's true accuracy in the condition,
// attackers included) and the honest online vote (the attackers left out, the honest members weighted
// by the online one-coin fit), next to MiniRep's strict wins from the same file.
// Usage: npx tsx scripts/label-free-ceiling.ts [--seeds 1..10] [--split heldout|tuning|all]
//          [--tasks 100] [--compositions all-strong,all-weak,7s3w,random,pool]
//          [--baselines out/conditions.csv] [dataset-dir]
import { readFileSync } from 'node:fs';
import { datasetPath, flag } from './_args.js';
import { parseSeedsFlag } from '../src/cli/commands/replay.js';
import { assertKnownNames, assertOneOf } from '../src/core/validate.js';
import { loadDataset } from '../src/eval/proposals/load-dataset.js';
import { createDefaultAnswerOps } from '../src/eval/replay/default-answer-ops.js';
import { memoizeAnswerOps } from '../src/eval/replay/_memo-answer-ops.js';
import { splitChoices, type SplitChoice } from '../src/eval/replay/prepare.js';
import { allCompositionNames, type CompositionName } from '../src/eval/replay/types.js';
import { replayMethodNames } from '../src/eval/replay/methods.js';
import { attackNames } from '../src/eval/replay/types.js';
import {
  attackedReferences,
  ceilingByComposition,
  ceilingEmCollisions,
  ceilingVoteCollisions,
  referenceWins,
} from '../src/eval/replay/_label-free-ceiling.js';

const path = datasetPath();
const seeds = parseSeedsFlag(flag('--seeds') ?? '1..10');
const split = flag('--split') ?? 'heldout';
assertOneOf('--split', split, splitChoices);
const tasks = Number(flag('--tasks') ?? 100);
const compositions = (flag('--compositions') ?? allCompositionNames.join(',')).split(',') as CompositionName[];
assertKnownNames('--compositions', compositions, allCompositionNames, 'composition');

// One answer table for both parts: the attacked references score the same keys again.
const input = {
  dataset: await loadDataset(path),
  ops: memoizeAnswerOps(createDefaultAnswerOps()),
  seeds,
  tasks,
  split: split as SplitChoice,
};
const rows = ceilingByComposition({ ...input, compositions });
const emCollisions = ceilingEmCollisions;
const voteCollisions = ceilingVoteCollisions;

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const percent = (value: number) => (100 * value).toFixed(1).padStart(5);
const settings = emCollisions.flatMap((em) => voteCollisions.map((vote) => `q_em ${em}, q_vote ${vote}`));
console.log(`${path}, ${split} split, seeds ${seeds.join(',')}, ${tasks} tasks; clean teams; accuracy in %`);
console.log(
  'composition  majority  DS batch (setting)               DS online (setting)              DS top-1  oracle (q_vote)  best member',
);
for (const composition of compositions) {
  const list = rows.get(composition) ?? [];
  if (list.length === 0) continue;
  const batch = settings.map((_, index) => mean(list.map((row) => row.batch[index] as number)));
  const bestBatch = batch.indexOf(Math.max(...batch));
  const online = settings.map((_, index) => mean(list.map((row) => row.online[index] as number)));
  const bestOnline = online.indexOf(Math.max(...online));
  const oracle = voteCollisions.map((_, index) => mean(list.map((row) => row.oracle[index] as number)));
  const bestOracle = oracle.indexOf(Math.max(...oracle));
  console.log(
    `${composition.padEnd(11)} ${percent(mean(list.map((row) => row.majority)))}     ${percent(batch[bestBatch] as number)} (${(settings[bestBatch] as string).padEnd(23)})` +
      `   ${percent(online[bestOnline] as number)} (${(settings[bestOnline] as string).padEnd(23)})` +
      `   ${percent(mean(list.map((row) => row.topOne)))}    ${percent(oracle[bestOracle] as number)} (${voteCollisions[bestOracle]})` +
      `       ${percent(mean(list.map((row) => row.best)))}`,
  );
}

const baselinesFile = flag('--baselines');
if (baselinesFile !== undefined) {
  // conditions.csv: one row per (seed, condition, method); its fields hold no commas.
  const [header, ...lines] = readFileSync(baselinesFile, 'utf8').trim().split('\n');
  const columns = (header ?? '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const baselines = replayMethodNames.filter((name) => name !== 'minirep');
  const best = new Map<string, number>();
  const miniRepWins = new Map<string, number>();
  const covered = new Set<string>();
  for (const line of lines) {
    const fields = line.split(',');
    covered.add(fields[at('composition')] as string);
    const key = `${fields[at('seed')]} ${fields[at('condition')]}`;
    const method = fields[at('method')] as string;
    if (baselines.includes(method)) best.set(key, Math.max(best.get(key) ?? 0, Number(fields[at('accuracy')])));
    if (method === 'minirep') miniRepWins.set(key, Number(fields[at('strictWin')]));
  }
  // The compositions the baseline run covered (the paper's four unless it was run with --compositions).
  const attackedCompositions = compositions.filter((name) => covered.has(name));
  const references = attackedReferences({ ...input, compositions: attackedCompositions });
  const { all, byAttack } = referenceWins(references, (seed, condition) => best.get(`${seed} ${condition}`));
  const attacks = attackNames.filter((attack) => attack !== 'ADAPT');
  const perSeed = (count: number) => (count / seeds.length).toFixed(1).padStart(5);
  const bestIndex = (values: readonly number[]) => values.indexOf(Math.max(...values));
  const oracleAt = bestIndex(all.oracle);
  const onlineAt = bestIndex(all.honestOnline);
  const onlineSettings = ceilingEmCollisions.flatMap((em) =>
    voteCollisions.map((vote) => `q_em ${em}, q_vote ${vote}`),
  );
  const miniRepOf = (attack?: string) =>
    references.filter(
      (row) => (attack === undefined || row.attack === attack) && miniRepWins.get(`${row.seed} ${row.condition}`) === 1,
    ).length;
  // ADAPT conditions of the seeds and compositions above (condition ids start with the composition).
  const adaptWins = [...miniRepWins.entries()].filter(([key, win]) => {
    const [seed, condition = ''] = key.split(' ');
    return (
      win === 1 &&
      condition.endsWith('/ADAPT') &&
      seeds.includes(Number(seed)) &&
      attackedCompositions.some((name) => condition.startsWith(`${name}/`))
    );
  }).length;
  console.log(
    `\nattacked conditions but ADAPT, ${all.conditions / seeds.length} per seed; strict wins per seed over the best of ${baselines.join(', ')} (from ${baselinesFile})`,
  );
  console.log(`${'reference'.padEnd(66)}   all${attacks.map((attack) => attack.padStart(7)).join('')}`);
  const line = (label: string, total: number, pick: (attack: (typeof attacks)[number]) => number) =>
    console.log(
      `${label.padEnd(66)} ${perSeed(total)}${attacks.map((attack) => perSeed(pick(attack)).padStart(7)).join('')}`,
    );
  line(
    `oracle vote, true accuracies (q_vote ${voteCollisions[oracleAt]})`,
    all.oracle[oracleAt] as number,
    (attack) => byAttack.get(attack)?.oracle[oracleAt] ?? 0,
  );
  line(
    `honest online vote, attackers left out (${onlineSettings[onlineAt]})`,
    all.honestOnline[onlineAt] as number,
    (attack) => byAttack.get(attack)?.honestOnline[onlineAt] ?? 0,
  );
  line('minirep (strictWin in the file)', miniRepOf(), (attack) => miniRepOf(attack));
  console.log(
    `ADAPT (not replayed here): minirep ${perSeed(adaptWins).trim()} of ${(references.length / seeds.length / attacks.length).toFixed(0)} per seed`,
  );
}
