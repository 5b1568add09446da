import { describe, expect, it } from 'vitest';
import { requireEntry, requireMapEntry } from './entry.js';
import { InternalError, MissingEntryError } from './errors.js';

describe('requireEntry', () => {
  it('returns present entries of arrays, typed arrays, records and maps, falsy values included', () => {
    expect(requireEntry([0, 1, 2], 0, 'x')).toBe(0);
    expect(requireEntry(new Float32Array([0.5, 0]), 1, 'x')).toBe(0);
    expect(requireEntry({ a: '' }, 'a', 'x')).toBe('');
    expect(requireMapEntry(new Map([['k', false]]), 'k', 'x')).toBe(false);
  });

  it('throws a MissingEntryError naming what, the key and the size on a miss', () => {
    const miss = () => requireEntry(['a', 'b'], 2, 'subscription text');
    expect(miss).toThrow(MissingEntryError);
    expect(miss).toThrow(InternalError);
    expect(miss).toThrow(/missing subscription text at index 2 \(2 entries\)/);
    try {
      requireEntry({ a: 1 } as Record<string, number>, 'b', 'reputation');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ name: 'MissingEntryError', code: 'internal', what: 'reputation', key: 'b' });
      expect((error as Error).message).toMatch(/^missing reputation at key "b";/);
    }
    expect(() => requireMapEntry(new Map<string, number>(), 'c', 'last publication')).toThrow(
      /missing last publication at key "c" \(0 entries\)/,
    );
  });
});
