import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLiteralFallbackKey, literalAnswerKey, literalAnswerKind, literalFallbackKey } from './literal-answer.js';
import { formatPythonRepr, pythonKey, type PythonValue } from './python-literal.js';

describe('literal answer kind', () => {
  // The merges the `exact` kind made on predicted Python outputs (issue 10), now kept apart.
  it.each([
    ['[(4, 1), (2, 3)]', '(4, 1), (2, 3)'],
    ["'Hello'", "'hello'"],
    ["['a']", "'a'"],
    ['True', 'true'],
    ["'a b'", "'a  b '"],
    ['(1,)', '[1]'],
    ["'hello'", 'hello'],
  ])('%s ≢ %s', (a, b) => {
    expect(literalAnswerKind.equivalent(a, b)).toBe(false);
    expect(literalAnswerKind.equivalent(b, a)).toBe(false);
  });

  it.each([
    ["'a'", '"a"'],
    ['1', '1.0'],
    ["{'a': 1, 'b': 2}", '{"b": 2, "a": 1}'],
    ['{3, 1}', '{1, 3}'],
    ['[1,2]', ' [1, 2] '],
    ['Hello  world', '  Hello  world\n'],
  ])('%s ≡ %s', (a, b) => {
    expect(literalAnswerKind.equivalent(a, b)).toBe(true);
    expect(literalAnswerKind.equivalent(b, a)).toBe(true);
  });

  it('keys literals by canonical repr and other text by itself, trimmed', () => {
    expect(literalAnswerKey('{"b": [1.0], "a": (2,)}')).toBe("{'a': (2,), 'b': [1]}");
    expect(literalAnswerKey('(4, 1), (2, 3)')).toBe('(4, 1), (2, 3)');
    expect(literalAnswerKey('  odes  code  well \r\n')).toBe('odes  code  well');
    expect(literalAnswerKey(' \n ')).toBeNull();
    expect(literalFallbackKey('a\r\nb')).toBe('a\nb');
    expect(isLiteralFallbackKey('(4, 1), (2, 3)')).toBe(true);
    expect(isLiteralFallbackKey("'hello'")).toBe(false);
    expect(isLiteralFallbackKey('hello')).toBe(true);
  });

  it('extracts from the answer field, a fenced block, an assert line, or the whole text', () => {
    expect(literalAnswerKind.extract('{"reasoning": "sorts pairs", "answer": "[(4, 1), (2, 3)]"}')).toBe(
      '[(4, 1), (2, 3)]',
    );
    expect(literalAnswerKind.extract('{"reasoning": "...", "answer": {\'a\': 1}}')).toBe("{'a': 1}");
    // JSON's own words read as Python's: true is True, whose key is 1 (True == 1); null is None.
    expect(literalAnswerKind.extract('{"answer": true}')).toBe('1');
    expect(literalAnswerKind.extract('{"answer": null}')).toBe('None');
    expect(literalAnswerKind.extract('So:\n```python\nassert f([1, 1]) == [(2, 1), (2, 1)]\n```')).toBe(
      '[(2, 1), (2, 1)]',
    );
    expect(literalAnswerKind.extract('Output:\n```\n"Hello"\n```\nDone.')).toBe("'Hello'");
    expect(literalAnswerKind.extract("The call gives\nassert f('a==b') == 'x', 'check'\n")).toBe("'x'");
    expect(literalAnswerKind.extract('  [1, 2]  ')).toBe('[1, 2]');
    // The prompt's own `== ??` placeholder is no answer; the later assert line is.
    expect(literalAnswerKind.extract('assert f(3) == ??\n...\nassert f(3) == 9')).toBe('9');
  });

  it('falls back to the first candidate as text when nothing parses, and to null on blank text', () => {
    expect(literalAnswerKind.extract('{"answer": "hello world"}')).toBe('hello world');
    expect(literalAnswerKind.extract('It returns a list of two pairs.')).toBe('It returns a list of two pairs.');
    expect(literalAnswerKind.extract('   ')).toBeNull();
  });
});

