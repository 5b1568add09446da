// DRF, arXiv 2509.05764: task accuracy (Eq. 2) and reputation iteration (Eqs. 6–8). Equations as
// the paper prints them (quoted by its review) and as the review corrects them:
//   Eq. 2  accuracy of agent i on task t from its task score w_i^t and the task's score threshold
//          w_0^t (Definition 3; used by the objective, Eq. 4, and in what is reported):
//          printed A_i^t = |w_0^t − w_i^t| / w_0^t;  corrected (the review) A_i^t = 1 − |w_0^t − w_i^t| / w_0^t.
//          Eq. 2 does not touch peer ratings. Ours, not the paper's: reading a rating as a distance
//          (s ↦ 1 − s, `complementRatingSource` in protocols/drf), what `variant: 'printed'` did before issue 41.
//   Eq. 6  w_j = Σ_{i≠j} R_i·s_ij / Σ_{i≠j} R_i
//   Eq. 7  w_j ≥ w0: R_j ← R_j + δ·(w_j − w0)·(R0 − R_j)   (δ: the paper's symbol, also Eq. 9's weight;
//          Section 5.1 δ = 0.7. Ours, option `increment: 'beta'`: use β here instead)
//   Eq. 8  w_j < w0: printed   R_j ← R_j − w_j·R_j·β              = R_j·(1 − β·w_j)
//                    corrected R_j ← R_j − β·(w0 − w_j)·R_j        = R_j·(1 − β·(w0 − w_j))
//          ours, option `decayNormalization: 'w0'`: the decay term divided by w0 as well.
// The printed Eq. 8 decays less the worse the score, against the paper's own text; `variant:
// 'printed'` reproduces it, 'corrected' is the default.
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { resolveOptions } from '../core/options.js';
import type { Rating } from '../core/rating.js';
import { validateRating } from '../core/rating.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import {
  assertModelOptions,
  collectScores,
  describe,
  formatScore,
  readAgentNumbers,
  readEvidenceCounts,
  readNumber,
  readObject,
  readSnapshotEnvelope,
  RosterReputationModel,
  unknownAgent,
  writeAgentNumbers,
} from './_shared.js';
import type { Evidence, ReputationSnapshot, ScoreExplanation } from './reputation-model.js';
import { validateEvidenceBatch } from './validate-evidence.js';

/** Which form of DRF's Eqs. 2, 8 (and 9, in the `ucb` selector) to use: the review's correction (default) or the paper as printed. */
export type DrfVariant = 'corrected' | 'printed';

/** The DRF variants, default first. */
export const drfVariants: readonly DrfVariant[] = ['corrected', 'printed'];

/** Which coefficient scales DRF's Eq. 7 increment. */
export type DrfIncrement = 'delta' | 'beta';

/** Whether DRF's Eq. 8 decay term is divided by w0 (ours) or not (paper and review). */
export type DrfDecayNormalization = 'none' | 'w0';

/** Parameters of the DRF reputation iteration (Eqs. 7–8). */
export interface DrfParameters {
  /** Score threshold w0 in (0, 1]: at or above it reputation rises (Eq. 7), below it decays (Eq. 8). @default 0.5 */
  readonly w0?: number;
  /** Eq. 8 decay coefficient β in (0, 1]; β ≤ 1 keeps R in [0, R0]. Not given by the paper's Section 5.1; 0.2 is ours. @default 0.2 */
  readonly beta?: number;
  /** Eq. 7 increment coefficient δ in (0, 1], the paper's symbol (shared with Eq. 9's weight; Section 5.1: δ = 0.7). @default 0.7 */
  readonly delta?: number;
  /**
   * Which coefficient Eq. 7 uses: `'delta'` (as printed) or `'beta'` (ours: one step size for both
   * directions, the behaviour before issue 14). @default 'delta'
   */
  readonly increment?: DrfIncrement;
  /**
   * Ours: `'w0'` divides Eq. 8's decay term by w0 (R·β·(w0 − w)/w0 corrected, R·β·w/w0 printed),
   * the behaviour before issue 14; `'none'` is the paper's and the review's form. @default 'none'
   */
  readonly decayNormalization?: DrfDecayNormalization;
  /** Reputation ceiling R0 > 0. @default 1 */
  readonly r0?: number;
  /** `corrected` (default, the review's Eq. 8) or `printed` Eq. 8. @default 'corrected' */
  readonly variant?: DrfVariant;
}

