import type { AnswerKindHandler } from './answer-handler.js';
import { lastFencedBlock, trimCharacters } from './_text.js';

/**
 * Normalizes program text: CRLF → LF, trailing spaces dropped on every line, leading and trailing
 * blank lines removed; `null` when nothing is left.
 */
export function normalizeCode(code: string): string | null {
  const lines = code
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
  const text = trimCharacters(lines, '\n');
  return text.trim().length === 0 ? null : text;
}

/**
 * The `code` kind: extraction = the code in the last fenced block (```` ```python ... ``` ````),
 * or the whole text when there is no fence; key = the normalized program text. Text equality is
 * only a conservative proxy for grouping: correctness is judged by running tests in the sandbox
 * (`runCodeTests` / `scoreCodeAnswer` in `src/eval/sandbox`), so `scoreAnswer('code', ...)` refuses.
 *
 * @example
 * codeAnswerKind.extract('Here:\n```python\ndef f():\n    return 1\n```'); // 'def f():\n    return 1'
 */
export const codeAnswerKind: AnswerKindHandler = {
  kind: 'code',
  canonicalKey(answer) {
    return normalizeCode(lastFencedBlock(answer) ?? answer);
  },
  extract(text) {
    return normalizeCode(lastFencedBlock(text) ?? text);
  },
  equivalent(a, b) {
    const left = normalizeCode(lastFencedBlock(a) ?? a);
    return left !== null && left === normalizeCode(lastFencedBlock(b) ?? b);
  },
};
