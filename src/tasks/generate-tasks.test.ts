import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { generateTasks } from './generate-tasks.js';

/** Recomputes a generated task's answer from its prompt text alone (a second method). */
function solveFromPrompt(prompt: string): number {
  const numbers = (prompt.match(/-?\d+/g) ?? []).map(Number);
  let match = /^What is (\d+) \+ (\d+) - (\d+)\?$/.exec(prompt);
  if (match) return Number(match[1]) + Number(match[2]) - Number(match[3]);
  match = /^Compute (\d+) × (\d+) - (\d+)\.$/.exec(prompt);
  if (match) return Number(match[1]) * Number(match[2]) - Number(match[3]);
  match = /^Solve for x: (\d+)x ([+-]) (\d+) = (-?\d+)\./.exec(prompt);
  if (match) {
    // Search x by substitution rather than by inverting the equation.
    const [a, sign, b, c] = [Number(match[1]), match[2], Number(match[3]), Number(match[4])];
    for (let x = -1000; x <= 1000; x++) if (a * x + (sign === '-' ? -b : b) === c) return x;
  }
  match = /^Compute \((\d+) × (\d+)\) - (\d+) × (\d+)\.$/.exec(prompt);
  if (match) return Number(match[1]) * Number(match[2]) - Number(match[3]) * Number(match[4]);
  match = /^What is the sum of the first (\d+) terms of the arithmetic sequence (\d+), (\d+),/.exec(prompt);
  if (match) {
    let sum = 0;
    const [n, first, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
    for (let index = 0; index < n; index++) sum += first + index * (second - first);
    return sum;
  }
  match = /^If (\d+)x ([+-]) (\d+)y = (-?\d+) and (\d+)x ([+-]) (\d+)y = (-?\d+), what is x \+ y\?$/.exec(prompt);
  if (match) {
    const a = Number(match[1]);
    const b = (match[2] === '-' ? -1 : 1) * Number(match[3]);
    const c = Number(match[5]);
    const d = (match[6] === '-' ? -1 : 1) * Number(match[7]);
    const [e1, e2] = [Number(match[4]), Number(match[8])];
    for (let x = -200; x <= 200; x++)
      for (let y = -200; y <= 200; y++) if (a * x + b * y === e1 && c * x + d * y === e2) return x + y;
  }
  throw new Error(`unrecognised prompt ${prompt} (${numbers.join(',')})`);
}

describe('generateTasks', () => {
  const tasks = generateTasks({ count: 200, seed: 5 });

  it('is deterministic per seed and differs across seeds', () => {
    expect(generateTasks({ count: 200, seed: 5 })).toEqual(tasks);
    expect(generateTasks({ count: 200, seed: 6 })).not.toEqual(tasks);
  });

  it('spreads difficulty evenly over [0, 1]: one task per 1/count slice', () => {
    // Stratified: the i-th smallest difficulty lies in slice [i/200, (i+1)/200], up to rounding to 3 decimals (±0.0005).
    const sorted = tasks.map(({ task }) => task.difficulty as number).sort((a, b) => a - b);
    sorted.forEach((difficulty, index) => {
      expect(difficulty).toBeGreaterThanOrEqual(index / 200 - 0.0005);
      expect(difficulty).toBeLessThanOrEqual((index + 1) / 200 + 0.0005);
    });
    for (const { task } of tasks) {
      expect(task.difficulty).toBeGreaterThanOrEqual(0);
      expect(task.difficulty).toBeLessThanOrEqual(1);
    }
  });

  it('has verifiable answers: each reference matches a recomputation from the prompt', () => {
    for (const { task, reference } of tasks) {
      const fraction = /^Compute (\d+)\/(\d+) \+ (\d+)\/(\d+)/.exec(task.prompt);
      if (fraction) {
        const [p1, q1, p2, q2] = fraction.slice(1).map(Number) as [number, number, number, number];
        const parts = /^\\frac\{(\d+)\}\{(\d+)\}$/.exec(reference);
        const [p, q] = parts ? [Number(parts[1]), Number(parts[2])] : [Number(reference), 1];
        // p/q = p1/q1 + p2/q2  <=>  p·q1·q2 = q·(p1·q2 + p2·q1), and p/q is in lowest terms.
        expect(p * q1 * q2).toBe(q * (p1 * q2 + p2 * q1));
        let [x, y] = [p, q];
        while (y) [x, y] = [y, x % y];
        expect(x).toBe(1);
        expect(task.kind).toBe('math');
        continue;
      }
      expect(Number(reference)).toBe(solveFromPrompt(task.prompt));
    }
  });

  it('makes harder tasks come from harder families', () => {
    const easy = tasks.filter(({ task }) => (task.difficulty as number) < 0.2).map(({ task }) => task.metadata?.family);
    const hard = tasks
      .filter(({ task }) => (task.difficulty as number) >= 0.8)
      .map(({ task }) => task.metadata?.family);
    expect(new Set(easy)).toEqual(new Set(['sum']));
    expect(new Set(hard)).toEqual(new Set(['fraction-sum', 'linear-system']));
  });

  it('refuses a bad count', () => {
    expect(() => generateTasks({ count: 0 })).toThrow(InvalidArgumentError);
  });
});
