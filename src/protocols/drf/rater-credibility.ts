// Rater credibility: a collusion defence for DRF's rating network (arXiv 2509.05764, Eq. 6).
// DRF weights rater i's rating of j by i's reputation alone: p_j = Σ_i R_i·s_ij / Σ_i R_i. Two
// colluders who rate each other 1 and everyone else 0 then pull honest agents' scores down and their
// own up, whatever their reputation. We discount each rater by how often its ratings agreed with how
// tasks turned out: p_j = Σ_i R_i·κ_i·s_ij / Σ_i R_i·κ_i, with κ_i its credibility.
import type { AgentId } from '../../core/agent-identity.js';
import type { Rating } from '../../core/rating.js';
import { assertInRange, assertNonNegative } from '../../core/validate.js';

/** What is known about one rater's judging record. */
export interface CredibilityRecord {
  /** Sum over its past ratings of 1 − |score − outcome|, in [0, ratings]. */
  readonly agreement: number;
  /** Number of past ratings whose outcome is known. */
  readonly ratings: number;
}

/** Credibility records per rater; raters without a record count as `{ agreement: 0, ratings: 0 }`. */
export type CredibilityState = Readonly<Record<AgentId, CredibilityRecord>>;

/**
 * Adds one round's ratings to the raters' records, given each ratee's outcome in [0, 1] (1 = its
 * proposal agreed with the decided answer, or was verified correct). A rating agrees with the
 * outcome by 1 − |score − outcome|. Ratings of ratees without an outcome are skipped. Pure.
 */
export function updateCredibility(
  state: CredibilityState,
  ratings: readonly Rating[],
  outcomes: Readonly<Record<AgentId, number>>,
): CredibilityState {
  const next: Record<AgentId, CredibilityRecord> = { ...state };
  for (const rating of ratings) {
    const outcome = outcomes[rating.ratee];
    if (outcome === undefined) continue;
    assertInRange(`outcomes.${rating.ratee}`, outcome, 0, 1);
    const record = next[rating.rater] ?? { agreement: 0, ratings: 0 };
    next[rating.rater] = {
      agreement: record.agreement + 1 - Math.abs(rating.score - outcome),
      ratings: record.ratings + 1,
    };
  }
  return next;
}

/**
 * Credibility κ in [floor, 1] of a rater: its informativeness 2a − 1, where a = (1 + agreement) /
 * (2 + ratings) is the Laplace-smoothed agreement rate. A coin-flip judge (a = 1/2) and a rater with
 * no record get `floor`; a judge who is always right tends to 1; a rater who contradicts outcomes
 * (a colluder) stays at `floor`.
 */
export function credibilityWeight(record: CredibilityRecord | undefined, floor = 0.01): number {
  assertInRange('floor', floor, 0, 1);
  if (record === undefined) return floor;
  const rate = (1 + record.agreement) / (2 + record.ratings);
  return Math.max(floor, Math.min(1, 2 * rate - 1));
}

/**
 * Rewrites ratings so that a model computing Eq. 6 with rater weights w_i (the rater's reputation)
 * gets the credibility-discounted score instead. For ratee j with raters i:
 *   p̂_j = Σ_i w_i·κ_i·s_ij / Σ_i w_i·κ_i            (Eq. 6 with weights w_i·κ_i)
 *   s'_ij = κ_i·s_ij + (1 − κ_i)·p̂_j                 (each rating pulled towards p̂_j)
 * and then Σ_i w_i·s'_ij / Σ_i w_i = p̂_j exactly, for any w_i ≥ 0 with Σ w_i > 0. Each s'_ij is a
 * convex combination of ratings in [0, 1], so it stays in [0, 1]. When Σ w_i·κ_i = 0 the weights w_i
 * are dropped (p̂_j = Σ κ_i·s_ij / Σ κ_i), matching a model that falls back to equal weights. Pure.
 */
export function discountRatings(
  ratings: readonly Rating[],
  raterWeights: Readonly<Record<AgentId, number>>,
  credibility: Readonly<Record<AgentId, number>>,
): Rating[] {
  const byRatee = new Map<AgentId, Rating[]>();
  for (const rating of ratings) {
    const list = byRatee.get(rating.ratee);
    if (list) list.push(rating);
    else byRatee.set(rating.ratee, [rating]);
  }
  const target = new Map<AgentId, number>();
  for (const [ratee, received] of byRatee) {
    let numerator = 0;
    let denominator = 0;
    let plainNumerator = 0;
    let plainDenominator = 0;
    for (const rating of received) {
      const weight = raterWeights[rating.rater] ?? 0;
      const kappa = credibility[rating.rater] ?? 1;
      assertNonNegative(`raterWeights.${rating.rater}`, weight);
      assertInRange(`credibility.${rating.rater}`, kappa, 0, 1);
      numerator += weight * kappa * rating.score;
      denominator += weight * kappa;
      plainNumerator += kappa * rating.score;
      plainDenominator += kappa;
    }
    const discounted =
      denominator > 0
        ? numerator / denominator
        : plainDenominator > 0
          ? plainNumerator / plainDenominator
          : received.reduce((sum, rating) => sum + rating.score, 0) / received.length;
    target.set(ratee, discounted);
  }
  return ratings.map((rating) => {
    const kappa = credibility[rating.rater] ?? 1;
    const pooled = target.get(rating.ratee) as number;
    const score = Math.min(1, Math.max(0, kappa * rating.score + (1 - kappa) * pooled));
    return {
      ...rating,
      score,
      reason: `${rating.reason ?? 'rating'} (credibility ${kappa.toFixed(3)}: ${rating.score} -> ${score.toFixed(4)})`,
    };
  });
}
