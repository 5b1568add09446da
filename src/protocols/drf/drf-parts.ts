// DRF (arXiv 2509.05764) assembled from its parts with one equation variant throughout: the `drf`
// reputation model (Eqs. 6–8) and the `ucb` selector (Eq. 9), so that `variant: 'printed'` runs
// Eqs. 8 and 9 as printed and δ is shared by Eq. 7 and Eq. 9 as in the paper. Eq. 2 is an accuracy
// reported from the round scores (`drfTaskAccuracy`); it leaves the ratings as the source gives them.
import type { AgentId } from '../../core/agent-identity.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import {
  createDrfModel,
  type DrfModelOptions,
  type DrfReputationModel,
  type DrfVariant,
} from '../../reputation/drf.js';
import { createUcbSelector, type StatefulSelector, type UcbSelectorSnapshot } from '../../selection/ucb.js';
import { agentRatingSource, complementRatingSource, type RatingSource } from './rating-source.js';

/** Options of {@link createDrfParts}: the model's options plus the selector's. */
export interface DrfPartsOptions extends DrfModelOptions {
  /** Agents of the pool. */
  readonly agents: readonly AgentId[];
  /** `printed`: Eqs. 8 and 9 as printed; `corrected` (default): as the review corrects them. @default 'corrected' */
  readonly variant?: DrfVariant;
  /** Per-equation forms overriding `variant` (each equation printed alone, for ablations). @default {} */
  readonly equations?: { readonly eq8?: DrfVariant; readonly eq9?: DrfVariant };
  /**
   * Ours, not the paper's: replace every rating s by 1 − s (`complementRatingSource`), the reading of
   * Eq. 2 we ran as "printed" before issue 41. @default false
   */
  readonly complementRatings?: boolean;
  /** δ of Eq. 9 and (with `increment: 'delta'`) of Eq. 7, in (0, 1]; Section 5.1: 0.7. @default 0.7 */
  readonly delta?: number;
  /** Scale c of the UCB exploration bonus x_i = c·sqrt(2 ln t / n_i). @default 1 */
  readonly exploration?: number;
  /** Tie-break of equal UCB scores. @default 'id' */
  readonly tieBreak?: 'id' | 'random';
  /** Where the ratings come from. @default agentRatingSource() */
  readonly ratingSource?: RatingSource;
}

/** The three DRF parts handed to `runDrf`. */
export interface DrfParts {
  /** The `drf` reputation model (Eqs. 6–8). */
  readonly reputation: DrfReputationModel;
  /** DRF's UCB selector with cost (Eq. 9); threshold 0 because `runDrf` filters. */
  readonly selector: StatefulSelector<UcbSelectorSnapshot>;
  /** The rating source (complemented with `complementRatings`). */
  readonly ratingSource: RatingSource;
}

const knownDrfPartsOptions = defineOptionKeys<DrfPartsOptions>()([
  'agents',
  'variant',
  'equations',
  'complementRatings',
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

const knownEquations = defineOptionKeys<NonNullable<DrfPartsOptions['equations']>>()(['eq8', 'eq9']);

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
  const {
    agents,
    variant = 'corrected',
    equations = {},
    complementRatings = false,
    delta = 0.7,
    exploration,
    tieBreak,
    ratingSource,
    ...model
  } = options;
  assertKnownOptions('equations', equations, knownEquations, 'createDrfParts');
  const source = ratingSource ?? agentRatingSource();
  return {
    reputation: createDrfModel({ agents, variant: equations.eq8 ?? variant, delta, ...model }),
    selector: createUcbSelector({
      delta,
      threshold: 0,
      variant: equations.eq9 ?? variant,
      ...(exploration === undefined ? {} : { exploration }),
      ...(tieBreak === undefined ? {} : { tieBreak }),
    }),
    ratingSource: complementRatings ? complementRatingSource(source) : source,
  };
}
