import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.js';
import {
  assertKnownNames,
  assertKnownOptions,
  assertOneOf,
  assertUniqueTaskIds,
  defineOptionKeys,
} from './validate.js';

describe('assertUniqueTaskIds', () => {
  it('accepts distinct ids and names the first repeated one with its index and the reason', () => {
    expect(() => assertUniqueTaskIds([{ id: 'a' }, { id: 'b' }], 'why')).not.toThrow();
    const call = () =>
      assertUniqueTaskIds([{ id: 'a' }, { id: 'b' }, { id: 'a' }, { id: 'b' }], 'the store keys results by task id');
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(expect.objectContaining({ parameter: 'tasks[2].id', value: 'a' }));
    expect(call).toThrow('duplicate task id "a"; the store keys results by task id');
  });
});

describe('assertKnownNames', () => {
  it('accepts known names and names the first unknown one with the list to choose from', () => {
    expect(() => assertKnownNames('compare', ['x', 'y'], ['x', 'y', 'z'], 'aggregator')).not.toThrow();
    const call = () => assertKnownNames('compare', ['x', 'w', 'v'], ['x', 'y'], 'aggregator to compare');
    expect(call).toThrow(expect.objectContaining({ parameter: 'compare[1]', value: 'w' }));
    expect(call).toThrow('unknown aggregator to compare "w"; use one of x, y');
  });
});

describe('assertOneOf', () => {
  it('accepts an allowed value and otherwise lists the allowed ones, the note and the value', () => {
    expect(() => assertOneOf('split', 'tuning', ['heldout', 'tuning', 'all'])).not.toThrow();
    const two = () => assertOneOf('costs', 'daily', ['per-round', 'per-agent']);
    expect(two).toThrow(InvalidArgumentError);
    expect(two).toThrow(expect.objectContaining({ parameter: 'costs', value: 'daily' }));
    expect(two).toThrow("costs must be 'per-round' or 'per-agent', got \"daily\"");
    expect(() => assertOneOf('split', 'test', ['heldout', 'tuning', 'all'])).toThrow(
      "split must be 'heldout', 'tuning' or 'all', got \"test\"",
    );
    expect(() => assertOneOf('variant', 2, ['corrected', 'printed'], '(Eq. 2)')).toThrow(
      "variant must be 'corrected' or 'printed' (Eq. 2), got 2",
    );
    // Compared with ===: a string that merely contains an allowed value is refused.
    expect(() => assertOneOf('mode', 'all ', ['all'])).toThrow('mode must be \'all\', got "all "');
  });
});

