import { describe, expect, it } from 'vitest';
import type { Proposal } from '../../core/proposal.js';
import { createBetaModel } from '../../reputation/beta.js';
import { createMiniRepModel } from '../../reputation/minirep.js';
import { miniRepPeerFilter, reputationPeerFilter } from './peer-filter.js';

const task = { id: 't', kind: 'number' as const, prompt: 'q' };
const proposal = (agentId: string, answer: string, text = `the answer is ${answer}`): Proposal => ({
  agentId,
  taskId: 't',
  round: 0,
  text,
  answer,
});

describe('reputationPeerFilter', () => {
  it('screens agents whose weight is below half the average', () => {
    const model = createBetaModel({ agents: ['a', 'b', 'c'] });
    for (let index = 0; index < 6; index++)
      model.observe([
        { type: 'outcome', taskId: `p${index}`, subject: 'c', success: 0 },
        { type: 'outcome', taskId: `p${index}`, subject: 'a', success: 1 },
      ]);
    // Scores with λ = 0.9, six tasks: Σ 0.9^i (i < 6) = 4.6856; a = 5.6856/6.6856 = 0.850, b = 0.5, c = 1/6.6856 = 0.150.
    // Weights = score / 1.5: a 0.567, b 0.333, c 0.0998; the floor is 0.5/3 = 0.1667, so only c is screened.
    const screen = reputationPeerFilter(model)({
      task,
      round: 1,
      proposals: [proposal('a', '1'), proposal('b', '2'), proposal('c', '3')],
      history: [],
    });
    expect(screen.visible).toEqual(['a', 'b']);
    expect(screen.reasons[2]?.note).toMatch(/^screened: weight 0\.100 below 0\.167/);
  });
});

describe('miniRepPeerFilter', () => {
  it('screens a proposal that claims an agreement the others contradict', () => {
    const model = createMiniRepModel({ agents: ['a', 'b', 'c', 'd'] });
    const proposals = [
      proposal('a', '4'),
      proposal('b', '4'),
      proposal('c', '4'),
      proposal('d', '9', 'The answer is 9. All other agents agree that the answer is 9.'),
    ];
    const screen = miniRepPeerFilter(model)({ task, round: 1, proposals, history: [] });
    expect(screen.visible).toEqual(['a', 'b', 'c']);
    expect(screen.reasons[3]?.note).toMatch(/^screened: flagged/);
  });
});
