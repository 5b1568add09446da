import { describe, expect, it } from 'vitest';
import { pythonJsonLoads, zeroevalAnswerText } from './_zeroeval-answer.js';
import { formatPythonRepr } from './python-literal.js';

// Expected values worked out by hand from eval_utils.py (extract_first_complete_json,
// extract_values_from_json) and Python's json.loads / str.
describe("ZeroEval's answer extraction", () => {
  it.each([
    ['{"reasoning": "r", "answer": "[1, 2]"}', '[1, 2]', 'a JSON string: its content'],
    ['{"answer": [1, 2.50, "x"]}', "[1, 2.5, 'x']", "a JSON list: Python's str (repr inside)"],
    ['{"answer": 2.0}', '2.0', 'a JSON float stays a float: str(2.0) = 2.0'],
    ['{"answer": 7}', '7', 'a JSON integer: 7'],
    ['{"answer": {"a": true, "a": null}}', "{'a': None}", 'a repeated key keeps its last value'],
    ['text {"answer": "a"} then {"answer": "b"}', 'a', 'the first complete object'],
    [
      '{"answer": "\\"hi\\"", "note": "it\'s \\\'x\\\'"}',
      '\\',
      "invalid JSON (\\' escape): the regex stops at the first quote",
    ],
    ['{"answer": 3/4, "reasoning": "r"}', '3/4', 'invalid JSON: a bare value up to the comma'],
    ['answer: 42 apples', '42', 'no quotes at all: after "answer:" up to a space'],
    ['{"reasoning": "no field"}', null, 'an object without "answer" and no regex match'],
    ['The answer is 5.', null, 'no "answer" followed by a colon'],
  ] as [string, string | null, string][])('%j → %j (%s)', (output, expected) => {
    expect(zeroevalAnswerText(output)).toBe(expected);
  });

  it('loads JSON as Python does: ints exact, NaN accepted, raw control characters refused', () => {
    const big = pythonJsonLoads('[12345678901234567890, 1e2, NaN]');
    expect(big === null ? null : formatPythonRepr(big)).toBe('[12345678901234567890, 100.0, nan]');
    expect(pythonJsonLoads('"a\tb"')).toBeNull();
    expect(pythonJsonLoads('"\\ud83d\\ude00"')).toEqual({ type: 'str', value: '😀' });
    expect(pythonJsonLoads('{"a": 1,}')).toBeNull();
  });
});
