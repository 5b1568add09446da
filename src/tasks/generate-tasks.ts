import { assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { createRng, deriveSeed, randomInt, shuffle, type Rng } from '../core/rng.js';
import type { ReferencedTask } from '../core/task.js';

/** Options of {@link generateTasks}. */
export interface GenerateTasksOptions {
  /** Number of tasks, in [1, 100000]. @default 100 */
  readonly count?: number;
  /** Seed: the same seed always gives the same tasks. @default 2027 */
  readonly seed?: number;
  /** Prefix of task ids (`gen-0001`, ...). @default 'gen' */
  readonly idPrefix?: string;
}

interface Generated {
  readonly family: string;
  readonly kind: 'number' | 'math';
  readonly prompt: string;
  readonly reference: string;
}

const knownGenerateTasksOptions = defineOptionKeys<GenerateTasksOptions>()(['count', 'seed', 'idPrefix']);

/**
 * Generates arithmetic and algebra problems with verifiable answers and graded difficulty. The
 * difficulties are spread evenly over [0, 1] (stratified, one per 1/count slice) and the order is
 * shuffled; harder slices use harder problem families and larger numbers:
 * [0, 0.2) sums, [0.2, 0.4) mixed operations, [0.4, 0.6) linear equations, [0.6, 0.8) products and
 * series, [0.8, 1] fraction sums (kind `math`, answers `\frac{p}{q}`) and two-equation systems.
 *
 * @example
 * const tasks = generateTasks({ count: 100, seed: 2027 });
 * tasks[0]; // { task: { id: 'gen-0001', kind: 'number', prompt: 'Solve for x: ...', difficulty: 0.43 }, reference: '7' }
 */
export function generateTasks(options: GenerateTasksOptions = {}): ReferencedTask[] {
  assertKnownOptions('', options, knownGenerateTasksOptions, 'generateTasks');
  const { count = 100, seed = 2027, idPrefix = 'gen' } = options;
  assertInteger('count', count, 1, 100_000, 'pass e.g. { count: 100 }');
  const orderRng = createRng(deriveSeed(seed, 'task-order'));
  const difficulties = shuffle(
    orderRng,
    Array.from({ length: count }, (_, index) => (index + createRng(deriveSeed(seed, 'task-jitter', index))()) / count),
  );
  const width = Math.max(4, String(count).length);
  return difficulties.map((difficulty, index) => {
    const rng = createRng(deriveSeed(seed, 'task', index));
    const generated = generateOne(rng, difficulty);
    const rounded = Math.round(difficulty * 1000) / 1000;
    return {
      task: {
        id: `${idPrefix}-${String(index + 1).padStart(width, '0')}`,
        kind: generated.kind,
        prompt: generated.prompt,
        difficulty: rounded,
        metadata: { family: generated.family, source: 'repute-generator' },
      },
      reference: generated.reference,
    };
  });
}

/** Scales a magnitude with difficulty inside a family's slice (t ∈ [0, 1]). */
function between(rng: Rng, low: number, high: number): number {
  return low + randomInt(rng, high - low + 1);
}

function nonZero(rng: Rng, low: number, high: number): number {
  const value = between(rng, low, high);
  return value === 0 ? high : value;
}

function generateOne(rng: Rng, difficulty: number): Generated {
  const slice = Math.min(4, Math.floor(difficulty * 5));
  const t = difficulty * 5 - slice;
  const scale = (base: number) => Math.round(base * (1 + 4 * t));
  switch (slice) {
    case 0: {
      const a = between(rng, 2, scale(20));
      const b = between(rng, 2, scale(20));
      const c = between(rng, 1, scale(10));
      return { family: 'sum', kind: 'number', prompt: `What is ${a} + ${b} - ${c}?`, reference: String(a + b - c) };
    }
    case 1: {
      const a = between(rng, 3, scale(15));
      const b = between(rng, 3, 12);
      const c = between(rng, 5, scale(40));
      return {
        family: 'mixed-operations',
        kind: 'number',
        prompt: `Compute ${a} × ${b} - ${c}.`,
        reference: String(a * b - c),
      };
    }
    case 2: {
      const a = nonZero(rng, 2, scale(4) + 2);
      const x = between(rng, -scale(8), scale(12));
      const b = between(rng, -scale(20), scale(20));
      const c = a * x + b;
      const sign = b < 0 ? '-' : '+';
      return {
        family: 'linear-equation',
        kind: 'number',
        prompt: `Solve for x: ${a}x ${sign} ${Math.abs(b)} = ${c}. Give the value of x.`,
        reference: String(x),
      };
    }
    case 3: {
      if (rng() < 0.5) {
        const a = between(rng, 12, scale(40) + 12);
        const b = between(rng, 12, scale(30) + 12);
        const c = between(rng, 2, 9);
        return {
          family: 'product',
          kind: 'number',
          prompt: `Compute (${a} × ${b}) - ${c} × ${a}.`,
          reference: String(a * b - c * a),
        };
      }
      const first = between(rng, 1, 9);
      const step = between(rng, 2, 7);
      const terms = between(rng, 8, scale(6) + 8);
      const sum = (terms * (2 * first + (terms - 1) * step)) / 2;
      return {
        family: 'arithmetic-series',
        kind: 'number',
        prompt: `What is the sum of the first ${terms} terms of the arithmetic sequence ${first}, ${first + step}, ${first + 2 * step}, ...?`,
        reference: String(sum),
      };
    }
    default: {
      if (rng() < 0.5) {
        const q1 = between(rng, 2, scale(4) + 5);
        let q2 = between(rng, 2, scale(4) + 5);
        if (q2 === q1) q2 += 1;
        const p1 = between(rng, 1, q1 * 2);
        const p2 = between(rng, 1, q2 * 2);
        let numerator = p1 * q2 + p2 * q1;
        let denominator = q1 * q2;
        const divisor = gcd(numerator, denominator);
        numerator /= divisor;
        denominator /= divisor;
        const reference = denominator === 1 ? String(numerator) : `\\frac{${numerator}}{${denominator}}`;
        return {
          family: 'fraction-sum',
          kind: 'math',
          prompt: `Compute ${p1}/${q1} + ${p2}/${q2} and give the result as a fraction in lowest terms.`,
          reference,
        };
      }
      const x = between(rng, -scale(6), scale(9));
      const y = between(rng, -scale(6), scale(9));
      const a = nonZero(rng, 1, 6);
      const b = nonZero(rng, 1, 6);
      let c = nonZero(rng, 1, 6);
      const d = nonZero(rng, -5, 6);
      // Keep the system non-singular: a·d − b·c ≠ 0.
      if (a * d - b * c === 0) c += 1;
      const e1 = a * x + b * y;
      const e2 = c * x + d * y;
      const term = (coefficient: number, name: string) =>
        `${coefficient < 0 ? '- ' : '+ '}${Math.abs(coefficient)}${name}`;
      return {
        family: 'linear-system',
        kind: 'number',
        prompt: `If ${a}x ${term(b, 'y')} = ${e1} and ${c}x ${term(d, 'y')} = ${e2}, what is x + y?`,
        reference: String(x + y),
      };
    }
  }
}

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) [x, y] = [y, x % y];
  return x || 1;
}
