import { InvalidArgumentError } from './errors.js';

/** A source of uniform random numbers in [0, 1). Every sampling function takes one explicitly. */
export type Rng = () => number;

/**
 * Creates a seeded generator (sfc32 seeded through splitmix32), so that the same seed always gives
 * the same sequence on every platform.
 *
 * @example
 * const rng = createRng(2027);
 * rng(); // 0.3...
 */
export function createRng(seed: number | string): Rng {
  let state = typeof seed === 'string' ? hashString(seed) : normalizeSeed(seed);
  const next32 = (): number => {
    // splitmix32
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = next32();
  let b = next32();
  let c = next32();
  let d = next32();
  return () => {
    // sfc32
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/**
 * Derives an independent child seed from a seed and labels, so that parallel workers or named
 * streams (`deriveSeed(seed, 'attack', condition)`) never share a sequence.
 */
export function deriveSeed(seed: number | string, ...labels: Array<string | number>): number {
  return hashString([String(seed), ...labels.map(String)].join('\u0000'));
}

/**
 * {@link deriveSeed} with its first labels fixed: `seedDeriver(seed, a, b)(c, d)` equals
 * `deriveSeed(seed, a, b, c, d)`, but the fixed prefix is hashed once (FNV-1a runs left to right,
 * so the hash of the prefix is carried over), for a loop that derives one seed per step.
 *
 * @example
 * const selectSeed = seedDeriver(2027, 'all-strong/B/STRONG', 'drf');
 * selectSeed(17, 'select') === deriveSeed(2027, 'all-strong/B/STRONG', 'drf', 17, 'select'); // true
 */
export function seedDeriver(
  seed: number | string,
  ...labels: Array<string | number>
): (...more: Array<string | number>) => number {
  const prefix = fnv1a(0x811c9dc5, [String(seed), ...labels.map(String)].join('\u0000'));
  return (...more) =>
    more.length === 0 ? prefix >>> 0 : fnv1a(prefix, `\u0000${more.map(String).join('\u0000')}`) >>> 0;
}

/** 32-bit FNV-1a hash of a string, for seeding. */
export function hashString(text: string): number {
  return fnv1a(0x811c9dc5, text) >>> 0;
}

/** FNV-1a over `text`, continuing from the state `hash` (the offset basis 0x811c9dc5 to start). */
function fnv1a(start: number, text: string): number {
  let hash = start;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash;
}

function normalizeSeed(seed: number): number {
  if (!Number.isFinite(seed)) {
    throw new InvalidArgumentError({
      parameter: 'seed',
      value: seed,
      message: `seed must be a finite number or a string, got ${seed}; pass e.g. createRng(2027)`,
    });
  }
  return (Math.floor(seed) >>> 0) ^ Math.floor(seed / 4294967296);
}

/** Uniform integer in [0, n). */
export function randomInt(rng: Rng, n: number): number {
  if (!Number.isInteger(n) || n <= 0) {
    throw new InvalidArgumentError({
      parameter: 'n',
      value: n,
      message: `n must be a positive integer, got ${n}; pass the number of outcomes, e.g. randomInt(rng, 6)`,
    });
  }
  return Math.min(n - 1, Math.floor(rng() * n));
}

/** Returns a shuffled copy (Fisher–Yates); the input is not mutated. */
export function shuffle<T>(rng: Rng, items: readonly T[]): T[] {
  const copy = items.slice();
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(rng() * (index + 1));
    const held = copy[index] as T;
    copy[index] = copy[other] as T;
    copy[other] = held;
  }
  return copy;
}

/** Draws k distinct items uniformly without replacement, in draw order. */
export function sample<T>(rng: Rng, items: readonly T[], k: number): T[] {
  if (!Number.isInteger(k) || k < 0 || k > items.length) {
    throw new InvalidArgumentError({
      parameter: 'k',
      value: k,
      message: `k must be an integer in [0, ${items.length}], got ${k}; draw at most as many items as the pool holds (${items.length})`,
    });
  }
  return shuffle(rng, items).slice(0, k);
}

/** Standard normal draw (Box–Muller). */
export function randomNormal(rng: Rng): number {
  let u = rng();
  while (u <= Number.MIN_VALUE) u = rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
