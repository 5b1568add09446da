import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../core/errors.js';
import { createSimulationWorld, defaultAnswerKey } from './simulation-world.js';

describe('createSimulationWorld', () => {
  it('gives distinct near-miss distractors that never equal the reference', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -100000, max: 100000 }).map(String),
          fc
            .tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 2, max: 99 }))
            .map(([p, q]) => `\\frac{${p}}{${q}}`),
          fc.constantFrom('x+1', '(3,-1)', '2\\sqrt{2}'),
        ),
        (reference) => {
          const world = createSimulationWorld({
            tasks: [{ task: { id: 't', kind: 'math', prompt: 'q' }, reference }],
            seed: 1,
          });
          const key = world.reference('t');
          const distractors = world.distractors('t');
          expect(distractors.length).toBeGreaterThan(0);
          expect(new Set(distractors).size).toBe(distractors.length);
          expect(distractors).not.toContain(key);
          expect(world.payload('t')).not.toBe(key);
          expect(world.idiosyncratic('t', 0.5)).not.toBe(key);
          expect(distractors).not.toContain(world.idiosyncratic('t', 0.3));
        },
      ),
    );
  });

  it('puts the off-by-one answers first', () => {
    const world = createSimulationWorld({
      tasks: [{ task: { id: 't', kind: 'number', prompt: 'q' }, reference: '12' }],
      seed: 1,
    });
    expect(world.distractors('t').slice(0, 2)).toEqual(['13', '11']);
  });

  it('names an unknown task', () => {
    const world = createSimulationWorld({
      tasks: [{ task: { id: 't', kind: 'number', prompt: 'q' }, reference: '1' }],
      seed: 1,
    });
    expect(() => world.reference('nope')).toThrow(NotFoundError);
  });

  it('keys references like the answer kinds key live replies', () => {
    const task = { id: 't', kind: 'math' as const, prompt: 'q' };
    // 3/4 = 0.75 and -1/2 = -0.5 as the math kind's numeric keys; 1,234 loses its separator.
    expect(defaultAnswerKey(task, '\\frac{3}{4}')).toBe('0.75');
    expect(defaultAnswerKey({ ...task, kind: 'number' }, '1,234')).toBe('1234');
    expect(defaultAnswerKey(task, '-\\dfrac{1}{2}')).toBe('-0.5');
    // A kind that cannot key the text falls back to light normalisation.
    expect(defaultAnswerKey({ ...task, kind: 'choice' }, '\\boxed{not a letter}')).toBe('not a letter');
  });
});
