// A correlated simulated verifier (ours): a judge whose errors follow what real judges show rather
// than independent coin flips. One verdict per (task, answer key), so every agent giving the same
// answer gets the same verdict, in every condition that replays the task. Its error rates follow
// two published regularities of LLM verifiers:
//   - Zhou et al. 2025, "Variation in Verification" (arXiv 2509.17995): verifiers accept correct
//     answers less reliably on hard problems (true-positive rate falls with difficulty, measured as
//     the share of generators that fail the problem), and the errors of strong generators are harder
//     to catch than those of weak ones;
//   - Goel et al. 2025, "Great Models Think Alike and this Undermines AI Oversight" (arXiv
//     2502.04313): model mistakes are correlated, and a judge is biased towards answers that models
//     similar to it give, so a wrong answer many models share fools a judge more often.
// The model, with σ the logistic function, s the share of the pool giving the wrong answer key a on
// the task and d the task's difficulty (the share of the pool that is wrong on it):
//   P(accept | a wrong)  = σ(α + β_s · s)        (false accept; rises with s)
//   P(reject | a right)  = σ(γ + β_d · d)        (false reject; rises with d)
// The slopes β_s, β_d fix the shape; the intercepts α, γ are solved (bisection, the mean is monotone
// in the intercept) so that the mean false-accept rate over the wrong proposals is 1 − sensitivity
// and the mean false-reject rate over the right proposals is 1 − specificity.
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import { createRng, deriveSeed } from '../core/rng.js';
import type { Task } from '../core/task.js';
import { assertInRange } from '../core/validate.js';
import type { Verifier } from './verifier.js';

/** The slopes of the correlated verifier's two error curves (logit units per unit of share). */
export interface CorrelatedVerifierShape {
  /** β_s ≥ 0: rise of the false-accept logit from a wrong answer no one else gives (s = 0) to one the whole pool gives (s = 1). */
  readonly shareSlope: number;
  /** β_d ≥ 0: rise of the false-reject logit from an easy task (d = 0) to one the whole pool gets wrong (d = 1). */
  readonly difficultySlope: number;
}

/**
 * The default shape, measured on the declared tuning split of MATH-L5 (147 tasks) with each of the
 * 40 recorded models in turn acting as an answer-matching judge over the other 39
 * (`npx tsx scripts/judge-shape.ts --split tuning --judges 40`, docs/replay.md): maximum-likelihood
 * logistic fits of P(accept | wrong) on s and of P(reject | right) on d, median over the judges
 * (β_s 9.06, β_d 6.54), rounded. The published studies give the direction but no slope we could read
 * off (Zhou et al. 2025: true positives fall with difficulty; Goel et al. 2025: shared mistakes fool
 * judges), so the magnitude is this measurement of real models' answers.
 */
export const correlatedVerifierShape: CorrelatedVerifierShape = { shareSlope: 9, difficultySlope: 6.5 };

/** The calibrated curves: the shape plus the intercepts that make the means equal the flags. */
export interface CorrelatedVerifierCalibration extends CorrelatedVerifierShape {
  /** α: false-accept logit of a wrong answer given by no pool agent. */
  readonly acceptIntercept: number;
  /** γ: false-reject logit of a right answer on a task every pool agent gets right. */
  readonly rejectIntercept: number;
  /** Target P(judged wrong | wrong), the mean of 1 − P(accept | wrong) over the wrong proposals. */
  readonly sensitivity: number;
  /** Target P(judged right | right), the mean of 1 − P(reject | right) over the right proposals. */
  readonly specificity: number;
}

/** σ(x) = 1 / (1 + e^(−x)). */
export function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * The intercept c with mean_i σ(c + slope · x_i) = target, found by bisection (the mean rises
 * strictly with c). A target of 0 or 1 gives −∞ or +∞ (the curve is 0 or 1 everywhere); an empty
 * list gives logit(target), the intercept of a flat curve.
 *
 * @example
 * solveIntercept({ covariates: [0, 1], slope: 0, target: 0.5 }); // 0
 */
