import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import { allDebateMethodNames, createDebateMethod, debateMethodNames } from './methods.js';

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

  it('builds our MiniRep variants by name, with their own options (MiniRep-DS spares a lone pair)', () => {
    expect(allDebateMethodNames).toEqual([
      ...debateMethodNames,
      'minirep-lo',
      'minirep-ds',
      'minirep-rt',
      'minirep-es',
      'minirep-ic',
      'minirep-rt-ic-es',
      'minirep-ds-ic-es',
      'minirep-veto',
      'minirep-vb',
      'minirep-vg',
      'verifier-majority',
    ]);
    for (const name of allDebateMethodNames) expect(createDebateMethod(name, { agents }).name).toBe(name);
    expect(
      createDebateMethod('minirep-vg', { agents, verifierCalibration: { sensitivity: 0.9, specificity: 0.8 } }).name,
    ).toBe('minirep-vg');
    // Five agents: a and b alone answer 9 on four tasks, c, d, e answer apart. For the pair the rest
    // {c, d, e} never holds 9, so its exclusive-agreement rate after 3 tasks is
    // (1 + 0.95 + 0.9025 + 0.25) / (2.8525 + 2) = 0.639 ≥ τ = 0.5, and 2 of 5 answering agents is a
    // minority: minirep flags a and b; minirep-ds (blocs of 3 or more) does not.
    const five = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, model: `m-${id}` }));
    const answers: Record<string, string> = { a: '9', b: '9', c: '1', d: '2', e: '3' };
    const flaggedOnFourth = (name: 'minirep' | 'minirep-ds') => {
      const { aggregator } = createDebateMethod(name, { agents: five });
      let flagged: string[] = [];
      for (const taskId of ['t1', 't2', 't3', 't4']) {
        const proposals: Proposal[] = five.map(({ id }) => ({
          agentId: id,
          taskId,
          round: 0,
          text: answers[id] as string,
          answer: answers[id] as string,
        }));
        const decision = aggregator.aggregate({
          task: { id: taskId, kind: 'number', prompt: `question ${taskId}` },
          proposals,
          agents: five,
        });
        flagged = decision.reasons.filter((reason) => reason.components?.flagged === 1).map((reason) => reason.agentId);
      }
      return flagged;
    };
    expect(flaggedOnFourth('minirep')).toEqual(['a', 'b']);
    expect(flaggedOnFourth('minirep-ds')).toEqual([]);
  });
});
