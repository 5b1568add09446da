// DRF (arXiv 2509.05764) assembled from its parts with one equation variant throughout: the `drf`
// reputation model (Eqs. 6–8), the `ucb` selector (Eq. 9) and Eq. 2 on the ratings, so that
// `variant: 'printed'` runs every equation as printed and δ is shared by Eq. 7 and Eq. 9 as in the paper.
import type { AgentId } from '../../core/agent-identity.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import {
  createDrfModel,
  type DrfModelOptions,
  type DrfReputationModel,
  type DrfVariant,
} from '../../reputation/drf.js';
import { createUcbSelector, type StatefulSelector, type UcbSelectorSnapshot } from '../../selection/ucb.js';
import { agentRatingSource, eq2RatingSource, type RatingSource } from './rating-source.js';

/** Options of {@link createDrfParts}: the model's options plus the selector's. */
export interface DrfPartsOptions extends DrfModelOptions {
  /** Agents of the pool. */
  readonly agents: readonly AgentId[];
  /** `printed`: Eqs. 2, 8 and 9 as printed; `corrected` (default): as the review corrects them. @default 'corrected' */
  readonly variant?: DrfVariant;
  /** δ of Eq. 9 and (with `increment: 'delta'`) of Eq. 7, in (0, 1]; Section 5.1: 0.7. @default 0.7 */
  readonly delta?: number;
  /** Scale c of the UCB exploration bonus x_i = c·sqrt(2 ln t / n_i). @default 1 */
  readonly exploration?: number;
  /** Tie-break of equal UCB scores. @default 'id' */
  readonly tieBreak?: 'id' | 'random';
  /** Ratings before Eq. 2 is applied (printed Eq. 2 reads a rating s as distance 1 − s). @default agentRatingSource() */
  readonly ratingSource?: RatingSource;
}

/** The three DRF parts handed to `runDrf`. */
export interface DrfParts {
  /** The `drf` reputation model (Eqs. 6–8). */
  readonly reputation: DrfReputationModel;
  /** DRF's UCB selector with cost (Eq. 9); threshold 0 because `runDrf` filters. */
  readonly selector: StatefulSelector<UcbSelectorSnapshot>;
  /** Ratings through Eq. 2 in the chosen variant. */
  readonly ratingSource: RatingSource;
}

const knownDrfPartsOptions = defineOptionKeys<DrfPartsOptions>()([
  'agents',
  'variant',
  'delta',
  'exploration',
  'tieBreak',
  'ratingSource',
  'initialReputation',
  'w0',
  'beta',
  'increment',
  'decayNormalization',
  'r0',
]);

/**
 * Creates DRF's reputation model, UCB selector and rating source with one equation variant and
 * one δ (Eq. 7 and Eq. 9 share it, as printed).
 *
 * @example
 * const parts = createDrfParts({ agents: pool.map((agent) => agent.identity.id), variant: 'printed' });
 * await runDrf({ pool, tasks, k: 3, rng: createRng(1), ...parts });
 */
export function createDrfParts(options: DrfPartsOptions): DrfParts {
  assertKnownOptions('', options, knownDrfPartsOptions, 'createDrfParts');
  const { agents, variant = 'corrected', delta = 0.7, exploration, tieBreak, ratingSource, ...model } = options;
  return {
    reputation: createDrfModel({ agents, variant, delta, ...model }),
    selector: createUcbSelector({
      delta,
      threshold: 0,
      variant,
      ...(exploration === undefined ? {} : { exploration }),
      ...(tieBreak === undefined ? {} : { tieBreak }),
    }),
    ratingSource: eq2RatingSource(ratingSource ?? agentRatingSource(), variant),
  };
}
