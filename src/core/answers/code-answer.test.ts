import { describe, expect, it } from 'vitest';
import { codeAnswerKind, normalizeCode } from './code-answer.js';

describe('code answer kind', () => {
  it('extracts the last fenced block, or the whole text without fences', () => {
    const text = 'First try:\n```python\nx = 1\n```\nBetter:\n```python\ndef f():\n    return 2   \n```\nDone.';
    expect(codeAnswerKind.extract(text)).toBe('def f():\n    return 2');
    expect(codeAnswerKind.extract('def g():\r\n    return 3\r\n')).toBe('def g():\n    return 3');
    expect(codeAnswerKind.extract('   \n')).toBeNull();
  });

  it('compares normalized program text (whitespace at line ends and CRLF ignored, indentation kept)', () => {
    expect(codeAnswerKind.equivalent('x = 1  \r\ny = 2', '```py\nx = 1\ny = 2\n```')).toBe(true);
    expect(codeAnswerKind.equivalent('if a:\n  b()', 'if a:\n    b()')).toBe(false);
    expect(normalizeCode('\n\nprint(1)\n\n')).toBe('print(1)');
  });
});
