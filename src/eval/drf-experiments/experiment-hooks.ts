import type { Selector } from '../../selection/selector.js';

/** Which selector an experiment runs DRF with. */
export type ExperimentSelectorKind = 'ucb-printed' | 'ucb-corrected' | 'random';

/** Makes a fresh selector per run (UCB selectors are stateful). */
export type ExperimentSelectorFactory = (kind: ExperimentSelectorKind, delta: number) => Selector;

/** Options every DRF experiment accepts besides its settings. */
export interface ExperimentHooks {
  /** Builds the selector for each run. @default createExperimentSelector (the `ucb` and `random-k` selectors) */
  readonly selectorFactory?: ExperimentSelectorFactory;
}
