import { InvalidArgumentError } from '../core/errors.js';
import { assertKnownOptions } from '../core/validate.js';
import { createAllSelector } from './all.js';
import { createRandomKSelector } from './random-k.js';
import type { Selector } from './selector.js';
import { createTopKSelector, type TopKSelectorOptions } from './top-k.js';
import { createUcbSelector, type UcbSelectorOptions } from './ucb.js';

/** Names accepted by {@link createSelector}. */
export const selectorNames = ['all', 'random-k', 'top-k', 'ucb'] as const;

/** A registered selector name. */
export type SelectorName = (typeof selectorNames)[number];

/** Options per selector name. */
export interface SelectorOptionsByName {
  all: Record<string, never>;
  'random-k': Record<string, never>;
  'top-k': TopKSelectorOptions;
  ucb: UcbSelectorOptions;
}

/**
 * Creates a selector by registry name (`all`, `random-k`, `top-k`, `ucb`); unknown names throw an
 * InvalidArgumentError listing the known ones.
 *
 * @example
 * const selector = createSelector('ucb', { delta: 0.7, threshold: 0.2 });
 */
export function createSelector<Name extends SelectorName>(name: Name, options?: SelectorOptionsByName[Name]): Selector {
  switch (name as SelectorName) {
    case 'all':
      assertKnownOptions('options', options, [], "createSelector('all')");
      return createAllSelector();
    case 'random-k':
      assertKnownOptions('options', options, [], "createSelector('random-k')");
      return createRandomKSelector();
    case 'top-k':
      return createTopKSelector(options as TopKSelectorOptions | undefined);
    case 'ucb':
      return createUcbSelector(options as UcbSelectorOptions | undefined);
    default:
      throw new InvalidArgumentError({
        parameter: 'name',
        value: name,
        message: `unknown selector ${JSON.stringify(name)}; use one of ${selectorNames.join(', ')}`,
      });
  }
}
