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
// Usage: npx tsx scripts/label-free-ceiling.ts [--seeds 1..10] [--split heldout|tuning|all]
//          [--tasks 100] [--compositions all-strong,all-weak,7s3w,random,pool] [dataset-dir]
import { datasetPath, flag } from './_args.js';
import { parseSeedsFlag } from '../src/cli/commands/replay.js';
import { assertKnownNames, assertOneOf } from '../src/core/validate.js';
import { loadDataset } from '../src/eval/proposals/load-dataset.js';
import { createDefaultAnswerOps } from '../src/eval/replay/default-answer-ops.js';
import { memoizeAnswerOps } from '../src/eval/replay/_memo-answer-ops.js';
import { splitChoices, type SplitChoice } from '../src/eval/replay/prepare.js';
import { allCompositionNames, type CompositionName } from '../src/eval/replay/types.js';
import {
  ceilingByComposition,
  ceilingEmCollisions,
  ceilingVoteCollisions,
} from '../src/eval/replay/_label-free-ceiling.js';

const path = datasetPath();
const seeds = parseSeedsFlag(flag('--seeds') ?? '1..10');
const split = flag('--split') ?? 'heldout';
assertOneOf('--split', split, splitChoices);
const tasks = Number(flag('--tasks') ?? 100);
const compositions = (flag('--compositions') ?? allCompositionNames.join(',')).split(',') as CompositionName[];
assertKnownNames('--compositions', compositions, allCompositionNames, 'composition');

const dataset = await loadDataset(path);
const rows = ceilingByComposition({
  dataset,
  ops: memoizeAnswerOps(createDefaultAnswerOps()),
  seeds,
  tasks,
  split: split as SplitChoice,
  compositions,
});
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
