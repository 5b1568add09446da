import { describe, expect, it } from 'vitest';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import { createReputationPlurality } from './_reputation-plurality.js';

const task: Task = { id: 't1', kind: 'literal', prompt: 'Which method?' };
const propose = (agentId: string, answer: string | null): Proposal => ({
  agentId,
  taskId: 't1',
  round: 0,
  text: answer ?? 'no idea',
  answer,
});
const agents = ['a', 'b', 'c', 'd'].map((id) => ({ id, model: `m-${id}` }));

describe('createReputationPlurality (RAPS default decision)', () => {
  it('sums reputation per answer, ties to the key that sorts first, and explains each vote', () => {
    const decision = createReputationPlurality().aggregate({
      task,
      agents,
      proposals: [propose('d', '5'), propose('a', '4'), propose('b', '5'), propose('c', null)],
      // support(4) = 0.5; support(5) = 0.2 + 0.3 = 0.5: a tie, '4' sorts first
      weights: { a: 0.5, b: 0.2, c: 0.9, d: 0.3 },
    });
    expect(decision.answer).toBe('4');
    expect(decision.support).toEqual({ '4': 0.5, '5': 0.5 });
    expect(decision.reasons.map((reason) => [reason.agentId, reason.weight, reason.note])).toEqual([
      ['a', 0.5, 'reputation weight'],
      ['b', 0.2, 'reputation weight'],
      ['c', 0, 'unparseable answer: no vote'],
      ['d', 0.3, 'reputation weight'],
    ]);
  });

  it('counts answers named like Object.prototype members as answers', () => {
    for (const key of ['constructor', 'toString', '__proto__']) {
      const decision = createReputationPlurality().aggregate({
        task,
        agents,
        proposals: [propose('a', key), propose('b', key), propose('c', '7')],
        // support(key) = 0.25 + 0.25 = 0.5 > support(7) = 0.4
        weights: { a: 0.25, b: 0.25, c: 0.4 },
      });
      expect(decision.answer, key).toBe(key);
      expect(Object.hasOwn(decision.support, key), key).toBe(true);
      expect(decision.support[key], key).toBe(0.5);
    }
  });
});