/** Options of the DRF reputation model. */
export interface DrfModelOptions extends DrfParameters {
  /** Reputation of every agent before any round (and of agents added later), in [0, R0]. @default 0.5 */
  readonly initialReputation?: number;
}

/** Default DRF parameters: R = 0.5 initially, w0 = 0.5, β = 0.2, δ = 0.7, R0 = 1, corrected variant, Eq. 7 with δ, no /w0. */
export const drfDefaults: Required<DrfModelOptions> = {
  initialReputation: 0.5,
  w0: 0.5,
  beta: 0.2,
  delta: 0.7,
  increment: 'delta',
  decayNormalization: 'none',
  r0: 1,
  variant: 'corrected',
};

/**
 * The parameters DRF used before issue 14 (Eq. 7 stepped by β, Eq. 8 divided by w0), kept so that
 * old results can be reproduced: `createDrfModel({ agents, ...drfLegacyParameters })`.
 */
export const drfLegacyParameters: Readonly<Pick<Required<DrfParameters>, 'increment' | 'decayNormalization'>> = {
  increment: 'beta',
  decayNormalization: 'w0',
};

/** Result of one DRF round. */
export interface DrfStepResult {
  /** Reputations after the round (a new object; agents rated by nobody else keep theirs). */
  readonly reputations: Record<AgentId, number>;
  /** Round score w_j of every agent that received at least one rating from another agent. */
  readonly roundScores: Record<AgentId, number>;
}

/**
 * DRF Eq. 2's distance: the relative distance of an answer w from the reference w0,
 * d = |w0 − w| / |w0|, capped at 1; for w0 = 0 it is 0 when w = 0 and 1 otherwise.
 *
 * @example
 * drfRelativeDistance(10, 8); // |10 − 8| / 10 = 0.2
 */
export function drfRelativeDistance(reference: number, answer: number): number {
  if (!Number.isFinite(reference))
    throw new InvalidArgumentError({
      parameter: 'reference',
      value: reference,
      message: `reference must be a finite number, got ${String(reference)}`,
    });
  if (!Number.isFinite(answer))
    throw new InvalidArgumentError({
      parameter: 'answer',
      value: answer,
      message: `answer must be a finite number, got ${String(answer)}`,
    });
  if (reference === 0) return answer === 0 ? 0 : 1;
  // Eq. 2: d = |w0 − w| / w0 (|w0| so that negative references work), capped at 1
  return Math.min(1, Math.abs(reference - answer) / Math.abs(reference));
}

/**
 * DRF Eq. 2's outer form: accuracy at normalised distance d ∈ [0, 1] from the reference.
 * `corrected`: acc = 1 − d (the review: accuracy is one minus the distance); `printed`: acc = d,
 * the equation as printed. {@link drfTaskAccuracy} applies it to a task score and its threshold.
 *
 * @example
 * drfAccuracy(0.2); // 0.8
 * drfAccuracy(0.2, 'printed'); // 0.2
 */
export function drfAccuracy(distance: number, variant: DrfVariant = 'corrected'): number {
  assertInRange('distance', distance, 0, 1, { hint: 'normalise the distance to the reference answer into [0, 1]' });
  assertVariant('variant', variant);
  // corrected Eq. 2: acc = 1 − d;  printed Eq. 2: acc = d
  return variant === 'corrected' ? 1 - distance : distance;
}

