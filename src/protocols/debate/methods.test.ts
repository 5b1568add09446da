import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { createDebateMethod, debateMethodNames } from './methods.js';

const agents = ['a', 'b', 'c'].map((id) => ({ id, model: `m-${id}` }));

describe('createDebateMethod', () => {
  it('refuses a k that is not a positive integer when the method is built, naming k', () => {
    for (const k of [0, -1, 2.5, Number.NaN]) {
      for (const name of ['random-k', 'drf', 'minirep'] as const) {
        let caught: unknown;
        try {
          createDebateMethod(name, { agents, k });
        } catch (error) {
          caught = error;
        }
        expect(caught, `${name} with k = ${k}`).toBeInstanceOf(InvalidArgumentError);
        expect((caught as InvalidArgumentError).parameter).toBe('k');
        expect((caught as InvalidArgumentError).value).toBe(k);
        expect((caught as Error).message).toMatch(/k must be an integer >= 1 .*got .*; pass e.g. \{ k: 3 \}/);
      }
    }
  });

  it('caps k at the pool size and defaults to min(7, pool size)', () => {
    expect(createDebateMethod('random-k', { agents, k: 10 }).k).toBe(3);
    expect(createDebateMethod('drf', { agents, k: 2 }).k).toBe(2);
    expect(createDebateMethod('drf', { agents }).k).toBe(3);
    for (const name of debateMethodNames) expect(createDebateMethod(name, { agents }).name).toBe(name);
  });
});
