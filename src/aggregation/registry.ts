import { InvalidArgumentError } from '../core/errors.js';
import { assertKnownOptions } from '../core/validate.js';
import type { Aggregator } from './aggregator.js';
import {
  createMiniRepAggregator,
  type MiniRepAggregator,
  type MiniRepAggregatorOptions,
} from './minirep-aggregator.js';
import { createPluralityAggregator, createWeightedPluralityAggregator } from './plurality.js';

/** Names accepted by {@link createAggregator}. */
export const aggregatorNames = ['plurality', 'weighted-plurality', 'minirep'] as const;

/** A registered aggregator name. */
export type AggregatorName = (typeof aggregatorNames)[number];

/**
 * Creates an aggregator by registry name: `plurality` and `weighted-plurality` take no options;
 * `minirep` needs `{ model }` (see {@link MiniRepAggregatorOptions}).
 *
 * @example
 * const majority = createAggregator('plurality');
 * const robust = createAggregator('minirep', { model: createMiniRepModel({ agents }), k: 7 });
 */
export function createAggregator(name: 'minirep', options: MiniRepAggregatorOptions): MiniRepAggregator;
export function createAggregator(name: 'plurality' | 'weighted-plurality', options?: Record<string, never>): Aggregator;
export function createAggregator(name: string, options?: MiniRepAggregatorOptions | Record<string, never>): Aggregator;
export function createAggregator(name: string, options?: MiniRepAggregatorOptions | Record<string, never>): Aggregator {
  switch (name) {
    case 'plurality':
      assertKnownOptions('options', options, [], "createAggregator('plurality')");
      return createPluralityAggregator();
    case 'weighted-plurality':
      assertKnownOptions('options', options, [], "createAggregator('weighted-plurality')");
      return createWeightedPluralityAggregator();
    case 'minirep':
      if (options === undefined || !('model' in options)) {
        throw new InvalidArgumentError({
          parameter: 'options.model',
          value: undefined,
          message:
            "the minirep aggregator needs a reputation model; pass createAggregator('minirep', { model: createMiniRepModel({ agents }) })",
        });
      }
      return createMiniRepAggregator(options as MiniRepAggregatorOptions);
    default:
      throw new InvalidArgumentError({
        parameter: 'name',
        value: name,
        message: `unknown aggregator ${JSON.stringify(name)}; use one of ${aggregatorNames.join(', ')}`,
      });
  }
}
