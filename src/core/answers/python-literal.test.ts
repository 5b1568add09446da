import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatPythonRepr,
  parsePythonLiteral,
  parsePythonLiteralPrefix,
  pythonKey,
  type PythonValue,
} from './python-literal.js';

const repr = (text: string): string | null => {
  const value = parsePythonLiteral(text);
  return value === null ? null : formatPythonRepr(value);
};
const key = (text: string): string | null => {
  const value = parsePythonLiteral(text);
  return value === null ? null : pythonKey(value);
};

describe('parsePythonLiteral + formatPythonRepr (expected reprs are what CPython 3.12 prints)', () => {
  it.each([
    ['[(4, 1), (2, 3)]', '[(4, 1), (2, 3)]'],
    ['[ (4,1) ,(2,3), ]', '[(4, 1), (2, 3)]'],
    ['"Hello"', "'Hello'"],
    ['"it\'s"', '"it\'s"'],
    ["'both \\' and \"'", "'both \\' and \"'"],
    ["'tab\\there\\n'", "'tab\\there\\n'"],
    ["'\\x41\\u00e9\\U0001F600\\101'", "'Aé😀A'"],
    ["'\\xa0\\x7f'", "'\\xa0\\x7f'"],
    ["r'\\d+\\''", '"\\\\d+\\\\\'"'],
    ['\'a\' "b"', "'ab'"],
    ["'''multi\nline'''", "'multi\\nline'"],
    ["b'\\x00ab\\xff'", "b'\\x00ab\\xff'"],
    ["B'it\\'s'", 'b"it\'s"'],
    ['0x1F', '31'],
    ['0o17', '15'],
    ['0b101', '5'],
    ['1_000_000', '1000000'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['-7', '-7'],
    ['1.0', '1.0'],
    ['1.', '1.0'],
    ['.5', '0.5'],
    ['1e16', '1e+16'],
    ['1e15', '1000000000000000.0'],
    ['0.0001', '0.0001'],
    ['0.00001', '1e-05'],
    ['-0.0', '-0.0'],
    ['1.5e300', '1.5e+300'],
    ['0.1', '0.1'],
    ['inf', 'inf'],
    ['-inf', '-inf'],
    ['2j', '2j'],
    ['1+2j', '(1+2j)'],
    ['(1.5-2j)', '(1.5-2j)'],
    ['-1-0.5j', '(-1-0.5j)'],
    ['True', 'True'],
    ['None', 'None'],
    ['()', '()'],
    ['(1,)', '(1,)'],
    ['(1)', '1'],
    ['{}', '{}'],
    ['set()', 'set()'],
    ['{3, 1, 3}', '{3, 1}'],
    ['frozenset({2, 1})', 'frozenset({2, 1})'],
    ['frozenset()', 'frozenset()'],
    ["{'a': 1, 'a': 2, 'b': [None]}", "{'a': 2, 'b': [None]}"],
    ['{1: "x", 1.0: "y", True: "z"}', "{1: 'z'}"],
    ["[[], {}, (), ('',)]", "[[], {}, (), ('',)]"],
  ])('%s → %s', (text, expected) => {
    expect(repr(text)).toBe(expected);
  });

  it.each([
    ['(4, 1), (2, 3)', 'a bare tuple: repr never prints one'],
    ['hello', 'a name'],
    ['[1, 2', 'unclosed'],
    ["'abc", 'unterminated string'],
    ["'a\nb'", 'newline in a one-line string'],
    ['007', 'leading zeros'],
    ['1 + 2', 'a sum that is not complex'],
    ['f(1)', 'a call'],
    ['{[1]: 2}', 'unhashable dict key'],
    ['{[1], 2}', 'unhashable set element'],
    ['nan', 'nan is not equal to itself'],
    ["'\\N{BULLET}'", '\\N{} needs the Unicode name table'],
    ["b'é'", 'non-ASCII in bytes'],
    ["'a' b'b'", 'str and bytes concatenated'],
    ["'a'\n'b'", 'adjacent strings on two lines outside brackets'],
    ['[1, 2, ..., 9]', 'Ellipsis (a truncated output)'],
    ['__import__("os").system("echo hacked")', 'code is never run'],
    ['', 'empty'],
    ['['.repeat(500) + ']'.repeat(500), 'nesting deeper than 200'],
  ])('refuses %j (%s)', (text) => {
    expect(parsePythonLiteral(text)).toBeNull();
  });

  it('parses a literal at the start of a text and reports where it ends', () => {
    expect(parsePythonLiteralPrefix("[1, 'a'], 'message'")).toEqual({
      value: {
        type: 'list',
        items: [
          { type: 'int', value: 1n },
          { type: 'str', value: 'a' },
        ],
      },
      end: 8,
    });
    expect(parsePythonLiteralPrefix('?? no')).toBeNull();
  });
});

describe('pythonKey: equal keys ⇔ Python ==', () => {
  it.each([
    ["'a'", '"a"'],
    ['1', '1.0'],
    ['1', 'True'],
    ['0', '-0.0'],
    ['(1+0j)', '1'],
    ['10000000000000000', '1e16'],
    ['{1, 2}', '{2, 1}'],
    ['{1, 2}', 'frozenset([2, 1])'],
    ["{'a': 1, 'b': 2}", '{"b": 2, "a": 1}'],
    ['[1,2]', '[ 1 , 2 ]'],
    ["'a' 'b'", "'ab'"],
    ['8.5', '8.50'],
  ])('%s == %s', (left, right) => {
    expect(key(left)).not.toBeNull();
    expect(key(left)).toBe(key(right));
  });

  it.each([
    ["'Hello'", "'hello'"],
    ["'a b'", "'a  b '"],
    ['(1,)', '[1]'],
    ["['a']", "'a'"],
    ["'a'", "b'a'"],
    ['1', "'1'"],
    ['0.1', '0.10000000000000002'],
    ['[1, 2]', '[2, 1]'],
    ['None', '0'],
    ['9007199254740993', '9007199254740992.0'],
  ])('%s != %s', (left, right) => {
    expect(key(left)).not.toBe(key(right));
  });

  it('keys numbers by exact value, sets and dicts sorted', () => {
    // 2**53 + 1 is odd and no double holds it; Python compares int and float exactly, so they differ.
    expect(key('9007199254740993')).toBe('9007199254740993');
    expect(key('True')).toBe('1');
    expect(key('0.5')).toBe('0.5');
    expect(key('{"b": 2.0, "a": 1}')).toBe("{'a': 1, 'b': 2}");
    expect(key('frozenset()')).toBe('set()');
  });
});

// Arbitrary Python values. Complex numbers have no negative-zero parts, no infinities and no
// negative imaginary part with a zero real part: their repr does not read back to the same parts,
// in CPython either (`(-0+1j)` reads as `0 + 1j`, `-2j` as `-(0+2j)` = `(-0-2j)`).
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => (value === 0 ? 0 : value));
const scalar: fc.Arbitrary<PythonValue> = fc.oneof(
  fc.constant<PythonValue>({ type: 'none' }),
  fc.boolean().map<PythonValue>((value) => ({ type: 'bool', value })),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map<PythonValue>((value) => ({ type: 'int', value })),
  fc.double({ noNaN: true }).map<PythonValue>((value) => ({ type: 'float', value })),
  fc
    .tuple(finite, finite)
    .map<PythonValue>(([real, imag]) => ({ type: 'complex', real, imag: real === 0 ? Math.abs(imag) : imag })),
  fc.string({ unit: 'binary', maxLength: 8 }).map<PythonValue>((value) => ({ type: 'str', value })),
  fc
    .string({ unit: fc.constantFrom('a', ' ', "'", '"', '\\', '\n', '\t', 'é', '\u0000'), maxLength: 6 })
    .map<PythonValue>((value) => ({ type: 'str', value })),
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 6 }).map<PythonValue>((value) => ({ type: 'bytes', value })),
);
const isHashable = (value: PythonValue): boolean =>
  value.type === 'tuple'
    ? value.items.every(isHashable)
    : value.type !== 'list' && value.type !== 'dict' && value.type !== 'set';
