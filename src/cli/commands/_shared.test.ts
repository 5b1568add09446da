import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { deriveRunId, parseIntegerFlag, parseListFlag, parseOptionalIntegerFlag } from './_shared.js';

describe('integer flags', () => {
  it('reads an integer within its bounds and names the flag, the value and an example otherwise', () => {
    expect(parseIntegerFlag('tasks', '12', 60, 1, 100)).toBe(12);
    expect(parseIntegerFlag('tasks', undefined, 60, 1, 100)).toBe(60);
    expect(parseIntegerFlag('tasks', '', 60, 1, 100)).toBe(60);
    expect(() => parseIntegerFlag('tasks', '2.5', 60, 1, 100)).toThrow(InvalidArgumentError);
    // Decimal digits only, as --seeds reads them: hex, exponents and padding are not integers here.
    for (const loose of ['0x10', '1e1', ' 7', '7 ', '0b11', '1_0'])
      expect(() => parseIntegerFlag('seed', loose, 2027), loose).toThrow(/--seed must be an integer/);
    expect(parseIntegerFlag('seed', '-12', 2027)).toBe(-12);
    expect(() => parseIntegerFlag('seed', '9'.repeat(20), 2027)).toThrow(InvalidArgumentError);
    expect(() => parseIntegerFlag('tasks', '101', 60, 1, 100)).toThrow(
      '--tasks must be an integer in [1, 100], got "101"; pass e.g. --tasks 60',
    );
  });

  it('leaves an absent optional flag undefined and checks a given one the same way', () => {
    expect(parseOptionalIntegerFlag('seeds', undefined, 20, 1, 10)).toBeUndefined();
    expect(parseOptionalIntegerFlag('seeds', '', 20, 1, 10)).toBeUndefined();
    expect(parseOptionalIntegerFlag('seeds', '3', 20, 1, 10)).toBe(3);
    expect(parseOptionalIntegerFlag('seed', '-7', 1)).toBe(-7);
    // The example is clamped into the bounds, as parseIntegerFlag does with its fallback.
    expect(() => parseOptionalIntegerFlag('seeds', 'many', 20, 1, 10)).toThrow(
      '--seeds must be an integer in [1, 10], got "many"; pass e.g. --seeds 10',
    );
  });
});

describe('deriveRunId', () => {
  it('derives a stable id from the config, and refuses a --run-id that is not one path segment', () => {
    expect(deriveRunId(undefined, { a: 1 })).toMatch(/^run-[0-9a-f]{12}$/);
    expect(deriveRunId(undefined, { a: 1 })).toBe(deriveRunId(undefined, { a: 1 }));
    expect(deriveRunId('nightly-1', { a: 1 })).toBe('nightly-1');
    // It names the lock file beside the store: "/../../x" created folders outside the store's.
    for (const bad of ['/../../rid-escape/x', 'a/b', 'a\\b', '..', 'tab\there', 'x'.repeat(201)])
      expect(() => deriveRunId(bad, {}), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ parameter: '--run-id', value: bad }),
      );
  });
});

describe('list flags', () => {
  const allowed = ['majority', 'beta', 'minirep'] as const;
  it('reads a comma-separated list of allowed names, and refuses an empty, repeated or unknown one', () => {
    expect(parseListFlag('methods', 'beta, minirep', allowed, ['majority'])).toEqual(['beta', 'minirep']);
    expect(parseListFlag('methods', undefined, allowed, ['majority'])).toEqual(['majority']);
    // A repeated name printed its row twice in repute demo.
    expect(() => parseListFlag('methods', 'majority,majority', allowed, ['majority'])).toThrow(
      '--methods names "majority" twice',
    );
    expect(() => parseListFlag('methods', ',,', allowed, ['majority'])).toThrow('--methods names nothing');
    // An empty entry (a doubled or trailing comma) was dropped silently: `majority,,beta` ran two methods.
    expect(() => parseListFlag('methods', 'majority,,beta', allowed, ['majority'])).toThrow(
      expect.objectContaining({ parameter: '--methods', message: expect.stringMatching(/empty entry/) }),
    );
    expect(() => parseListFlag('methods', 'majority,', allowed, ['majority'])).toThrow(/--methods has an empty entry/);
    expect(() => parseListFlag('methods', 'voting', allowed, ['majority'])).toThrow(InvalidArgumentError);
  });
});
