// Our MiniRep variants (not the paper's design): the option sets the replay, `repute run` and the
// served team endpoint share, so that a variant means the same thing wherever it is named.
import type { MiniRepAggregatorOptions } from './minirep-aggregator.js';
import type { VerifierCalibration } from './verifier.js';

/** Names of our MiniRep variants, in report order. */
export const miniRepVariantNames = [
  'minirep-lo',
  'minirep-ds',
  'minirep-rt',
  'minirep-es',
  'minirep-ic',
  'minirep-rt-ic-es',
  'minirep-ds-ic-es',
] as const;

/** A MiniRep variant name. */
export type MiniRepVariantName = (typeof miniRepVariantNames)[number];

/**
 * The aggregator options of each variant (given on top of `{ model, k }`):
 * - `minirep-lo` (MiniRep-LO): the history factor is the log-odds of a reliability learnt from
 *   agreement with the other clone groups (from external feedback once there is any), κ_lo = 8;
 * - `minirep-ds` (MiniRep-DS): the history factor is the vote weight of a reliability learnt from each
 *   proposal's leave-one-out posterior, and the bloc check flags blocs of 3 or more agents, not a lone pair;
 * - `minirep-rt` (MiniRep-RT): the paper's weights, but consensus feedback scores each agent against
 *   the answer the rest of the team's vote weights put first, not the decision its own weight helped make.
 * - `minirep-es` (MiniRep-ES): the paper's design, but under consensus feedback each agent's history
 *   factor is shrunk towards the team mean by how weak the label-free evidence separating the agents
 *   is (empirical Bayes), and the pool widens towards the whole team as that evidence weakens.
 * - `minirep-ic` (MiniRep-IC): the paper's design, but agents whose agreement across tasks exceeds what
 *   independence given their accuracies predicts (a robust rank-one fit of the pairwise agreement rates)
 *   are merged into one inferred clone group, which the clone cap and the pool treat as one model.
 * - `minirep-rt-ic-es`: the three together (MiniRep-RT's consensus target, MiniRep-IC's inferred
 *   clones, MiniRep-ES's shrinkage), the combination measured for issue 36.
 * - `minirep-ds-ic-es`: MiniRep-DS's leave-one-out posterior history with MiniRep-IC's inferred clones
 *   and MiniRep-ES's shrinkage, and the bloc check's size floor (`bloc.minShare` 0.15: a bloc is
 *   flagged once it holds 2 agents and 15 % of the answering agents, so a lone pair is not flagged in
 *   a team of 14 or more, where MiniRep-DS's floor of 3 would spare 2 colluders of 5).
 * See docs/minirep.md for why each is ours and how it was measured.
 */
export const miniRepVariantOptions: Readonly<
  Record<MiniRepVariantName, Readonly<Omit<MiniRepAggregatorOptions, 'model' | 'k'>>>
> = {
  'minirep-lo': { history: 'log-odds', logOddsQualityOffset: 8 },
  'minirep-ds': { history: 'posterior', bloc: { minSize: 3 } },
  'minirep-rt': { consensusTarget: 'rest-of-team' },
  'minirep-es': { shrinkage: {} },
  'minirep-ic': { inferClones: {} },
  'minirep-rt-ic-es': { consensusTarget: 'rest-of-team', inferClones: {}, shrinkage: {} },
  'minirep-ds-ic-es': { history: 'posterior', inferClones: {}, shrinkage: {}, bloc: { minShare: 0.15 } },
};

/**
 * MiniRep-VB (ours, not the paper's design; `minirep-vb` in the replay): on a task with verdicts the
 * verifier is one more annotator with a sensitivity and specificity learnt online without labels, and
 * the answer is the key with the highest posterior score: clone-capped log-odds votes (a leave-one-out
 * posterior history with the verdicts in each agent's evidence) times MiniRep's robustness factors,
 * plus the verdict's log-likelihood ratio. Without verdicts it is `minirep` unchanged.
 */
export const miniRepVbOptions: Readonly<Omit<MiniRepAggregatorOptions, 'model' | 'k'>> = {
  verifierEvidence: 'likelihood',
};

/** A verifier's declared sensitivity and specificity, measured by the user on labelled calibration tasks. */
export interface DeclaredVerifierCalibration {
  /**
   * P(accept | right) in (0, 1): MiniRep-VB's sensitivity (the replay and the simulated verifier call
   * this rate specificity, P(judged right | right); `minirep-vg@SENS:SPEC` converts).
   */
  readonly sensitivity: number;
  /** P(reject | wrong) in (0, 1): MiniRep-VB's specificity (the replay's sensitivity, P(judged wrong | wrong)). */
  readonly specificity: number;
}

/**
 * A verifier's rates as the replay, the simulated verifier and a team file state them (sensitivity =
 * P(judged wrong | wrong), specificity = P(judged right | right)) in MiniRep-VB's terms.
 *
 * @example
 * declaredCalibration({ sensitivity: 0.994, specificity: 0.948 }); // { sensitivity: 0.948, specificity: 0.994 }
 */
export function declaredCalibration(calibration: VerifierCalibration): DeclaredVerifierCalibration {
  return { sensitivity: calibration.specificity, specificity: calibration.sensitivity };
}

/** Pseudo-counts a declared calibration weighs as the Beta prior of MiniRep-VG's verifier rates (near-fixed rates). */
export const declaredCalibrationWeight = 1000;

/**
 * MiniRep-VG (ours, not the paper's design; `minirep-vg` in the replay): MiniRep-VB with a gate. When
 * the verifier is decisive (its verdict gap Δ = LLR(accept) − LLR(reject) at least twice the team's
 * consensus cap C) the answer is the best-scoring one the verifier accepts; otherwise, and when it
 * accepts none, MiniRep-VB's answer. With a declared calibration (sensitivity and specificity the
 * user measured on labelled tasks) the verifier's rates have that Beta prior with
 * {@link declaredCalibrationWeight} pseudo-counts, so they stay near the declared values; without
 * one they are learnt as MiniRep-VB learns them. Without verdicts it is `minirep` unchanged.
 */
export function miniRepVgOptions(
  calibration?: DeclaredVerifierCalibration,
): Readonly<Omit<MiniRepAggregatorOptions, 'model' | 'k'>> {
  const gate = { verifierEvidence: 'likelihood', verifierGate: { margin: 2 } } as const;
  if (calibration === undefined) return gate;
  const { sensitivity, specificity } = calibration;
  const n = declaredCalibrationWeight;
  return {
    ...gate,
    // Beta(n·sens, n·(1 − sens)) and Beta(n·spec, n·(1 − spec)): the declared rates as the prior means.
    verifierReliability: {
      priorTruePositive: n * sensitivity,
      priorFalseNegative: n * (1 - sensitivity),
      priorTrueNegative: n * specificity,
      priorFalsePositive: n * (1 - specificity),
    },
  };
}
