import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { parseIntegerFlag, parseOptionalIntegerFlag } from './_shared.js';

describe('integer flags', () => {
  it('reads an integer within its bounds and names the flag, the value and an example otherwise', () => {
    expect(parseIntegerFlag('tasks', '12', 60, 1, 100)).toBe(12);
    expect(parseIntegerFlag('tasks', undefined, 60, 1, 100)).toBe(60);
    expect(parseIntegerFlag('tasks', '', 60, 1, 100)).toBe(60);
    expect(() => parseIntegerFlag('tasks', '2.5', 60, 1, 100)).toThrow(InvalidArgumentError);
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
