import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findRepeatedKey } from './_repeated-keys.js';

const find = (text: string) => findRepeatedKey(text, JSON.parse(text));

// Strings full of the characters the counts and the scan look at: colons, quotes, backslashes, braces.
const tricky = fc.string({
  unit: fc.constantFrom(':', '"', '\\', '{', '}', '[', ']', ',', 'a', ' ', '\n', 'é'),
  maxLength: 8,
});
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('findRepeatedKey', () => {
  it('finds no repeated key in any JSON text JSON.stringify writes (property)', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (value, pretty) => {
        expect(find(JSON.stringify(value, null, pretty ? 2 : undefined))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('finds a key written twice, whatever the values and the keys around it (property)', () => {
    fc.assert(
      fc.property(
        tricky,
        json,
        json,
        fc.dictionary(tricky, json, { maxKeys: 3 }),
        fc.boolean(),
        (key, first, second, others, escaped) => {
          const rest = Object.entries(others).filter(([other]) => other !== key);
          // The second copy of the key may be written with escapes: `\u0061` and `a` are one key.
          const written = escaped
            ? `"${[...key].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
            : JSON.stringify(key);
          const members = [
            `${JSON.stringify(key)}:${JSON.stringify(first)}`,
            ...rest.map(([other, value]) => `${JSON.stringify(other)}:${JSON.stringify(value)}`),
          ];
          const before = `{"wrapped":[0,{${members.join(',')},`;
          const text = `${before}${written} : ${JSON.stringify(second)}}]}`;
          expect(find(text)).toEqual({
            key,
            path: 'wrapped[1]',
            first: JSON.stringify(first),
            second: JSON.stringify(second),
            offset: before.length,
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});