describe('assertKnownOptions', () => {
  const known = ['alpha', 'epsilon', 'maxIterations'];

  it('throws exactly when some key is unknown, naming the first one in key order, whatever the values', () => {
    const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,11}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { maxLength: 8 }),
        fc.uniqueArray(name, { maxLength: 6 }),
        fc.array(fc.anything(), { minLength: 8, maxLength: 8 }),
        (keys, knownKeys, values) => {
          const options = Object.fromEntries(keys.map((key, index) => [key, values[index]]));
          const firstUnknown = Object.keys(options).find((key) => !knownKeys.includes(key));
          let error: unknown;
          try {
            assertKnownOptions('options', options, knownKeys, 'f');
          } catch (caught) {
            error = caught;
          }
          if (firstUnknown === undefined) return error === undefined;
          return (
            error instanceof InvalidArgumentError &&
            error.parameter === `options.${firstUnknown}` &&
            error.value === firstUnknown &&
            error.message.startsWith(`unknown option ${JSON.stringify(firstUnknown)} of f;`)
          );
        },
      ),
      { seed: 20261204, numRuns: 300 },
    );
  });

  it('accepts known keys, an empty object and no options at all', () => {
    expect(() => assertKnownOptions('options', { alpha: 0.2, maxIterations: 10 }, known, 'f')).not.toThrow();
    expect(() => assertKnownOptions('options', {}, known, 'f')).not.toThrow();
    expect(() => assertKnownOptions('options', undefined, known, 'f')).not.toThrow();
  });

  it('names the first unknown key with the nearest known one and the list', () => {
    // alpah → alpha: a swap of two letters, edit distance 2.
    const call = () =>
      assertKnownOptions('options', { alpha: 0.1, alpah: 0.2, zzz: 1 }, known, 'createEigenTrustModel');
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(expect.objectContaining({ parameter: 'options.alpah', value: 'alpah' }));
    expect(call).toThrow(
      'unknown option "alpah" of createEigenTrustModel; did you mean "alpha"? Known options: alpha, epsilon, maxIterations',
    );
  });

  it('suggests nothing when no known key is within edit distance 2 or a prefix', () => {
    expect(() => assertKnownOptions('options', { readOnly: true }, ['path', 'now'], 'openStore')).toThrow(
      'unknown option "readOnly" of openStore; remove it. Known options: path, now',
    );
  });

  it('refuses a misspelt key whose value is undefined', () => {
    const call = () => assertKnownOptions('options', { epsilonn: undefined }, known, 'f');
    expect(call).toThrow(expect.objectContaining({ parameter: 'options.epsilonn', value: 'epsilonn' }));
    expect(call).toThrow('unknown option "epsilonn" of f; did you mean "epsilon"?');
  });

  it('gives the path inside the options of a nested object', () => {
    const call = () =>
      assertKnownOptions('options.bloc', { minSze: 3 }, ['decay', 'minSize'], 'createMiniRepAggregator');
    expect(call).toThrow(expect.objectContaining({ parameter: 'options.bloc.minSze', value: 'minSze' }));
    expect(call).toThrow(
      'unknown option "bloc.minSze" of createMiniRepAggregator; did you mean "bloc.minSize"? Known bloc options: decay, minSize',
    );
  });

  it('names the key bare for an argument whose fields are named bare, and its nested options by path', () => {
    const outer = () => assertKnownOptions('', { task: 1, verdict: {} }, ['task', 'verdicts', 'options'], 'f');
    expect(outer).toThrow(expect.objectContaining({ parameter: 'verdict' }));
    expect(outer).toThrow(
      'unknown option "verdict" of f; did you mean "verdicts"? Known options: task, verdicts, options',
    );
    const nested = () => assertKnownOptions('profile', { skil: 0.5 }, ['skill', 'slope'], 'f');
    expect(nested).toThrow(expect.objectContaining({ parameter: 'profile.skil' }));
    expect(nested).toThrow(
      'unknown option "profile.skil" of f; did you mean "profile.skill"? Known profile options: skill, slope',
    );
    expect(() => assertKnownOptions('', null as unknown as object, [], 'f')).toThrow(
      'the argument of f must be an object of options, got null',
    );
  });

  it('says when a function takes no options at all', () => {
    expect(() => assertKnownOptions('options', { k: 3 }, [], "createSelector('all')")).toThrow(
      "unknown option \"k\" of createSelector('all'); createSelector('all') takes no options; remove it",
    );
  });

  it('refuses null, arrays and primitives in place of an options object', () => {
    expect(() => assertKnownOptions('options', null as unknown as object, known, 'f')).toThrow(
      'options of f must be an object of options, got null',
    );
    expect(() => assertKnownOptions('options.bloc', [1] as unknown as object, known, 'f')).toThrow(
      expect.objectContaining({
        parameter: 'options.bloc',
        message: 'options.bloc of f must be an object of options, got an array',
      }),
    );
    expect(() => assertKnownOptions('options', 3 as unknown as object, known, 'f')).toThrow('got 3');
  });

  it('checks only own enumerable keys, so inherited and hidden ones pass', () => {
    const options = Object.create({ inherited: 1 }) as Record<string, unknown>;
    Object.defineProperty(options, 'hidden', { value: 1, enumerable: false });
    options.alpha = 0.5;
    expect(() => assertKnownOptions('options', options, known, 'f')).not.toThrow();
  });
});

describe('defineOptionKeys', () => {
  it('returns the keys it is given (the completeness check is at compile time)', () => {
    interface Example {
      alpha?: number;
      beta?: string;
    }
    expect(defineOptionKeys<Example>()(['alpha', 'beta'])).toEqual(['alpha', 'beta']);
    // @ts-expect-error -- 'beta' is left out
    defineOptionKeys<Example>()(['alpha']);
    // @ts-expect-error -- 'gamma' is not a key of Example
    defineOptionKeys<Example>()(['alpha', 'beta', 'gamma']);
  });
});
