import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { labelsAnswerKind, labelsExactMatch, parseLabelSet, sampleF1 } from './labels-answer.js';

describe('labels answer kind', () => {
  it.each([
    ['joy, anger', 'anger,joy', 'order'],
    ['Joy; ANGER', 'anger | joy', 'case and separators'],
    ['["joy", "anger", "joy"]', 'anger, joy', 'JSON array with a duplicate'],
  ])('%s ≡ %s (%s)', (a, b) => {
    expect(labelsAnswerKind.equivalent(a, b)).toBe(true);
    expect(labelsAnswerKind.equivalent(b, a)).toBe(true);
  });

  it.each([
    ['joy', 'joy, anger'],
    ['joy', 'love'],
    ['', ''],
  ])('%s ≢ %s', (a, b) => {
    expect(labelsAnswerKind.equivalent(a, b)).toBe(false);
  });

  it('keys are sorted comma-joined labels', () => {
    expect(labelsAnswerKind.canonicalKey('Sadness, joy, anger')).toBe('anger,joy,sadness');
    expect(labelsAnswerKind.canonicalKey(' , ')).toBeNull();
  });

  it('computes sample F1 by hand', () => {
    // P = {joy, love}, R = {joy}: 2·1 / (2 + 1) = 2/3.
    expect(sampleF1(['joy', 'love'], ['joy'])).toBeCloseTo(2 / 3, 12);
    // P = {a, b, c}, R = {b, c, d, e}: 2·2 / (3 + 4) = 4/7.
    expect(sampleF1(['a', 'b', 'c'], ['b', 'c', 'd', 'e'])).toBeCloseTo(4 / 7, 12);
    expect(sampleF1([], [])).toBe(1);
    expect(sampleF1(['a'], [])).toBe(0);
    expect(labelsExactMatch(['b', 'a'], ['a', 'b'])).toBe(true);
  });

  it('extracts labels from JSON, an answer line or the whole text', () => {
    expect(labelsAnswerKind.extract('{"labels": ["gratitude", "joy"]}')).toBe('gratitude,joy');
    expect(labelsAnswerKind.extract('The comment shows...\nAnswer: neutral')).toBe('neutral');
    expect(labelsAnswerKind.extract('admiration, approval')).toBe('admiration,approval');
  });

  it('F1 is 1 exactly on equal sets, symmetric and in [0, 1] (property)', () => {
    const labels = fc.uniqueArray(fc.constantFrom('joy', 'anger', 'fear', 'love', 'neutral', 'sadness'), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(labels, labels, (a, b) => {
        const f1 = sampleF1(a, b);
        expect(f1).toBeGreaterThanOrEqual(0);
        expect(f1).toBeLessThanOrEqual(1);
        expect(f1).toBe(sampleF1(b, a));
        expect(f1 === 1).toBe(labelsExactMatch(a, b));
        expect(parseLabelSet(a.join(','))).toEqual(a.slice().sort());
      }),
    );
  });
});
