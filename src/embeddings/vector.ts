import { InvalidArgumentError } from '../core/errors.js';

/** Dot product of two equal-length vectors. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assertSameLength(a, b);
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

/** Euclidean (L2) norm of a vector. */
export function norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index++) sum += (vector[index] as number) * (vector[index] as number);
  return Math.sqrt(sum);
}

/**
 * Cosine similarity a·b / (|a| |b|) in [-1, 1]; 0 when either vector is all zeros (an empty text has
 * no direction, so it resembles nothing).
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const denominator = norm(a) * norm(b);
  if (denominator === 0) return 0;
  return Math.max(-1, Math.min(1, dot(a, b) / denominator));
}

/** Cosine distance 1 − cos(a, b) in [0, 2]; RAPS logs it as subscription drift. */
export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return 1 - cosineSimilarity(a, b);
}

/** Returns an L2-normalised copy (a zero vector stays zero). */
export function normalizeVector(vector: ArrayLike<number>): Float32Array {
  const length = norm(vector);
  const result = new Float32Array(vector.length);
  if (length === 0) return result;
  for (let index = 0; index < vector.length; index++) result[index] = (vector[index] as number) / length;
  return result;
}

function assertSameLength(a: ArrayLike<number>, b: ArrayLike<number>): void {
  if (a.length !== b.length) {
    throw new InvalidArgumentError({
      parameter: 'b',
      value: b.length,
      message: `vectors must have the same length, got ${a.length} and ${b.length}; embed both texts with the same embedder`,
    });
  }
}