/**
 * DRF Eq. 2 (Definition 3): the accuracy A_i^t of agent i on task t from its task score w_i^t and
 * the task's score threshold w_0^t. Printed: A = |w0 − w| / w0; corrected (the review): A = 1 − |w0 − w| / w0.
 * The distance is capped at 1 (it can exceed 1 only for w > 2·w0), so A stays in [0, 1]. The task
 * score is the round score of Eq. 6 in our protocol, and w0 the threshold of Eqs. 7–8.
 *
 * @example
 * drfTaskAccuracy({ taskScore: 0.8, threshold: 0.5, variant: 'printed' }); // |0.5 − 0.8| / 0.5 = 0.6
 * drfTaskAccuracy({ taskScore: 0.8, threshold: 0.5 }); // 1 − 0.6 = 0.4
 */
export function drfTaskAccuracy({
  taskScore,
  threshold,
  variant = 'corrected',
}: {
  /** Task score w_i^t in [0, 1] (the round score of Eq. 6). */
  readonly taskScore: number;
  /** Task score threshold w_0^t in (0, 1]. */
  readonly threshold: number;
  /** Eq. 2 as printed or as the review corrects it. @default 'corrected' */
  readonly variant?: DrfVariant;
}): number {
  assertInRange('taskScore', taskScore, 0, 1, { hint: 'pass the Eq. 6 round score, a number in [0, 1]' });
  assertInRange('threshold', threshold, 0, 1, { minExclusive: true, hint: 'pass the score threshold w0, e.g. 0.5' });
  // Eq. 2: d = |w_0^t − w_i^t| / w_0^t (capped at 1); printed A = d, corrected A = 1 − d
  return drfAccuracy(drfRelativeDistance(threshold, taskScore), variant);
}

/**
 * DRF Eq. 6: the round score of each agent j is the reputation-weighted mean of the ratings it
 * received from other agents in this round, w_j = Σ_{i≠j} R_i·s_ij / Σ_{i≠j} R_i, using the
 * reputations before the round. If every rater of j has reputation 0 the plain mean is used. Each
 * rating is one term (a rater who rates j twice counts twice); self-ratings are left out; agents
 * rated by nobody else get no score.
 */
export function drfRoundScores({
  reputations,
  ratings,
}: {
  reputations: Readonly<Record<AgentId, number>>;
  ratings: readonly Rating[];
}): Record<AgentId, number> {
  const sums = new Map<AgentId, { weighted: number; weight: number; plain: number; count: number }>();
  for (const rating of ratings) {
    if (rating.rater === rating.ratee) continue;
    const raterReputation = reputations[rating.rater]!;
    let sum = sums.get(rating.ratee);
    if (sum === undefined) sums.set(rating.ratee, (sum = { weighted: 0, weight: 0, plain: 0, count: 0 }));
    // Running sums per ratee, in rating order (one accumulator per ratee, updated in place).
    sum.weighted = sum.weighted + raterReputation * rating.score;
    sum.weight = sum.weight + raterReputation;
    sum.plain = sum.plain + rating.score;
    sum.count = sum.count + 1;
  }
  const scores: Record<AgentId, number> = {};
  for (const ratee of sums.keys()) {
    const sum = sums.get(ratee) as { weighted: number; weight: number; plain: number; count: number };
    // Eq. 6: w_j = Σ_i R_i·s_ij / Σ_i R_i  (all R_i = 0 → w_j = Σ_i s_ij / n)
    scores[ratee] = sum.weight > 0 ? sum.weighted / sum.weight : sum.plain / sum.count;
  }
  return scores;
}

/**
 * DRF Eqs. 7–8: one agent's reputation after a round with score w.
 * w ≥ w0 (Eq. 7): R ← R + κ·(w − w0)·(R0 − R), κ = δ (as printed) or β (`increment: 'beta'`).
 * w < w0 (Eq. 8), corrected: R ← R − β·(w0 − w)·R, decaying more the further w is below w0.
 * w < w0 (Eq. 8), printed: R ← R − w·R·β, which decays less for a worse score (the review's point).
 * `decayNormalization: 'w0'` (ours) divides either decay term by w0.
 * The result is clamped to [0, R0]: with β = 1 and `decayNormalization: 'w0'`, (β·(w0 − w)·R)/w0 can
 * round one ulp above R (R = 0.78, w = 0, w0 = 0.2 gave −1.1e-16), and a reputation outside
 * [0, R0] is refused by `restore` and `drfReputationStep`. Inside the range the clamp changes nothing.
 */
