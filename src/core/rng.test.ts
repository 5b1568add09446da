import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed, hashString, sample, seedDeriver, shuffle } from './rng.js';
import { InvalidArgumentError } from './errors.js';

describe('createRng', () => {
  it('repeats the same sequence for the same seed and differs across seeds', () => {
    const a = createRng(2027);
    const b = createRng(2027);
    const c = createRng(2028);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
  });

  it('stays in [0, 1) and has a mean near 1/2', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = createRng(seed);
        let sum = 0;
        for (let index = 0; index < 2000; index++) {
          const value = rng();
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThan(1);
          sum += value;
        }
        // Mean of 2000 uniforms has sd sqrt(1/12/2000) = 0.0065; 6 sd = 0.039.
        expect(Math.abs(sum / 2000 - 0.5)).toBeLessThan(0.039);
      }),
      { numRuns: 50 },
    );
  });

  it('refuses a non-finite seed with a typed error', () => {
    expect(() => createRng(Number.NaN)).toThrow(InvalidArgumentError);
  });
});

describe('hashString', () => {
  it('matches the published FNV-1a 32-bit test vectors', () => {
    // FNV-1a reference values: "" -> 0x811c9dc5, "a" -> 0xe40c292c, "foobar" -> 0xbf9cf968.
    expect(hashString('')).toBe(0x811c9dc5);
    expect(hashString('a')).toBe(0xe40c292c);
    expect(hashString('foobar')).toBe(0xbf9cf968);
  });

  it('derives different seeds for different labels', () => {
    expect(deriveSeed(1, 'attack')).not.toBe(deriveSeed(1, 'select'));
  });

  it('seedDeriver(seed, ...first)(...rest) equals deriveSeed(seed, ...first, ...rest) (property)', () => {
    // Hand check of the split: deriveSeed(1, 'a', 2) hashes "1\u0000a\u00002"; the deriver hashes
    // "1\u0000a" once and continues with "\u00002".
    expect(seedDeriver(1, 'a')(2)).toBe(deriveSeed(1, 'a', 2));
    expect(seedDeriver(1, 'a')()).toBe(deriveSeed(1, 'a'));
    const label = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }));
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.string()),
        fc.array(label, { maxLength: 4 }),
        fc.array(label, { maxLength: 4 }),
        (seed, first, rest) => {
          expect(seedDeriver(seed, ...first)(...rest)).toBe(deriveSeed(seed, ...first, ...rest));
        },
      ),
    );
  });
});

describe('shuffle and sample', () => {
  it('permute without mutating the input', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer(), (items, seed) => {
        const copy = items.slice();
        const shuffled = shuffle(createRng(seed), items);
        expect(items).toEqual(copy);
        expect(shuffled.slice().sort((x, y) => x - y)).toEqual(copy.sort((x, y) => x - y));
      }),
    );
  });

  it('refuses k larger than the pool', () => {
    expect(() => sample(createRng(1), [1, 2], 3)).toThrow(/k must be an integer in \[0, 2\], got 3/);
  });
});
