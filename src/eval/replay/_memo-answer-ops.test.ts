import { describe, expect, it } from 'vitest';
import type { AnswerOps } from './answer-ops.js';
import { memoizeAnswerOps } from './_memo-answer-ops.js';

describe('memoizeAnswerOps', () => {
  // A counting stand-in: canonical trims, equivalent compares trimmed text, score is exact equality.
  const calls = { canonical: 0, equivalent: 0, score: 0 };
  const counting: AnswerOps = {
    canonical: (_kind, raw) => (calls.canonical++, raw.trim() || null),
    equivalent: (_kind, left, right) => (calls.equivalent++, left.trim() === right.trim()),
    score: (_kind, key, reference) => {
      calls.score++;
      const exact = key === reference ? 1 : 0;
      return { exact, f1: exact };
    },
  };

  it('answers each distinct call once and returns what the wrapped ops return', () => {
    const ops = memoizeAnswerOps(counting);
    expect([ops.canonical('math', ' 4 '), ops.canonical('math', ' 4 '), ops.canonical('math', '  ')]).toEqual([
      '4',
      '4',
      null,
    ]);
    // A cached null stays cached: 2 distinct raw strings, 2 calls.
    expect(ops.canonical('math', '  ')).toBeNull();
    expect(calls.canonical).toBe(2);
    // The same text under another kind is another question.
    ops.canonical('number', ' 4 ');
    expect(calls.canonical).toBe(3);
    expect([
      ops.equivalent('math', '4', ' 4'),
      ops.equivalent('math', '4', ' 4'),
      ops.equivalent('math', ' 4', '4'),
    ]).toEqual([true, true, true]);
    expect(calls.equivalent).toBe(2);
    expect(ops.score('math', '4', '4')).toEqual({ exact: 1, f1: 1 });
    expect(ops.score('math', '4', '4')).toEqual({ exact: 1, f1: 1 });
    expect(ops.score('math', '4', '5')).toEqual({ exact: 0, f1: 0 });
    expect(calls.score).toBe(2);
  });

  it('keeps a second argument apart from the first even when the text contains the separator', () => {
    const ops = memoizeAnswerOps(counting);
    expect(ops.equivalent('math', 'a\u0000b', 'c')).toBe(false);
    expect(ops.equivalent('math', 'a', 'b\u0000c')).toBe(false);
    expect(ops.equivalent('math', 'a\u0000b', 'a\u0000b')).toBe(true);
  });
});
