import type { AnswerKindHandler } from './answer-handler.js';
import { lastFencedBlock, sameKey, trimCharacters } from './_text.js';

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
  canonicalKey: codeKey,
  extract: codeKey,
  equivalent(a, b) {
    return sameKey(a, b, codeKey);
  },
};

/** Normalised code of the last fenced block, or of the whole text when there is none. */
function codeKey(text: string): string | null {
  return normalizeCode(lastFencedBlock(text) ?? text);
}
