import { describe, expect, it } from 'vitest';
import { createExactAnswerKind, exactAnswerKind } from './exact-answer.js';

describe('exact answer kind', () => {
  it.each([
    ['The Eiffel Tower.', 'eiffel tower', 'case, article, trailing period'],
    ['  "Paris" ', 'paris', 'quotes and spaces'],
    ['New   York', 'new york', 'inner whitespace collapsed'],
    ['\\text{Devon}', 'Devon', 'LaTeX text wrapper'],
  ])('%s ≡ %s (%s)', (a, b) => {
    expect(exactAnswerKind.equivalent(a, b)).toBe(true);
    expect(exactAnswerKind.equivalent(b, a)).toBe(true);
  });

  it.each([
    ['Paris', 'London'],
    ['New York', 'NewYork'],
    ['...', '...'],
  ])('%s ≢ %s', (a, b) => {
    expect(exactAnswerKind.equivalent(a, b)).toBe(false);
  });

  it('keeps an answer that is only an article, and the letters of abbreviations', () => {
    // Articles dropped, nothing left: "A" had no key, so scoreAnswer('exact', 'A', 'A') was wrong.
    expect(exactAnswerKind.canonicalKey('A')).toBe('a');
    expect(exactAnswerKind.equivalent('(A)', 'a')).toBe(true);
    expect(exactAnswerKind.equivalent('The', 'the')).toBe(true);
    expect(exactAnswerKind.equivalent('A', 'B')).toBe(false);
    // "A" inside U.S.A. is not a word of its own: U.S.A. ≢ U.S.
    expect(exactAnswerKind.equivalent('U.S.A.', 'U.S.')).toBe(false);
    expect(exactAnswerKind.equivalent('a U.S.A. team', 'U.S.A. team')).toBe(true);
    for (const answer of ['A', '(A)', 'The', 'U.S.A.', 'The Eiffel Tower.'])
      expect(exactAnswerKind.canonicalKey(exactAnswerKind.canonicalKey(answer) as string), answer).toBe(
        exactAnswerKind.canonicalKey(answer),
      );
  });

  it('keeps articles and case when told to', () => {
    const strict = createExactAnswerKind({ removeArticles: false, ignoreCase: false });
    expect(strict.equivalent('The Beatles', 'Beatles')).toBe(false);
    expect(strict.equivalent('Paris', 'paris')).toBe(false);
    expect(strict.canonicalKey('The Beatles!')).toBe('The Beatles');
  });

  it('extracts an answer line, JSON field or the whole text', () => {
    expect(exactAnswerKind.extract('Reasoning...\nAnswer: Marie Curie')).toBe('marie curie');
    expect(exactAnswerKind.extract('{"answer": "Oxygen"}')).toBe('oxygen');
    expect(exactAnswerKind.extract('  Oxygen. ')).toBe('oxygen');
  });
});
