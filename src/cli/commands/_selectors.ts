// Builds the selectors the `random-k` and `drf` methods need, from the selection layer's registry.
import type { CreateDebateMethodOptions } from '../../protocols/debate/methods.js';

/** The selector factory handed to the debate methods, or undefined while no selector registry exists. */
export function demoSelectorFactory(_seed: number): CreateDebateMethodOptions['createSelector'] {
  return undefined;
}