export function drfUpdateReputation({
  reputation,
  roundScore,
  w0,
  beta,
  r0,
  variant,
  delta = drfDefaults.delta,
  increment = drfDefaults.increment,
  decayNormalization = drfDefaults.decayNormalization,
}: { reputation: number; roundScore: number; w0: number; beta: number; r0: number; variant: DrfVariant } & Pick<
  DrfParameters,
  'delta' | 'increment' | 'decayNormalization'
>): number {
  if (roundScore >= w0) {
    const step = increment === 'beta' ? beta : delta;
    // Eq. 7: R_j ← R_j + δ·(w_j − w0)·(R0 − R_j)   (β instead of δ with increment 'beta')
    return clampReputation(reputation + step * (roundScore - w0) * (r0 - reputation), r0);
  }
  const scale = decayNormalization === 'w0' ? w0 : 1;
  if (variant === 'corrected') {
    // Eq. 8 corrected: R_j ← R_j − β·(w0 − w_j)·R_j   (÷ w0 with decayNormalization 'w0')
    return clampReputation(reputation - (beta * (w0 - roundScore) * reputation) / scale, r0);
  }
  // Eq. 8 printed: R_j ← R_j − w_j·R_j·β   (÷ w0 with decayNormalization 'w0')
  return clampReputation(reputation - (roundScore * reputation * beta) / scale, r0);
}

/** R clamped to [0, R0] against rounding at the ends of the range (the identity inside it). */
function clampReputation(reputation: number, r0: number): number {
  return Math.min(r0, Math.max(0, reputation));
}

const knownDrfParameters = defineOptionKeys<DrfParameters>()([
  'w0',
  'beta',
  'delta',
  'increment',
  'decayNormalization',
  'r0',
  'variant',
]);
const knownDrfStepInput = defineOptionKeys<{ reputations: unknown; ratings: unknown } & DrfParameters>()([
  'reputations',
  'ratings',
  ...knownDrfParameters,
]);

/**
 * One DRF round as a pure function: round scores by Eq. 6, then Eq. 7 or 8 for every agent that
 * was rated by someone else. Throws `InvalidArgumentError` for parameters out of range,
 * reputations outside [0, R0] or ratings outside [0, 1], and `NotFoundError` for a rater or ratee
 * missing from `reputations`. Inputs are not changed.
 *
 * @example
 * drfReputationStep({
 *   reputations: { a: 0.5, b: 0.5 },
 *   ratings: [{ rater: 'a', ratee: 'b', taskId: 't1', score: 1 }],
 * }).reputations.b; // Eq. 7: 0.5 + 0.7·(1 − 0.5)·(1 − 0.5) = 0.675
 */
export function drfReputationStep(
  input: { reputations: Readonly<Record<AgentId, number>>; ratings: readonly Rating[] } & DrfParameters,
): DrfStepResult {
  assertKnownOptions('input', input, knownDrfStepInput, 'drfReputationStep');
  const { reputations, ratings, ...options } = input;
  const parameters = resolveDrfParameters(options);
  if (reputations === null || typeof reputations !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'reputations',
      value: reputations,
      message: `reputations must be a record { agentId: reputation }, got ${describe(reputations)}`,
    });
  }
  for (const [agentId, reputation] of Object.entries(reputations)) {
    // In range (NaN fails both): no field name to build.
    if (typeof reputation === 'number' && reputation >= 0 && reputation <= parameters.r0) continue;
    assertInRange(`reputations.${agentId}`, reputation, 0, parameters.r0, {
      hint: `reputations lie in [0, R0 = ${parameters.r0}]`,
    });
  }
  if (!Array.isArray(ratings)) {
    throw new InvalidArgumentError({
      parameter: 'ratings',
      value: ratings,
      message: `ratings must be an array of Rating, got ${describe(ratings)}`,
    });
  }
  const known = (agentId: AgentId): boolean => typeof agentId === 'string' && Object.hasOwn(reputations, agentId);
  for (let index = 0; index < ratings.length; index++) {
    if (!(index in ratings)) continue; // holes, as forEach skips them
    const rating = ratings[index] as Rating;
    if (!known(rating?.rater)) throw unknownAgent(rating?.rater, `ratings[${index}].rater`);
    if (!known(rating.ratee)) throw unknownAgent(rating.ratee, `ratings[${index}].ratee`);
    // A score in [0, 1] (NaN fails both) passes without building the field path.
    const score = rating.score;
    if (!(typeof score === 'number' && score >= 0 && score <= 1)) validateRating(rating, `ratings[${index}]`);
  }
  return applyDrfRound(reputations, ratings, parameters);
}

