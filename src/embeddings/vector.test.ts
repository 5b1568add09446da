import { describe, expect, it } from 'vitest';
import { cosineDistance, cosineSimilarity, dot, normalizeVector } from './vector.js';

describe('vector helpers', () => {
  it('computes cosine of (1,0) and (1,1) as 1/sqrt(2)', () => {
    // (1*1 + 0*1) / (1 * sqrt 2)
    expect(cosineSimilarity([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosineDistance([1, 0], [1, 1])).toBeCloseTo(1 - Math.SQRT1_2, 12);
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
  });

  it('treats a zero vector as dissimilar to everything', () => {
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(Array.from(normalizeVector([0, 0]))).toEqual([0, 0]);
    expect(Array.from(normalizeVector([3, 4]))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
  });

  it('refuses vectors of different lengths', () => {
    expect(() => dot([1], [1, 2])).toThrow(/same length, got 1 and 2/);
  });
});
