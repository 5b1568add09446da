import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import type { LoadedTask } from '../../tasks/load-tasks.js';
import {
  checkSandbox,
  SandboxUnavailableError,
  type CodeTestResult,
  type RunCodeTestsOptions,
} from './run-code-tests.js';
import { createTaskGrader } from './task-grader.js';

const addTask: LoadedTask = {
  task: { id: 'add', kind: 'code', prompt: 'Write add(a, b).' },
  reference: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0',
};
const sumTask: LoadedTask = { task: { id: 'sum', kind: 'number', prompt: 'What is 2 + 3?' }, reference: '5' };
const openTask: LoadedTask = { task: { id: 'open', kind: 'number', prompt: 'What is 1 + 1?' } };
const available = () => ({ available: true as const });

/** A stand-in runner: passes a program whose text contains `a + b`, records each call. */
function recordingRunner() {
  const calls: RunCodeTestsOptions[] = [];
  return {
    calls,
    run: async (options: RunCodeTestsOptions): Promise<CodeTestResult> => {
      calls.push(options);
      const passed = options.code.includes('a + b');
      return {
        schemaVersion: 1,
        status: passed ? 'passed' : 'failed',
        passed,
        exitCode: passed ? 0 : 1,
        signal: null,
        stdout: '',
        stderr: passed ? '' : 'AssertionError',
        durationMs: 12.4,
      };
    },
  };
}

describe('createTaskGrader', () => {
  it('grades other kinds by their reference at once, and tasks without one not at all', () => {
    const grader = createTaskGrader({
      tasks: [sumTask, openTask],
      file: 'tasks.jsonl',
      checkSandbox: () => {
        throw new Error('no code task: the sandbox is not checked');
      },
    });
    expect(grader.codeTasks).toBe(0);
    expect(grader.grade('sum', '5')).toBe(true);
    expect(grader.grade('sum', '6')).toBe(false);
    expect(grader.grade('open', '2')).toBeUndefined();
    expect(grader.grade('unknown', '2')).toBeUndefined();
  });

  it('refuses code tasks with tests when the sandbox cannot run, naming what to install', () => {
    const reason =
      'sandbox tool bwrap not found at /usr/bin/bwrap; install bubblewrap, util-linux and python3 (apt-get install bubblewrap util-linux python3) or pass tools.bwrap';
    const create = () =>
      createTaskGrader({
        tasks: [sumTask, addTask],
        file: 'tasks.jsonl',
        checkSandbox: () => ({ available: false, reason }),
      });
    expect(create).toThrow(SandboxUnavailableError);
    expect(create).toThrow(/tasks\.jsonl has 1 code task with tests/);
    expect(create).toThrow(/bwrap not found at \/usr\/bin\/bwrap/);
    expect(create).toThrow(/Install bubblewrap \(apt-get install bubblewrap/);
    // A code task without a reference is not graded, so it needs no sandbox.
    const ungraded = createTaskGrader({
      tasks: [{ task: addTask.task }],
      file: 'tasks.jsonl',
      checkSandbox: () => ({ available: false, reason }),
    });
    expect(ungraded.grade('add', 'def add(a, b):\n    return a + b')).toBeUndefined();
  });

  it('refuses empty tests, which every program would pass', () => {
    expect(() =>
      createTaskGrader({
        tasks: [{ task: addTask.task, reference: '  \n' }],
        file: 'tasks.jsonl',
        checkSandbox: available,
      }),
    ).toThrow(DataFormatError);
  });

  it('runs each distinct program of a task once, and leaves one event per grade for the task', async () => {
    const runner = recordingRunner();
    const grader = createTaskGrader({
      tasks: [addTask],
      file: 'tasks.jsonl',
      checkSandbox: available,
      runTests: runner.run,
      sandbox: { timeoutMs: 2000 },
    });
    const right = 'def add(a, b):\n    return a + b';
    const wrong = 'def add(a, b):\n    return a - b';
    // Two methods deciding the same program, one a different one, one no program at all.
    expect(await grader.grade('add', right)).toBe(true);
    expect(await grader.grade('add', right)).toBe(true);
    expect(await grader.grade('add', wrong)).toBe(false);
    expect(await grader.grade('add', null)).toBe(false);
    expect(runner.calls.map((call) => [call.code, call.test, call.language, call.timeoutMs])).toEqual([
      [right, addTask.reference, 'python', 2000],
      [wrong, addTask.reference, 'python', 2000],
    ]);
    const events = grader.takeEvents('add');
    expect(events.map((event) => [event.status, event.correct, event.durationMs])).toEqual([
      ['passed', true, 12],
      ['passed', true, 12],
      ['failed', false, 12],
      ['no-program', false, null],
    ]);
    expect(events[2]?.stderr).toBe('AssertionError');
    expect(events[0]?.program).toMatch(/^[0-9a-f]{16}$/);
    expect(events[0]?.program).not.toBe(events[2]?.program);
    expect(grader.takeEvents('add')).toEqual([]);
    expect(grader.counts()).toEqual({ programs: 2, passed: 1, failed: 1, timedOut: 0, noProgram: 1 });
  });
});

const status = checkSandbox();
if (!status.available) console.warn(`sandbox tests skipped: ${status.reason}`);

describe.skipIf(!status.available)('createTaskGrader (sandboxed)', () => {
  it('passes a right program, fails a wrong one, and times out a loop', async () => {
    const grader = createTaskGrader({ tasks: [addTask], file: 'tasks.jsonl', sandbox: { timeoutMs: 1500 } });
    expect(await grader.grade('add', 'def add(a, b):\n    return a + b')).toBe(true);
    // a * b: add(2, 3) gives 6, not 5.
    expect(await grader.grade('add', 'def add(a, b):\n    return a * b')).toBe(false);
    expect(await grader.grade('add', 'def add(a, b):\n    while True:\n        pass')).toBe(false);
    const events = grader.takeEvents('add');
    expect(events.map((event) => event.status)).toEqual(['passed', 'failed', 'timeout']);
    expect(events[1]?.stderr).toContain('AssertionError');
    expect(grader.counts()).toEqual({ programs: 3, passed: 1, failed: 1, timedOut: 1, noProgram: 0 });
  }, 30_000);

  it('names the task of tests that do not compile', async () => {
    const grader = createTaskGrader({
      tasks: [{ task: addTask.task, reference: 'assert add(2, 3) == 5 +' }],
      file: 'tasks.jsonl',
    });
    const grading = grader.grade('add', 'def add(a, b):\n    return a + b');
    await expect(grading).rejects.toThrow(DataFormatError);
    await expect(grading).rejects.toThrow(
      /task "add": the reference of a code task is its test code, and test does not compile/,
    );
  }, 30_000);
});
