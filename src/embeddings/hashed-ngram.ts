// Offline embedder: hashed character n-grams (Weinberger et al. 2009, feature hashing) weighted by
// sublinear TF-IDF (Salton & Buckley 1988), L2-normalised. No model weights, no network.
import { resolveOptions } from '../core/options.js';
import { hashString } from '../core/rng.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Embedder } from './embedder.js';

/** Options of {@link createHashedNgramEmbedder}. */
export interface HashedNgramEmbedderOptions {
  /** Vector length (number of hash buckets), an integer in [1, 65536]. @default 384 */
  dimensions?: number;
  /** Character n-gram lengths, each an integer in [1, 10]. @default [3, 4, 5] */
  ngramSizes?: readonly number[];
  /**
   * Reference documents for inverse document frequency: idf(g) = ln((1 + N) / (1 + df(g))) + 1.
   * Empty = every n-gram weighs 1 (plain sublinear TF). IDF is fixed at construction, so an
   * embedding never depends on which other texts were embedded before. @default []
   */
  corpus?: readonly string[];
  /** Give each n-gram a hash-derived sign (±1) so collisions cancel in expectation. @default true */
  signedHashing?: boolean;
}

const defaults: Required<HashedNgramEmbedderOptions> = {
  dimensions: 384,
  ngramSizes: [3, 4, 5],
  corpus: [],
  signedHashing: true,
};

const knownHashedNgramOptions = defineOptionKeys<HashedNgramEmbedderOptions>()([
  'dimensions',
  'ngramSizes',
  'corpus',
  'signedHashing',
]);

/**
 * Creates the default, deterministic offline embedder: lower-cased, punctuation-collapsed text is cut
 * into character n-grams (padded with a space at both ends, so word starts and ends count), each
 * n-gram is hashed into one of `dimensions` buckets, weighted by (1 + ln tf)·idf and the vector is
 * L2-normalised. Identical text always gives an identical vector, in any process.
 *
 * @example
 * const embedder = createHashedNgramEmbedder({ dimensions: 384 });
 * const [a, b] = await embedder.embed(['security: SQL injection', 'sql injection risk']);
 */
export function createHashedNgramEmbedder(
  options?: HashedNgramEmbedderOptions,
): Embedder & { embedSync(text: string): Float32Array } {
  assertKnownOptions('options', options, knownHashedNgramOptions, 'createHashedNgramEmbedder');
  const resolved = resolveOptions(defaults, options);
  assertInteger('options.dimensions', resolved.dimensions, 1, 65536);
  if (!Array.isArray(resolved.ngramSizes) || resolved.ngramSizes.length === 0) {
    throw new InvalidArgumentError({
      parameter: 'options.ngramSizes',
      value: resolved.ngramSizes,
      message: `options.ngramSizes must be a non-empty list of n-gram lengths, got ${JSON.stringify(resolved.ngramSizes)}; pass e.g. [3, 4, 5]`,
    });
  }
  resolved.ngramSizes.forEach((size, index) => assertInteger(`options.ngramSizes[${index}]`, size, 1, 10));
  const { dimensions, ngramSizes, signedHashing } = resolved;

  const idf = new Map<string, number>();
  const corpus = resolved.corpus;
  if (corpus.length > 0) {
    const documentFrequency = new Map<string, number>();
    corpus.forEach((document, index) => {
      if (typeof document !== 'string') {
        throw new InvalidArgumentError({
          parameter: `options.corpus[${index}]`,
          value: document,
          message: `options.corpus[${index}] must be a string, got ${typeof document}`,
        });
      }
      for (const gram of new Set(ngrams(document, ngramSizes)))
        documentFrequency.set(gram, (documentFrequency.get(gram) ?? 0) + 1);
    });
    // idf(g) = ln((1 + N) / (1 + df(g))) + 1 (smoothed, as in scikit-learn's TfidfTransformer)
    for (const [gram, frequency] of documentFrequency)
      idf.set(gram, Math.log((1 + corpus.length) / (1 + frequency)) + 1);
  }
  const unseenIdf = corpus.length > 0 ? Math.log(1 + corpus.length) + 1 : 1;

  const embedSync = (text: string): Float32Array => {
    const counts = new Map<string, number>();
    for (const gram of ngrams(text, ngramSizes)) counts.set(gram, (counts.get(gram) ?? 0) + 1);
    const vector = new Float32Array(dimensions);
    const accumulator = new Float64Array(dimensions);
    for (const [gram, count] of counts) {
      const hash = hashString(gram);
      const bucket = hash % dimensions;
      const sign = signedHashing && hash >>> 31 === 1 ? -1 : 1;
      // w(g) = (1 + ln tf(g)) · idf(g)
      accumulator[bucket] =
        (accumulator[bucket] as number) + sign * (1 + Math.log(count)) * (idf.get(gram) ?? unseenIdf);
    }
    let squared = 0;
    for (let index = 0; index < dimensions; index++) squared += (accumulator[index] as number) ** 2;
    if (squared === 0) return vector;
    const scale = 1 / Math.sqrt(squared);
    for (let index = 0; index < dimensions; index++) vector[index] = (accumulator[index] as number) * scale;
    return vector;
  };

  return {
    name: 'hashed-ngram',
    dimensions,
    embedSync,
    async embed(texts) {
      if (!Array.isArray(texts)) {
        throw new InvalidArgumentError({
          parameter: 'texts',
          value: texts,
          message: `texts must be an array of strings, got ${typeof texts}`,
        });
      }
      return texts.map((text, index) => {
        if (typeof text !== 'string') {
          throw new InvalidArgumentError({
            parameter: `texts[${index}]`,
            value: text,
            message: `texts[${index}] must be a string, got ${typeof text}`,
          });
        }
        return embedSync(text);
      });
    },
  };
}

/** Normalises text (NFKC, lower case, runs of non-letters/digits to one space) for n-gram cutting. */
export function normalizeForNgrams(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function ngrams(text: string, sizes: readonly number[]): string[] {
  const normalized = normalizeForNgrams(text);
  if (normalized.length === 0) return [];
  const padded = ` ${normalized} `;
  const grams: string[] = [];
  for (const size of sizes) {
    for (let start = 0; start + size <= padded.length; start++) grams.push(padded.slice(start, start + size));
  }
  return grams;
}
