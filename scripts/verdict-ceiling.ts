// What a verifier's verdicts add to a clean team's vote, and how far a vote with them can go against
// the team's best member (issue 37: "with a verifier, the team beats its best member"). For the clean
// teams of `repute replay` (same tasks, teams, seeds and verifier), prints per composition, in %:
// - best member: the team's best member on these tasks;
// - oracle vote: the clone-capped log-odds vote with each member's true accuracy on these tasks
//   (hindsight; no method is told it), best collision q_vote of {0.15, 0.5, 1.5};
// - oracle + verdicts: the same vote plus each answer's verdict log-likelihood ratio times a scale
//   in {0.25, 0.5, 1}, with the verifier's per-answer rates measured on this team's tasks (hindsight
//   again), best q_vote and scale;
// - online, verdict rates: a vote an online method could take with the verifier's per-answer rates
//   known: each member's accuracy estimated before each task from the verdicts on its earlier answers,
//   p = (acceptance − (1 − spec)) / (sens − (1 − spec)), Beta(1, 1), plus the scaled verdict ratio;
//   best q_vote and scale.
// Nothing here is tuned or shipped: the "oracle" rows know what no method is told, and every row
// picks its best setting after the fact, which flatters it.
// Usage: npx tsx scripts/verdict-ceiling.ts [--verifier correlated|judge:<agent>] [--seeds 1..10]
//          [--split heldout|tuning|all] [--tasks 100|all] [--compositions all-strong,7s3w,pool] [dataset-dir]
import { datasetPath, flag } from './_args.js';
import { parseSeedsFlag } from '../src/cli/commands/replay.js';
import type { Proposal } from '../src/core/proposal.js';
import type { Task } from '../src/core/task.js';
import { assertKnownNames, assertOneOf } from '../src/core/validate.js';
import { loadDataset } from '../src/eval/proposals/load-dataset.js';
import { createDefaultAnswerOps } from '../src/eval/replay/default-answer-ops.js';
import { memoizeAnswerOps } from '../src/eval/replay/_memo-answer-ops.js';
import { buildGrid } from '../src/eval/replay/grid.js';
import { cappedSupport, logOddsWeight, winner } from '../src/eval/replay/_label-free-ceiling.js';
import { prepareReplay, splitChoices, type SplitChoice } from '../src/eval/replay/prepare.js';
import { createReplayJudge, withJudge } from '../src/eval/replay/replay-verifier.js';
import { allCompositionNames, type CompositionName, type ReplayVerifierSettings } from '../src/eval/replay/types.js';

const path = datasetPath();
const seeds = parseSeedsFlag(flag('--seeds') ?? '1..10');
const split = flag('--split') ?? 'heldout';
assertOneOf('--split', split, splitChoices);
const tasksFlag = flag('--tasks') ?? '100';
const tasks = tasksFlag === 'all' ? Number.MAX_SAFE_INTEGER : Number(tasksFlag);
const compositions = (flag('--compositions') ?? 'all-strong,7s3w,pool').split(',') as CompositionName[];
assertKnownNames('--compositions', compositions, allCompositionNames, 'composition');
const verifierFlag = flag('--verifier') ?? 'correlated';
const settings: ReplayVerifierSettings = verifierFlag.startsWith('judge:')
  ? { kind: 'judge', model: 'correlated', judge: verifierFlag.slice('judge:'.length), sensitivity: 0, specificity: 0 }
  : { kind: 'simulated', model: 'correlated', sensitivity: 0.85, specificity: 0.8 };
const voteCollisions = [0.15, 0.5, 1.5] as const;
/** Weights of the verdict's log-likelihood ratio beside the members' votes (1 = naive Bayes). */
const verdictScales = [0.25, 0.5, 1] as const;

const dataset = await loadDataset(path);
const ops = memoizeAnswerOps(createDefaultAnswerOps());
/** Per composition, per row label, one accuracy per (seed, team). */
const rows = new Map<CompositionName, Map<string, number[]>>();
const record = (composition: CompositionName, label: string, accuracy: number) => {
  const byLabel = rows.get(composition) ?? new Map<string, number[]>();
  rows.set(composition, byLabel);
  byLabel.set(label, [...(byLabel.get(label) ?? []), accuracy]);
};

