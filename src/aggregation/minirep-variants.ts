// Our MiniRep variants (not the paper's design): the option sets the replay, `repute run` and the
// served team endpoint share, so that a variant means the same thing wherever it is named.
import type { MiniRepAggregatorOptions } from './minirep-aggregator.js';

/** Names of our MiniRep variants, in report order. */
export const miniRepVariantNames = ['minirep-lo', 'minirep-ds', 'minirep-rt', 'minirep-es', 'minirep-ic'] as const;

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
