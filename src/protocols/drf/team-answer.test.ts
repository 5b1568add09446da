import { describe, expect, it } from 'vitest';
import type { Proposal } from '../../core/proposal.js';
import { decideTeamAnswer } from './team-answer.js';

const asNumber = (text: string) =>
  text
    .split('/')
    .map(Number)
    .reduce((numerator, denominator) => numerator / denominator);
const proposal = (agentId: string, answer: string | null): Proposal => ({
  agentId,
  taskId: 't',
  round: 0,
  text: String(answer),
  answer,
});

describe('decideTeamAnswer', () => {
  it('lets reputation outweigh head count', () => {
    // '7' has 0.9, '8' has 0.3 + 0.4 = 0.7: the reputation-weighted plurality is '7'.
    const decision = decideTeamAnswer({
      taskId: 't',
      proposals: [proposal('a', '7'), proposal('b', '8'), proposal('c', '8')],
      weights: { a: 0.9, b: 0.3, c: 0.4 },
    });
    expect(decision.answer).toBe('7');
    expect(decision.support['7']).toBeCloseTo(0.9, 12);
    expect(decision.support['8']).toBeCloseTo(0.7, 12);
  });

  it('reports answers named like Object.prototype members as own support keys', () => {
    // '__proto__': 0.5 + 0.25 = 0.75 against 'constructor': 0.5.
    const decision = decideTeamAnswer({
      taskId: 't',
      proposals: [proposal('a', '__proto__'), proposal('b', '__proto__'), proposal('c', 'constructor')],
      weights: { a: 0.5, b: 0.25, c: 0.5 },
    });
    expect(decision.answer).toBe('__proto__');
    expect(Object.keys(decision.support)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(decision.support, '__proto__')?.value).toBe(0.75);
    expect(Object.hasOwn(decision.support, 'constructor') && decision.support.constructor).toBe(0.5);
  });

  it('breaks a support tie by the strongest supporter, then by proposal order', () => {
    // '1': 0.5 + 0.1 = 0.6 (strongest 0.5); '2': 0.6 (strongest 0.6) -> '2'.
    expect(
      decideTeamAnswer({
        taskId: 't',
        proposals: [proposal('a', '1'), proposal('b', '1'), proposal('c', '2')],
        weights: { a: 0.5, b: 0.1, c: 0.6 },
      }).answer,
    ).toBe('2');
    expect(
      decideTeamAnswer({
        taskId: 't',
        proposals: [proposal('a', '1'), proposal('b', '2')],
        weights: { a: 0.5, b: 0.5 },
      }).answer,
    ).toBe('1');
  });

  it('ignores unparsed proposals, uses equal votes when all reputations are 0, and returns null when nothing parsed', () => {
    expect(
      decideTeamAnswer({
        taskId: 't',
        proposals: [proposal('a', null), proposal('b', '3'), proposal('c', '3'), proposal('d', '4')],
        weights: {},
      }).answer,
    ).toBe('3');
    expect(decideTeamAnswer({ taskId: 't', proposals: [proposal('a', null)], weights: { a: 1 } }).answer).toBeNull();
  });

  it('uses equal votes when every member with a parsed answer has reputation 0, whatever unparsed members have', () => {
    // Voters x, y, z all at 0; w (0.8) gave no answer. Equal votes: '7' has y and z (2) against '5' with x (1).
    const decision = decideTeamAnswer({
      taskId: 't',
      proposals: [proposal('x', '5'), proposal('y', '7'), proposal('z', '7'), proposal('w', null)],
      weights: { x: 0, y: 0, z: 0, w: 0.8 },
    });
    expect(decision.answer).toBe('7');
    expect(decision.support).toEqual({ '5': 1, '7': 2 });
    expect(decision.reasons.map((reason) => [reason.agentId, reason.weight, reason.note])).toEqual([
      ['x', 1, 'all reputations 0: equal vote'],
      ['y', 1, 'all reputations 0: equal vote'],
      ['z', 1, 'all reputations 0: equal vote'],
      ['w', 0, 'unparsed proposal: no vote'],
    ]);
  });

  it('groups answers with a custom equality', () => {
    const decision = decideTeamAnswer({
      taskId: 't',
      proposals: [proposal('a', '0.5'), proposal('b', '1/2'), proposal('c', '2')],
      weights: { a: 0.3, b: 0.3, c: 0.5 },
      sameAnswer: (x, y) => asNumber(x) === asNumber(y),
    });
    expect(decision.answer).toBe('0.5');
  });
});