const { value: pythonValue } = fc.letrec<{ value: PythonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }).map<PythonValue>((items) => ({ type: 'list', items })),
    fc.array(tie('value'), { maxLength: 4 }).map<PythonValue>((items) => ({ type: 'tuple', items })),
    fc
      .uniqueArray(tie('value').filter(isHashable), { maxLength: 4, selector: pythonKey })
      .chain((items) =>
        fc.constantFrom<'set' | 'frozenset'>('set', 'frozenset').map<PythonValue>((type) => ({ type, items })),
      ),
    fc
      .uniqueArray(fc.tuple(tie('value').filter(isHashable), tie('value')), {
        maxLength: 4,
        selector: ([entryKey]) => pythonKey(entryKey),
      })
      .map<PythonValue>((entries) => ({ type: 'dict', entries })),
  ),
}));

describe('properties on generated Python values', () => {
  it('repr round trip: parse(repr(v)) prints as repr(v) and keys as v', () => {
    fc.assert(
      fc.property(pythonValue, (value) => {
        const text = formatPythonRepr(value);
        const parsed = parsePythonLiteral(text);
        expect(parsed, text).not.toBeNull();
        expect(formatPythonRepr(parsed as PythonValue)).toBe(text);
        expect(pythonKey(parsed as PythonValue)).toBe(pythonKey(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('a key is a literal whose key is itself', () => {
    fc.assert(
      fc.property(pythonValue, (value) => {
        const canonical = pythonKey(value);
        const parsed = parsePythonLiteral(canonical);
        expect(parsed, canonical).not.toBeNull();
        expect(pythonKey(parsed as PythonValue)).toBe(canonical);
      }),
      { numRuns: 1000 },
    );
  });
});