for (const seed of seeds) {
  const sampled = prepareReplay({ dataset, ops, seed, tasks, split: split as SplitChoice }).prepared;
  const prepared = settings.kind === 'judge' ? withJudge(sampled, settings.judge as string) : sampled;
  const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
  for (const condition of buildGrid(prepared.agents, seed, { compositions })) {
    if (condition.attack !== null) continue;
    const judge = createReplayJudge({ prepared, settings, seed, conditionId: condition.id });
    if (judge === undefined) throw new Error('unreachable: a verifier is always set here');
    const members = condition.team.map((id) => position.get(id) as number);
    const team = { agents: condition.team, groups: members.map((member) => prepared.agents[member]?.model as string) };
    const taskCount = prepared.tasks.length;
    const keysOf = (t: number) => members.map((member) => prepared.tasks[t]?.keys[member] ?? null);
    const right = (t: number, key: string) => (prepared.tasks[t]?.scores[key]?.exact ?? 0) === 1;
    const verdict = (t: number, key: string): number => {
      const prepTask = prepared.tasks[t];
      if (prepTask === undefined) return 0;
      const task: Task = { id: prepTask.id, kind: prepTask.kind, prompt: prepTask.prompt };
      const proposal = { agentId: 'verdict-ceiling', taskId: task.id, round: 0, text: key, answer: key } as Proposal;
      return judge(t, task, proposal, () => right(t, key));
    };
    const accuracy = members.map(
      (_, slot) =>
        Array.from({ length: taskCount }, (_, t) => keysOf(t)[slot] ?? null).filter(
          (key, t) => key !== null && right(t, key),
        ).length / taskCount,
    );
    // The verifier's per-answer rates on this team's distinct answers (Beta(1, 1)).
    let accepted = 1;
    let rightAnswers = 2;
    let rejected = 1;
    let wrongAnswers = 2;
    for (let t = 0; t < taskCount; t++)
      for (const key of new Set(keysOf(t).filter((key): key is string => key !== null))) {
        const v = verdict(t, key);
        if (right(t, key)) {
          rightAnswers++;
          accepted += v;
        } else {
          wrongAnswers++;
          rejected += 1 - v;
        }
      }
    const acceptRight = accepted / rightAnswers;
    const rejectWrong = rejected / wrongAnswers;
    const ratio = (v: number) =>
      v === 1 ? Math.log(acceptRight / (1 - rejectWrong)) : Math.log((1 - acceptRight) / rejectWrong);
    const voteRight = (weightsAt: (t: number) => readonly number[], verdictScale: number) => {
      let count = 0;
      for (let t = 0; t < taskCount; t++) {
        const support = cappedSupport(team, keysOf(t), weightsAt(t));
        if (verdictScale > 0)
          for (const [key, value] of support) support.set(key, value + verdictScale * ratio(verdict(t, key)));
        const answer = winner(support);
        if (answer !== null && right(t, answer)) count++;
      }
      return count / taskCount;
    };
    const best = (values: readonly number[]) => Math.max(...values);
    record(condition.composition, 'best member', best(accuracy));
    const oracleWeights = (q: number) => () => accuracy.map((p) => logOddsWeight(p, q));
    record(condition.composition, 'oracle vote', best(voteCollisions.map((q) => voteRight(oracleWeights(q), 0))));
    record(
      condition.composition,
      'oracle + verdicts',
      best(voteCollisions.flatMap((q) => verdictScales.map((scale) => voteRight(oracleWeights(q), scale)))),
    );
    // Online: the accuracies each task's vote could know, from the verdicts on earlier answers.
    const estimates: number[][] = [];
    const acceptances = members.map(() => 1);
    const answered = members.map(() => 2);
    for (let t = 0; t < taskCount; t++) {
      estimates.push(
        acceptances.map((sum, slot) => {
          const rate = sum / (answered[slot] as number);
          return Math.min(0.99, Math.max(0.01, (rate - (1 - rejectWrong)) / (acceptRight - (1 - rejectWrong))));
        }),
      );
      keysOf(t).forEach((key, slot) => {
        answered[slot] = (answered[slot] as number) + 1;
        if (key !== null) acceptances[slot] = (acceptances[slot] as number) + verdict(t, key);
      });
    }
    record(
      condition.composition,
      'online, verdict rates',
      best(
        voteCollisions.flatMap((q) =>
          verdictScales.map((scale) =>
            voteRight((t) => (estimates[t] as number[]).map((p) => logOddsWeight(p, q)), scale),
          ),
        ),
      ),
    );
  }
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const labels = ['best member', 'oracle vote', 'oracle + verdicts', 'online, verdict rates'];
console.log(
  `${path}, verifier ${verifierFlag}, ${split} split, seeds ${seeds.join(',')}, ${tasksFlag} tasks; clean teams; accuracy in %`,
);
console.log(`${'composition'.padEnd(12)}${labels.map((label) => label.padStart(23)).join('')}`);
for (const composition of compositions) {
  const byLabel = rows.get(composition);
  if (byLabel === undefined) continue;
  console.log(
    `${composition.padEnd(12)}${labels.map((label) => (100 * mean(byLabel.get(label) ?? [])).toFixed(1).padStart(23)).join('')}`,
  );
}