/**
 * The round of {@link drfReputationStep} on inputs already checked (the model validates its evidence
 * batch and its parameters once): Eq. 6, then Eq. 7 or 8 for every rated agent.
 */
function applyDrfRound(
  reputations: Readonly<Record<AgentId, number>>,
  ratings: readonly Rating[],
  parameters: Required<DrfParameters>,
): DrfStepResult {
  const roundScores = drfRoundScores({ reputations, ratings });
  const next: Record<AgentId, number> = { ...reputations };
  for (const agentId of Object.keys(roundScores)) {
    const roundScore = roundScores[agentId] as number;
    next[agentId] = drfUpdateReputation({ reputation: reputations[agentId]!, roundScore, ...parameters });
  }
  return { reputations: next, roundScores };
}

/** Validates DRF iteration parameters and merges them over the defaults. */
export function resolveDrfParameters(options: DrfParameters | undefined, parameter = ''): Required<DrfParameters> {
  const prefix = parameter === '' ? '' : `${parameter}.`;
  const resolved = resolveOptions<DrfParameters>(
    {
      w0: drfDefaults.w0,
      beta: drfDefaults.beta,
      delta: drfDefaults.delta,
      increment: drfDefaults.increment,
      decayNormalization: drfDefaults.decayNormalization,
      r0: drfDefaults.r0,
      variant: drfDefaults.variant,
    },
    {
      w0: options?.w0,
      beta: options?.beta,
      delta: options?.delta,
      increment: options?.increment,
      decayNormalization: options?.decayNormalization,
      r0: options?.r0,
      variant: options?.variant,
    },
  );
  assertInRange(`${prefix}w0`, resolved.w0, 0, 1, { minExclusive: true, hint: 'pass e.g. { w0: 0.5 }' });
  assertInRange(`${prefix}beta`, resolved.beta, 0, 1, { minExclusive: true, hint: 'pass e.g. { beta: 0.2 }' });
  assertInRange(`${prefix}delta`, resolved.delta, 0, 1, {
    minExclusive: true,
    hint: 'Eq. 7 increment coefficient; pass e.g. { delta: 0.7 }',
  });
  if (resolved.increment !== 'delta' && resolved.increment !== 'beta') {
    throw new InvalidArgumentError({
      parameter: `${prefix}increment`,
      value: resolved.increment,
      message: `${prefix}increment must be 'delta' (Eq. 7 as printed) or 'beta', got ${describe(resolved.increment)}`,
    });
  }
  if (resolved.decayNormalization !== 'none' && resolved.decayNormalization !== 'w0') {
    throw new InvalidArgumentError({
      parameter: `${prefix}decayNormalization`,
      value: resolved.decayNormalization,
      message: `${prefix}decayNormalization must be 'none' (Eq. 8 as printed and corrected) or 'w0', got ${describe(resolved.decayNormalization)}`,
    });
  }
  assertInRange(`${prefix}r0`, resolved.r0, 0, Infinity, {
    minExclusive: true,
    maxExclusive: true,
    hint: 'pass e.g. { r0: 1 }',
  });
  assertVariant(`${prefix}variant`, resolved.variant);
  return resolved;
}

