// The shape of a real judge's errors, measured on recorded data: every model of the dataset in turn
// acts as an answer-matching judge (a proposal is judged right iff its key equals the judge's own key
// on the task, as `repute replay --verifier judge:<agent>` does) over the rest of the pool, and we fit
//   P(accept | wrong) = σ(α + β_s · s)   (s: share of the pool giving that wrong key on the task)
//   P(reject | right) = σ(γ + β_d · d)   (d: share of the pool wrong on the task)
// by maximum likelihood (Newton–Raphson on the two-parameter logistic log-likelihood). Prints the
// rates by bins and the fitted slopes per judge, and the median slopes over the judges ranked
// 1..--judges. Meant for the declared tuning split only: the correlated verifier's default shape
// (`correlatedVerifierShape`) comes from here.
// Usage: npx tsx scripts/judge-shape.ts [--split tuning] [--judges 20] [dataset-dir]
import { datasetPath, flag } from './_args.js';
import { assertOneOf } from '../src/core/validate.js';
import { loadDataset } from '../src/eval/proposals/load-dataset.js';
import { createDefaultAnswerOps } from '../src/eval/replay/default-answer-ops.js';
import { memoizeAnswerOps } from '../src/eval/replay/_memo-answer-ops.js';
import { prepareReplay, splitChoices, type SplitChoice } from '../src/eval/replay/prepare.js';
import { poolAnswerStats, withJudge } from '../src/eval/replay/replay-verifier.js';

const split = flag('--split') ?? 'tuning';
assertOneOf('--split', split, splitChoices);
const judges = Number(flag('--judges') ?? 20);
const dataset = await loadDataset(datasetPath());
const { prepared } = prepareReplay({
  dataset,
  ops: memoizeAnswerOps(createDefaultAnswerOps()),
  seed: 1,
  tasks: Number.MAX_SAFE_INTEGER,
  split: split as SplitChoice,
  file: datasetPath(),
});

/** Maximum-likelihood logistic fit of y ∈ {0, 1} on x: Newton–Raphson, 50 steps. */
function fitLogistic(points: readonly { x: number; y: number }[]): { intercept: number; slope: number } {
  let a = 0;
  let b = 0;
  for (let step = 0; step < 50; step++) {
    // gradient and Hessian of Σ y log p + (1 − y) log(1 − p), p = σ(a + b x)
    let ga = 0;
    let gb = 0;
    let haa = 0;
    let hab = 0;
    let hbb = 0;
    for (const { x, y } of points) {
      const p = 1 / (1 + Math.exp(-(a + b * x)));
      const w = p * (1 - p);
      ga += y - p;
      gb += (y - p) * x;
      haa += w;
      hab += w * x;
      hbb += w * x * x;
    }
    const det = haa * hbb - hab * hab;
    if (det <= 1e-12) break;
    a += (hbb * ga - hab * gb) / det;
    b += (haa * gb - hab * ga) / det;
  }
  return { intercept: a, slope: b };
}

const bins = [0, 0.1, 0.25, 0.5, 1.0001];
const binOf = (value: number) => bins.findIndex((edge, index) => value >= edge && value < (bins[index + 1] ?? 2));
const shareSlopes: number[] = [];
const difficultySlopes: number[] = [];
const acceptByBin = bins.slice(0, -1).map(() => ({ hit: 0, all: 0 }));
const rejectByBin = bins.slice(0, -1).map(() => ({ hit: 0, all: 0 }));
console.log(`split ${split}: ${prepared.tasks.length} tasks, ${prepared.agents.length} agents`);
console.log('judge                                   acc    sens   spec   beta_s  beta_d');
for (const agent of prepared.agents.slice(0, judges)) {
  const judged = withJudge(prepared, agent.id);
  const stats = poolAnswerStats(judged);
  const wrongPoints: { x: number; y: number }[] = [];
  const rightPoints: { x: number; y: number }[] = [];
  judged.tasks.forEach((task, taskIndex) => {
    const judgeKey = judged.judge?.keys[taskIndex] ?? null;
    const d = stats.difficulty[taskIndex] ?? 0;
    for (const key of task.keys) {
      if (key === null) continue;
      const accepted = key === judgeKey ? 1 : 0;
      if (task.scores[key]?.exact === 1) {
        rightPoints.push({ x: d, y: 1 - accepted });
        const cell = rejectByBin[binOf(d)];
        if (cell !== undefined) {
          cell.all++;
          cell.hit += 1 - accepted;
        }
      } else {
        const s = stats.shares[taskIndex]?.get(key) ?? 0;
        wrongPoints.push({ x: s, y: accepted });
        const cell = acceptByBin[binOf(s)];
        if (cell !== undefined) {
          cell.all++;
          cell.hit += accepted;
        }
      }
    }
  });
  const accept = fitLogistic(wrongPoints);
  const reject = fitLogistic(rightPoints);
  shareSlopes.push(accept.slope);
  difficultySlopes.push(reject.slope);
  const sens = 1 - wrongPoints.reduce((sum, point) => sum + point.y, 0) / wrongPoints.length;
  const spec = 1 - rightPoints.reduce((sum, point) => sum + point.y, 0) / rightPoints.length;
  const accuracy = prepared.accuracy[prepared.agents.indexOf(agent)] ?? 0;
  console.log(
    `${agent.id.padEnd(38)} ${(100 * accuracy).toFixed(1).padStart(5)}  ${(100 * sens).toFixed(1).padStart(5)}  ${(100 * spec).toFixed(1).padStart(5)}  ${accept.slope.toFixed(2).padStart(6)}  ${reject.slope.toFixed(2).padStart(6)}`,
  );
}
const median = (values: number[]) => {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
console.log(`median beta_s ${median(shareSlopes).toFixed(2)}, median beta_d ${median(difficultySlopes).toFixed(2)}`);
const describe = (cells: { hit: number; all: number }[], label: string) =>
  cells
    .map(
      (cell, index) =>
        `${label} in [${bins[index]}, ${Math.min(1, bins[index + 1] ?? 1)}): ${cell.all === 0 ? 'n/a' : `${((100 * cell.hit) / cell.all).toFixed(1)}%`} of ${cell.all}`,
    )
    .join('\n');
console.log(`false accepts (pooled over judges) by share s of the wrong key:\n${describe(acceptByBin, 's')}`);
console.log(`false rejects (pooled over judges) by difficulty d:\n${describe(rejectByBin, 'd')}`);
