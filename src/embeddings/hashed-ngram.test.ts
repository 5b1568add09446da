import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { hashString } from '../core/rng.js';
import { createHashedNgramEmbedder } from './hashed-ngram.js';
import { cosineSimilarity, norm } from './vector.js';

describe('createHashedNgramEmbedder', () => {
  it('puts two unit-weight trigrams of "ab" at 1/sqrt(2) in their FNV buckets', async () => {
    // " ab " has trigrams " ab" and "ab ", each with tf 1 -> weight (1 + ln 1) = 1; L2 norm sqrt(2).
    const dimensions = 1000;
    const embedder = createHashedNgramEmbedder({ dimensions, ngramSizes: [3], signedHashing: false });
    const [vector] = await embedder.embed(['AB']);
    const first = hashString(' ab') % dimensions;
    const second = hashString('ab ') % dimensions;
    expect(first).not.toBe(second);
    expect(vector![first]).toBeCloseTo(1 / Math.SQRT2, 6);
    expect(vector![second]).toBeCloseTo(1 / Math.SQRT2, 6);
    expect(vector!.reduce((count, value) => count + (value !== 0 ? 1 : 0), 0)).toBe(2);
  });

  it('weights repeated n-grams sublinearly: (1 + ln tf)', async () => {
    // " aaaa " unigrams: " " x2 -> 1 + ln 2, "a" x4 -> 1 + ln 4; vector = [w1, w2] / sqrt(w1^2 + w2^2).
    const dimensions = 997;
    const embedder = createHashedNgramEmbedder({ dimensions, ngramSizes: [1], signedHashing: false });
    const vector = embedder.embedSync('aaaa');
    const space = 1 + Math.log(2);
    const letter = 1 + Math.log(4);
    const length = Math.hypot(space, letter);
    expect(vector[hashString(' ') % dimensions]).toBeCloseTo(space / length, 6);
    expect(vector[hashString('a') % dimensions]).toBeCloseTo(letter / length, 6);
  });

  it('applies smoothed IDF from the reference corpus', () => {
    // corpus ["a", "b"], N = 2. Unigrams of " a " are " " (df 2) and "a" (df 1).
    // idf(" ") = ln(3/3) + 1 = 1, idf("a") = ln(3/2) + 1; tf(" ") = 2 -> 1 + ln 2, tf("a") = 1 -> 1.
    const dimensions = 997;
    const embedder = createHashedNgramEmbedder({
      dimensions,
      ngramSizes: [1],
      signedHashing: false,
      corpus: ['a', 'b'],
    });
    const vector = embedder.embedSync('a');
    const space = (1 + Math.log(2)) * 1;
    const letter = 1 * (Math.log(1.5) + 1);
    const length = Math.hypot(space, letter);
    expect(vector[hashString(' ') % dimensions]).toBeCloseTo(space / length, 6);
    expect(vector[hashString('a') % dimensions]).toBeCloseTo(letter / length, 6);
  });

  it('is deterministic, unit length, and ranks a paraphrase above an unrelated text', async () => {
    const embedder = createHashedNgramEmbedder();
    const [query, paraphrase, unrelated, again] = await embedder.embed([
      'SQL injection in the login handler',
      'possible sql injection: login query built by string concatenation',
      'the cache eviction loop is quadratic',
      'SQL injection in the login handler',
    ]);
    expect(Array.from(again!)).toEqual(Array.from(query!));
    expect(norm(query!)).toBeCloseTo(1, 5);
    expect(cosineSimilarity(query!, paraphrase!)).toBeGreaterThan(cosineSimilarity(query!, unrelated!) + 0.1);
  });

  it('gives a text without letters or digits the zero vector', () => {
    const embedder = createHashedNgramEmbedder({ dimensions: 16 });
    expect(Array.from(embedder.embedSync(' ?!  '))).toEqual(new Array(16).fill(0));
  });

  it('returns unit or zero vectors of the stated length for any text', () => {
    const embedder = createHashedNgramEmbedder({ dimensions: 64 });
    fc.assert(
      fc.property(fc.string(), (text) => {
        const vector = embedder.embedSync(text);
        expect(vector.length).toBe(64);
        const length = norm(vector);
        expect(length === 0 || Math.abs(length - 1) < 1e-5).toBe(true);
      }),
    );
  });

  it('refuses bad options and non-string texts with typed errors', async () => {
    expect(() => createHashedNgramEmbedder({ dimensions: 0 })).toThrow(
      /options.dimensions must be an integer in \[1, 65536\], got 0/,
    );
    expect(() => createHashedNgramEmbedder({ ngramSizes: [] })).toThrow(InvalidArgumentError);
    await expect(createHashedNgramEmbedder().embed([42 as unknown as string])).rejects.toThrow(
      /texts\[0\] must be a string/,
    );
  });
});
