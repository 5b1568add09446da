import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { definedOnly, resolveOptions } from './options.js';

describe('resolveOptions', () => {
  it('keeps the default for an undefined value and takes every defined one, falsy included', () => {
    const defaults = { alpha: 0.15, tolerance: 1e-9, label: 'x' };
    expect(resolveOptions(defaults, { alpha: undefined, tolerance: 0, label: '' })).toEqual({
      alpha: 0.15,
      tolerance: 0,
      label: '',
    });
    expect(resolveOptions(defaults, undefined)).toEqual(defaults);
    expect(defaults).toEqual({ alpha: 0.15, tolerance: 1e-9, label: 'x' });
  });
});

describe('definedOnly', () => {
  it('drops exactly the undefined keys and leaves the input unchanged', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.option(fc.integer(), { nil: undefined })), (input) => {
        const copy = { ...input };
        const output = definedOnly(input);
        expect(input).toEqual(copy);
        const kept = Object.keys(input).filter((key) => input[key] !== undefined);
        expect(Object.keys(output).sort()).toEqual(kept.sort());
        for (const key of kept) expect((output as Record<string, unknown>)[key]).toBe(input[key]);
      }),
      { numRuns: 500 },
    );
    expect(Object.keys(definedOnly(JSON.parse('{"__proto__": 1, "a": null}')))).toEqual(['__proto__', 'a']);
  });
});