export function solveIntercept({
  covariates,
  slope,
  target,
}: {
  covariates: readonly number[];
  slope: number;
  target: number;
}): number {
  assertInRange('target', target, 0, 1, { hint: 'the target is a mean rate in [0, 1]' });
  if (target === 0) return Number.NEGATIVE_INFINITY;
  if (target === 1) return Number.POSITIVE_INFINITY;
  if (covariates.length === 0) return Math.log(target / (1 - target));
  const meanAt = (intercept: number) => {
    let sum = 0;
    for (const x of covariates) sum += logistic(intercept + slope * x);
    return sum / covariates.length;
  };
  let low = -60;
  let high = 60;
  // 100 halvings of a width of 120 reach below double precision.
  for (let step = 0; step < 100; step++) {
    const middle = (low + high) / 2;
    if (meanAt(middle) < target) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/**
 * Calibrates the correlated verifier on a pool's proposals: `wrongShares` holds, for every
 * parseable wrong proposal, the share of the pool giving that answer on that task; `rightDifficulties`
 * holds, for every right proposal, its task's difficulty. The intercepts make the mean false-accept
 * rate over the wrong proposals 1 − `sensitivity` and the mean false-reject rate over the right ones
 * 1 − `specificity`.
 *
 * @example
 * const calibration = calibrateCorrelatedVerifier({ wrongShares, rightDifficulties, sensitivity: 0.85, specificity: 0.8 });
 */
export function calibrateCorrelatedVerifier({
  wrongShares,
  rightDifficulties,
  sensitivity,
  specificity,
  shape = correlatedVerifierShape,
}: {
  wrongShares: readonly number[];
  rightDifficulties: readonly number[];
  sensitivity: number;
  specificity: number;
  shape?: CorrelatedVerifierShape;
}): CorrelatedVerifierCalibration {
  assertInRange('sensitivity', sensitivity, 0, 1, { hint: 'pass e.g. sensitivity: 0.85' });
  assertInRange('specificity', specificity, 0, 1, { hint: 'pass e.g. specificity: 0.8' });
  for (const [name, value] of Object.entries(shape) as [keyof CorrelatedVerifierShape, number][]) {
    if (!Number.isFinite(value) || value < 0)
      throw new InvalidArgumentError({
        parameter: `shape.${name}`,
        value,
        message: `shape.${name} must be a finite slope ≥ 0, got ${value}; pass e.g. { shareSlope: 4, difficultySlope: 4 }`,
      });
  }
  return {
    ...shape,
    sensitivity,
    specificity,
    // mean over wrong proposals of σ(α + β_s · s) = 1 − sensitivity
    acceptIntercept: solveIntercept({ covariates: wrongShares, slope: shape.shareSlope, target: 1 - sensitivity }),
    // mean over right proposals of σ(γ + β_d · d) = 1 − specificity
    rejectIntercept: solveIntercept({
      covariates: rightDifficulties,
      slope: shape.difficultySlope,
      target: 1 - specificity,
    }),
  };
}

/** P(accept | wrong) = σ(α + β_s · s) of a wrong answer given by a share `share` of the pool. */
export function falseAcceptRate(calibration: CorrelatedVerifierCalibration, share: number): number {
  return logistic(calibration.acceptIntercept + calibration.shareSlope * share);
}

/** P(reject | right) = σ(γ + β_d · d) of a right answer on a task of difficulty `difficulty`. */
export function falseRejectRate(calibration: CorrelatedVerifierCalibration, difficulty: number): number {
  return logistic(calibration.rejectIntercept + calibration.difficultySlope * difficulty);
}

/**
 * One correlated verdict from a uniform draw u in [0, 1): a right answer is rejected when
 * u < P(reject | right, d), a wrong one is accepted when u < P(accept | wrong, s). A wrong answer
 * no pool agent gives (`share` undefined: an attacker's fabricated answer) is accepted with the
 * mean rate 1 − sensitivity, like an average wrong answer. Returns 1 (judged right) or 0.
 *
 * @example
 * correlatedVerdict({ calibration, correct: false, share: 0.6, difficulty: 0.7, draw: 0.1 });
 */
export function correlatedVerdict({
  calibration,
  correct,
  share,
  difficulty,
  draw,
}: {
  calibration: CorrelatedVerifierCalibration;
  correct: boolean;
  share: number | undefined;
  difficulty: number;
  draw: number;
}): 0 | 1 {
  if (correct) return draw < falseRejectRate(calibration, difficulty) ? 0 : 1;
  const accept = share === undefined ? 1 - calibration.sensitivity : falseAcceptRate(calibration, share);
  return draw < accept ? 1 : 0;
}

/** Options of {@link createCorrelatedVerifier}. */
export interface CorrelatedVerifierOptions {
  /** The calibrated curves ({@link calibrateCorrelatedVerifier}). */
  calibration: CorrelatedVerifierCalibration;
  /** Whether the proposal is actually correct (only the harness can answer this). */
  isCorrect: (task: Task, proposal: Proposal) => boolean;
  /** Share of the pool giving `answer` on the task, in [0, 1]; `undefined` when no pool agent gives it. */
  share: (task: Task, answer: string) => number | undefined;
  /** Difficulty of the task: the share of the pool that is wrong on it, in [0, 1]. */
  difficulty: (task: Task) => number;
  /** Seed of the verdict draws; each (task, answer) draws once from it. */
  seed: number;
}

/**
 * Creates the correlated simulated verifier: each (task, answer key) draws one verdict, seeded by
 * (seed, task id, answer) and not by the agent, so agents giving the same answer share it and every
 * condition replaying the task sees it again. An unparseable proposal is judged 0 without a draw.
 *
 * @example
 * const verifier = createCorrelatedVerifier({ calibration, seed: 1, isCorrect, share, difficulty });
 * verifier.verify({ task, proposal }); // 0 or 1
 */
export function createCorrelatedVerifier(
  options: CorrelatedVerifierOptions,
): Verifier & { readonly calibration: CorrelatedVerifierCalibration } {
  const { calibration, isCorrect, share, difficulty, seed } = options;
  return {
    name: `correlated(${calibration.sensitivity}/${calibration.specificity})`,
    calibration,
    verify({ task, proposal }) {
      if (proposal.answer === null) return 0;
      return correlatedVerdict({
        calibration,
        correct: isCorrect(task, proposal),
        share: share(task, proposal.answer),
        difficulty: difficulty(task),
        draw: createRng(deriveSeed(seed, task.id, proposal.answer))(),
      });
    },
  };
}
