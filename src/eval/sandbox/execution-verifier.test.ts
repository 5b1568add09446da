import { availableParallelism } from 'node:os';
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

  it('runs at most `concurrency` programs at once (by default one per CPU)', async () => {
    // Every run is CPU-bound: running a whole team's programs at once on a few cores made their
    // wall-clock timeouts depend on the team size (and each sandbox holds up to 3 x memoryMb).
    const track = () => {
      let active = 0;
      let peak = 0;
      const run = async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active -= 1;
        return { correct: true };
      };
      return { run, peak: () => peak };
    };
    const proposals = Array.from({ length: 8 }, (_, index) => propose(`agent${index}`, right));
    const bounded = track();
    const verifier = createExecutionVerifier({ tests: () => 'assert True', run: bounded.run, concurrency: 3 });
    expect(Object.keys(await verifyProposals({ verifier, task: codeTask, proposals }))).toHaveLength(8);
    expect(bounded.peak()).toBe(3);
    const byDefault = track();
    const defaultVerifier = createExecutionVerifier({ tests: () => 'assert True', run: byDefault.run });
    await verifyProposals({ verifier: defaultVerifier, task: codeTask, proposals });
    expect(byDefault.peak()).toBe(Math.min(8, availableParallelism()));
    expect(() => createExecutionVerifier({ tests: () => 'assert True', concurrency: 0 })).toThrow(/concurrency/);
  });

  it('refuses empty test code, which every program would pass', async () => {
    const verifier = createExecutionVerifier({ tests: () => '  \n', run: async () => ({ correct: true }) });
    await expect(verifier.verify({ task: codeTask, proposal: propose('a', 'print(1)') })).rejects.toThrow(
      /tests for task add are empty/,
    );
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
