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
import { buildGrid } from '../src/eval/replay/grid.js';
import { prepareReplay, splitChoices, type SplitChoice } from '../src/eval/replay/prepare.js';
import { allCompositionNames, type CompositionName } from '../src/eval/replay/types.js';
import {
  cappedSupport,
  fitOneCoin,
  logOddsWeight,
  winner,
  type TeamAnswers,
} from '../src/eval/replay/_label-free-ceiling.js';

const path = datasetPath();
const seeds = parseSeedsFlag(flag('--seeds') ?? '1..10');
const split = flag('--split') ?? 'heldout';
assertOneOf('--split', split, splitChoices);
const tasks = Number(flag('--tasks') ?? 100);
const compositions = (flag('--compositions') ?? allCompositionNames.join(',')).split(',') as CompositionName[];
assertKnownNames('--compositions', compositions, allCompositionNames, 'composition');

const emCollisions = [0.15, 0.3, 0.5];
const voteCollisions = [0.15, 0.5, 1, 1.5];

/** Share of tasks where the clone-capped vote with `weights` picks an answer graded correct. */
function voteAccuracy(team: TeamAnswers, correct: (task: number, key: string) => boolean, weights: number[]): number {
  let right = 0;
  team.answers.forEach((keys, task) => {
    const answer = winner(cappedSupport(team, keys, weights));
    if (answer !== null && correct(task, answer)) right++;
  });
  return right / team.answers.length;
}

/**
 * Share of tasks right when each task is decided with the one-coin fit of the tasks before it
 * (the first task with equal estimates, i.e. a clone-capped majority), for each vote q.
 */
function onlineAccuracy(
  team: TeamAnswers,
  correct: (task: number, key: string) => boolean,
  emCollision: number,
): number[] {
  const right = voteCollisions.map(() => 0);
  let estimate = team.agents.map(() => 0.6);
  team.answers.forEach((keys, task) => {
    if (task > 0)
      estimate = fitOneCoin(
        { ...team, answers: team.answers.slice(0, task) },
        { collision: emCollision, iterations: 5, start: estimate },
      );
    voteCollisions.forEach((voteCollision, index) => {
      const answer = winner(
        cappedSupport(
          team,
          keys,
          estimate.map((p) => logOddsWeight(p, voteCollision)),
        ),
      );
      if (answer !== null && correct(task, answer)) right[index] = (right[index] as number) + 1;
    });
  });
  return right.map((count) => count / team.answers.length);
}

interface Row {
  majority: number;
  batch: number[];
  online: number[];
  topOne: number;
  oracle: number[];
  best: number;
}
const rows = new Map<CompositionName, Row[]>();
const dataset = await loadDataset(path);
const ops = memoizeAnswerOps(createDefaultAnswerOps());
for (const seed of seeds) {
  const { prepared } = prepareReplay({ dataset, ops, seed, tasks, split: split as SplitChoice });
  const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
  for (const condition of buildGrid(prepared.agents, seed, { compositions })) {
    if (condition.attack !== null) continue;
    const members = condition.team.map((id) => position.get(id) as number);
    const team: TeamAnswers = {
      agents: condition.team,
      groups: members.map((member) => prepared.agents[member]?.model as string),
      answers: prepared.tasks.map((task) => members.map((member) => task.keys[member] ?? null)),
    };
    const correct = (task: number, key: string) => (prepared.tasks[task]?.scores[key]?.exact ?? 0) === 1;
    const accuracy = members.map(
      (_, index) =>
        team.answers.filter((keys, task) => keys[index] !== null && correct(task, keys[index] as string)).length /
        team.answers.length,
    );
    const batch: number[] = [];
    const online: number[] = [];
    let topOne = 0;
    for (const emCollision of emCollisions) {
      online.push(...onlineAccuracy(team, correct, emCollision));
      const estimate = fitOneCoin(team, { collision: emCollision });
      for (const voteCollision of voteCollisions)
        batch.push(
          voteAccuracy(
            team,
            correct,
            estimate.map((p) => logOddsWeight(p, voteCollision)),
          ),
        );
      if (emCollision === 0.5) topOne = accuracy[estimate.indexOf(Math.max(...estimate))] as number;
    }
    const row: Row = {
      majority: voteAccuracy(
        team,
        correct,
        members.map(() => 1),
      ),
      batch,
      online,
      topOne,
      oracle: voteCollisions.map((voteCollision) =>
        voteAccuracy(
          team,
          correct,
          accuracy.map((p) => logOddsWeight(p, voteCollision)),
        ),
      ),
      best: Math.max(...accuracy),
    };
    const list = rows.get(condition.composition) ?? [];
    list.push(row);
    rows.set(condition.composition, list);
  }
}

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
