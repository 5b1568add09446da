import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createVerifierMajorityAggregator } from './verifier-majority.js';

const task = { id: 't', kind: 'exact' as const, prompt: '' };
const team: AgentIdentity[] = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, model: id }));
const propose = (agentId: string, answer: string | null): Proposal => ({
  agentId,
  taskId: 't',
  round: 0,
  text: answer ?? '',
  answer,
});
const proposals = [propose('a', '1'), propose('b', '1'), propose('c', '1'), propose('d', '2'), propose('e', null)];

describe('createVerifierMajorityAggregator', () => {
  it('votes among accepted proposals only: one accepted 2 beats three rejected 1s', () => {
    // a, b, c (answer 1) judged wrong; d (answer 2) judged right: the pool is {d}, so 2 wins 1 vote to 0.
    const decision = createVerifierMajorityAggregator().aggregate({
      task,
      proposals,
      agents: team,
      verdicts: { a: 0, b: 0, c: 0, d: 1, e: 1 },
    });
    expect(decision.answer).toBe('2');
    expect(decision.support).toEqual({ '2': 1 });
    expect(decision.reasons.find((reason) => reason.agentId === 'a')?.weight).toBe(0);
    expect(decision.reasons.find((reason) => reason.agentId === 'd')?.weight).toBe(1);
  });

  it('counts an agent without a verdict as accepted, and falls back to every parseable proposal when all are rejected', () => {
    // b has no verdict: pool {b, d} → 1 and 2 tie at one vote each; ties go to the key that sorts first, '1'.
    const partial = createVerifierMajorityAggregator().aggregate({
      task,
      proposals,
      agents: team,
      verdicts: { a: 0, c: 0, d: 1 },
    });
    expect(partial.support).toEqual({ '1': 1, '2': 1 });
    expect(partial.answer).toBe('1');
    // All rejected: plain plurality over a, b, c, d → 1 by 3 votes to 1.
    const fallback = createVerifierMajorityAggregator().aggregate({
      task,
      proposals,
      agents: team,
      verdicts: { a: 0, b: 0, c: 0, d: 0, e: 0 },
    });
    expect(fallback.answer).toBe('1');
    expect(fallback.support).toEqual({ '1': 3, '2': 1 });
  });

  it('refuses to run without verdicts', () => {
    expect(() => createVerifierMajorityAggregator().aggregate({ task, proposals, agents: team })).toThrow(
      InvalidArgumentError,
    );
  });
});
