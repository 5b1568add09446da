import { describe, expect, it } from 'vitest';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import { verifyProposals } from '../../aggregation/verifier.js';
import { createExecutionVerifier } from './execution-verifier.js';
import { checkSandbox } from './run-code-tests.js';

const codeTask: Task = { id: 'add', kind: 'code', prompt: 'Write add(a, b).' };
const propose = (agentId: string, text: string, answer: string | null = text): Proposal => ({
  agentId,
  taskId: 'add',
  round: 0,
  text,
  answer,
});
const right = '```python\ndef add(a, b):\n    return a + b\n```';
const wrong = '```python\ndef add(a, b):\n    return a - b\n```';

describe('createExecutionVerifier (injected runner)', () => {
  it('judges code proposals by their test run and has no opinion elsewhere', async () => {
    const runs: string[] = [];
    const verifier = createExecutionVerifier({
      tests: (task) => (task.id === 'add' ? 'assert add(2, 3) == 5' : undefined),
      run: async ({ text }) => {
        runs.push(text);
        return { correct: text.includes('a + b') };
      },
    });
    const verdicts = await verifyProposals({
      verifier,
      task: codeTask,
      proposals: [propose('a', right), propose('b', wrong), propose('c', 'no code', null)],
    });
    expect(verdicts).toEqual({ a: 1, b: 0, c: 0 });
    // The unparseable proposal was not run.
    expect(runs).toEqual([right, wrong]);
    expect(
      await verifier.verify({ task: { id: 'x', kind: 'code', prompt: '' }, proposal: propose('a', right) }),
    ).toBeUndefined();
    expect(
      await verifier.verify({ task: { id: 'add', kind: 'number', prompt: '' }, proposal: propose('a', '5') }),
    ).toBeUndefined();
  });

  it('refuses options without tests', () => {
    expect(() => createExecutionVerifier({} as never)).toThrow(/options\.tests must be a function/);
  });
});

const status = checkSandbox();
describe.skipIf(!status.available)('createExecutionVerifier (sandboxed)', () => {
  it('passes a right program and fails a wrong one in the sandbox', async () => {
    const verifier = createExecutionVerifier({ tests: () => 'assert add(2, 3) == 5', sandbox: { timeoutMs: 5000 } });
    expect(await verifier.verify({ task: codeTask, proposal: propose('a', right) })).toBe(1);
    expect(await verifier.verify({ task: codeTask, proposal: propose('b', wrong) })).toBe(0);
  });
});
