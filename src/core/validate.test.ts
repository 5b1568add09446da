import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.js';
import { assertKnownNames, assertOneOf, assertUniqueTaskIds } from './validate.js';

describe('assertUniqueTaskIds', () => {
  it('accepts distinct ids and names the first repeated one with its index and the reason', () => {
    expect(() => assertUniqueTaskIds([{ id: 'a' }, { id: 'b' }], 'why')).not.toThrow();
    const call = () =>
      assertUniqueTaskIds([{ id: 'a' }, { id: 'b' }, { id: 'a' }, { id: 'b' }], 'the store keys results by task id');
    expect(call).toThrow(InvalidArgumentError);
    expect(call).toThrow(expect.objectContaining({ parameter: 'tasks[2].id', value: 'a' }));
    expect(call).toThrow('duplicate task id "a"; the store keys results by task id');
  });
});

describe('assertKnownNames', () => {
  it('accepts known names and names the first unknown one with the list to choose from', () => {
    expect(() => assertKnownNames('compare', ['x', 'y'], ['x', 'y', 'z'], 'aggregator')).not.toThrow();
    const call = () => assertKnownNames('compare', ['x', 'w', 'v'], ['x', 'y'], 'aggregator to compare');
    expect(call).toThrow(expect.objectContaining({ parameter: 'compare[1]', value: 'w' }));
    expect(call).toThrow('unknown aggregator to compare "w"; use one of x, y');
  });
});

describe('assertOneOf', () => {
  it('accepts an allowed value and otherwise lists the allowed ones, the note and the value', () => {
    expect(() => assertOneOf('split', 'tuning', ['heldout', 'tuning', 'all'])).not.toThrow();
    const two = () => assertOneOf('costs', 'daily', ['per-round', 'per-agent']);
    expect(two).toThrow(InvalidArgumentError);
    expect(two).toThrow(expect.objectContaining({ parameter: 'costs', value: 'daily' }));
    expect(two).toThrow("costs must be 'per-round' or 'per-agent', got \"daily\"");
    expect(() => assertOneOf('split', 'test', ['heldout', 'tuning', 'all'])).toThrow(
      "split must be 'heldout', 'tuning' or 'all', got \"test\"",
    );
    expect(() => assertOneOf('variant', 2, ['corrected', 'printed'], '(Eq. 2)')).toThrow(
      "variant must be 'corrected' or 'printed' (Eq. 2), got 2",
    );
    // Compared with ===: a string that merely contains an allowed value is refused.
    expect(() => assertOneOf('mode', 'all ', ['all'])).toThrow('mode must be \'all\', got "all "');
  });
});