function assertVariant(parameter: string, variant: unknown): asserts variant is DrfVariant {
  if (variant !== 'corrected' && variant !== 'printed') {
    throw new InvalidArgumentError({
      parameter,
      value: variant,
      message: `${parameter} must be 'corrected' or 'printed', got ${describe(variant)}`,
    });
  }
}

const knownDrfModelOptions = defineOptionKeys<{ agents: unknown } & DrfModelOptions>()([
  'agents',
  'initialReputation',
  ...knownDrfParameters,
]);

/**
 * DRF's reputation iteration (arXiv 2509.05764, Eqs. 6–8) as a reputation model; one `observe`
 * batch is one round.
 *
 * Evidence used: `rating` (rater i scores ratee j with s_ij), and `outcome` with an `observer`,
 * read as a rating by the observer of the subject with s = success. Self-ratings, outcomes without
 * an observer, `behaviour` and `witness` evidence are ignored: DRF's reputation comes from peer
 * ratings only. A batch with no usable rating leaves reputations unchanged.
 *
 * score(j) = R_j / R0 (= R_j for the default R0 = 1); weights are scores normalised to sum 1.
 */
export class DrfReputationModel extends RosterReputationModel {
  readonly name = 'drf';
  #parameters: Required<DrfModelOptions>;
  // R(0) and R0 kept as plain number fields too: the hot reads (`reputation`, `score`) then do not
  // depend on the shape of the parameters object.
  #initialReputation: number;
  #r0: number;
  #reputations = new Map<AgentId, number>();
  #lastRoundScores = new Map<AgentId, number>();
  #rounds = 0;

  constructor(options: { agents: readonly AgentId[] } & DrfModelOptions) {
    assertKnownOptions('options', options, knownDrfModelOptions, 'new DrfReputationModel');
    const { agents, ...modelOptions } = options;
    const parameters = resolveDrfModelOptions(modelOptions, 'options');
    super(agents);
    this.#parameters = parameters;
    this.#initialReputation = parameters.initialReputation;
    this.#r0 = parameters.r0;
  }

