import { createSelector } from '../../selection/registry.js';
import type { ExperimentSelectorFactory } from './experiment-hooks.js';

/**
 * The default selector factory of the DRF experiments: DRF's UCB with cost (`ucb`, printed or
 * corrected Eq. 9, ties broken at random) or the `random-k` baseline. The UCB's own threshold is
 * 0 because `runDrf` applies the filter threshold itself (with `minEligible`).
 */
export const createExperimentSelector: ExperimentSelectorFactory = (kind, delta) =>
  kind === 'random'
    ? createSelector('random-k', {})
    : createSelector('ucb', {
        delta,
        threshold: 0,
        tieBreak: 'random',
        variant: kind === 'ucb-printed' ? 'printed' : 'corrected',
      });