// Values from a small domain, so that generated answers often collide, printed in varied styles:
// quote character, spacing, ints written as floats, dict and set order reversed.
type Small = PythonValue;
const smallScalar: fc.Arbitrary<Small> = fc.oneof(
  fc.constant<Small>({ type: 'none' }),
  fc.boolean().map<Small>((value) => ({ type: 'bool', value })),
  fc.integer({ min: 0, max: 2 }).map<Small>((value) => ({ type: 'int', value: BigInt(value) })),
  fc.constantFrom(0.5, 1, 2).map<Small>((value) => ({ type: 'float', value })),
  fc.constantFrom('a', 'A', 'a b', 'a  b', '').map<Small>((value) => ({ type: 'str', value })),
);
const { small } = fc.letrec<{ small: Small }>((tie) => ({
  small: fc.oneof(
    { depthSize: 'small' },
    smallScalar,
    fc.array(tie('small'), { maxLength: 3 }).map<Small>((items) => ({ type: 'list', items })),
    fc.array(tie('small'), { maxLength: 3 }).map<Small>((items) => ({ type: 'tuple', items })),
    fc.uniqueArray(smallScalar, { maxLength: 3, selector: pythonKey }).map<Small>((items) => ({ type: 'set', items })),
    fc
      .uniqueArray(fc.tuple(smallScalar, tie('small')), { maxLength: 3, selector: ([key]) => pythonKey(key) })
      .map<Small>((entries) => ({ type: 'dict', entries })),
  ),
}));

interface Style {
  readonly quote: "'" | '"';
  readonly space: string;
  readonly intAsFloat: boolean;
  readonly reverse: boolean;
}
const style: fc.Arbitrary<Style> = fc.record({
  quote: fc.constantFrom("'", '"'),
  space: fc.constantFrom('', ' ', '  '),
  intAsFloat: fc.boolean(),
  reverse: fc.boolean(),
});

function render(value: Small, format: Style): string {
  const join = (parts: string[]) => (format.reverse ? parts.reverse() : parts).join(`,${format.space}`);
  switch (value.type) {
    case 'int':
      return format.intAsFloat ? `${value.value}.0` : String(value.value);
    case 'str':
      return `${format.quote}${value.value}${format.quote}`;
    case 'list':
      return `[${value.items.map((item) => render(item, format)).join(`,${format.space}`)}]`;
    case 'tuple':
      return value.items.length === 1
        ? `(${render(value.items[0] as Small, format)},)`
        : `(${value.items.map((item) => render(item, format)).join(`,${format.space}`)})`;
    case 'set':
      return value.items.length === 0 ? 'set()' : `{${join(value.items.map((item) => render(item, format)))}}`;
    case 'dict':
      return `{${join(value.entries.map(([key, item]) => `${render(key, format)}:${format.space}${render(item, format)}`))}}`;
    default:
      return formatPythonRepr(value);
  }
}

describe('literal kind properties (fast-check)', () => {
  const answer = fc.oneof(
    fc.tuple(small, style).map(([value, format]) => render(value, format)),
    fc.string({ maxLength: 12 }),
  );

  it('key(key(x)) = key(x), on printed values and on arbitrary text', () => {
    fc.assert(
      fc.property(answer, (text) => {
        const key = literalAnswerKey(text);
        if (key !== null) expect(literalAnswerKey(key)).toBe(key);
      }),
      { numRuns: 2000 },
    );
  });

  it('any two printings of one value are equivalent', () => {
    fc.assert(
      fc.property(small, style, style, (value, left, right) => {
        expect(literalAnswerKind.equivalent(render(value, left), render(value, right))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('equivalence is symmetric and transitive', () => {
    fc.assert(
      fc.property(answer, answer, answer, (a, b, c) => {
        expect(literalAnswerKind.equivalent(a, b)).toBe(literalAnswerKind.equivalent(b, a));
        if (literalAnswerKind.equivalent(a, b) && literalAnswerKind.equivalent(b, c))
          expect(literalAnswerKind.equivalent(a, c)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