  /** The model's parameters. */
  get parameters(): Required<DrfModelOptions> {
    return { ...this.#parameters };
  }

  /** Number of rounds (batches with at least one usable rating) applied so far. */
  get rounds(): number {
    return this.#rounds;
  }

  observe(evidence: readonly Evidence[]): void {
    validateEvidenceBatch(evidence, this.roster);
    const ratings: Rating[] = [];
    for (const item of evidence) {
      if (item.type === 'rating') ratings.push(item.rating);
      else if (item.type === 'outcome' && item.observer !== undefined)
        ratings.push({ rater: item.observer, ratee: item.subject, taskId: item.taskId, score: item.success });
    }
    const peerRatings = ratings.filter((rating) => rating.rater !== rating.ratee);
    if (peerRatings.length === 0) return;
    // The batch and the parameters were checked (validateEvidenceBatch, the constructor), and the
    // reputations are the model's own: the round runs without drfReputationStep's re-validation.
    const { reputations, roundScores } = applyDrfRound(this.reputations(), peerRatings, this.#parameters);
    for (const agentId of this.roster.list()) this.#reputations.set(agentId, reputations[agentId]!);
    for (const [agentId, roundScore] of Object.entries(roundScores)) this.#lastRoundScores.set(agentId, roundScore);
    for (const rating of peerRatings) this.countEvidence(rating.ratee);
    this.#rounds += 1;
  }

  /** Raw reputations R_j in [0, R0]. */
  reputations(): Record<AgentId, number> {
    return collectScores(this.roster.list(), (agentId) => this.reputation(agentId));
  }

  /** Raw reputation R_j in [0, R0] of one agent. */
  reputation(agentId: AgentId): number {
    this.roster.require(agentId);
    return this.#reputations.get(agentId) ?? this.#initialReputation;
  }

  /** Round score w_j from the last round in which the agent was rated, or `undefined`. */
  lastRoundScore(agentId: AgentId): number | undefined {
    this.roster.require(agentId);
    return this.#lastRoundScores.get(agentId);
  }

  score(agentId: AgentId): number {
    // score_j = R_j / R0
    return this.reputation(agentId) / this.#r0;
  }

  explain(agentId: AgentId): ScoreExplanation {
    const reputation = this.reputation(agentId);
    const lastRoundScore = this.#lastRoundScores.get(agentId);
    const { w0, r0, variant } = this.#parameters;
    return {
      agentId,
      score: reputation / r0,
      components: { reputation, r0, w0, ...(lastRoundScore === undefined ? {} : { lastRoundScore }) },
      evidenceCount: this.evidenceCount(agentId),
      summary:
        lastRoundScore === undefined
          ? `${agentId}: reputation ${formatScore(reputation)} of R0 = ${r0}, not rated yet`
          : `${agentId}: reputation ${formatScore(reputation)} of R0 = ${r0}; last round score ${formatScore(lastRoundScore)} ${lastRoundScore >= w0 ? '>=' : '<'} w0 = ${w0} (${variant} rules)`,
    };
  }

  snapshot(): ReputationSnapshot {
    const agents = this.roster.list();
    return this.wrapSnapshot({
      parameters: { ...this.#parameters },
      rounds: this.#rounds,
      reputations: writeAgentNumbers(agents, this.#reputations, this.#parameters.initialReputation),
      lastRoundScores: writeAgentNumbers(agents, this.#lastRoundScores),
    });
  }

  /** Replaces agents, reputations and parameters with the snapshot's. */
  restore(snapshot: ReputationSnapshot): void {
    const { agents, state } = readSnapshotEnvelope(snapshot, this.name);
    const stored = readObject(state.parameters, 'snapshot.state.parameters') as DrfModelOptions;
    // Snapshots written before issue 14 carry no `increment`: they ran Eq. 7 with β and Eq. 8 ÷ w0.
    const parameters = resolveDrfModelOptions(
      stored.increment === undefined ? { ...drfLegacyParameters, ...stored } : stored,
      'snapshot.state.parameters',
    );
    const rounds = readNumber(state.rounds, 'snapshot.state.rounds', 0);
    const reputations = readAgentNumbers(state.reputations, 'snapshot.state.reputations', agents, 0, parameters.r0);
    const lastRoundScores = readAgentNumbers(state.lastRoundScores, 'snapshot.state.lastRoundScores', agents, 0, 1);
    const evidenceCounts = readEvidenceCounts(state.evidenceCounts, 'snapshot.state.evidenceCounts', agents);
    this.#parameters = parameters;
    this.#initialReputation = parameters.initialReputation;
    this.#r0 = parameters.r0;
    this.#reputations = reputations;
    this.#lastRoundScores = lastRoundScores;
    this.#rounds = rounds;
    this.replaceRoster(agents, evidenceCounts);
  }
}

function resolveDrfModelOptions(options: DrfModelOptions, parameter: string): Required<DrfModelOptions> {
  const iteration = resolveDrfParameters(options, parameter);
  const initialReputation = options.initialReputation ?? drfDefaults.initialReputation;
  assertInRange(`${parameter}.initialReputation`, initialReputation, 0, iteration.r0, {
    hint: `start reputations in [0, R0 = ${iteration.r0}], e.g. 0.5`,
  });
  return { ...iteration, initialReputation };
}

/**
 * Creates a DRF reputation model over `agents` (see {@link DrfReputationModel}).
 *
 * @example
 * const model = createDrfModel({ agents: ['a1', 'a2'], variant: 'corrected' });
 * model.observe([{ type: 'rating', rating: { rater: 'a1', ratee: 'a2', taskId: 't1', score: 0.9 } }]);
 * model.score('a2'); // Eq. 7 with δ = 0.7: 0.5 + 0.7·(0.9 − 0.5)·(1 − 0.5) = 0.64
 */
export function createDrfModel(options: { agents: readonly AgentId[] } & DrfModelOptions): DrfReputationModel {
  assertModelOptions(options);
  assertKnownOptions('options', options, knownDrfModelOptions, 'createDrfModel');
  return new DrfReputationModel(options);
}
