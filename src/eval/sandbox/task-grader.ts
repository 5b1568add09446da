// Grading of a live run's decisions against a task file: answers by their kind's scoring, `code`
// answers by running the task's tests in the bubblewrap sandbox (run-code-tests.ts).
import { createHash } from 'node:crypto';
import { scoreAnswer } from '../../core/answers/answers.js';
import { DataFormatError, InvalidArgumentError } from '../../core/errors.js';
import type { SpanData } from '../../core/trace.js';
import type { LoadedTask } from '../../tasks/load-tasks.js';
import {
  checkSandbox,
  runCodeTests,
  SandboxUnavailableError,
  type CodeTestResult,
  type RunCodeTestsOptions,
} from './run-code-tests.js';

/** The event a graded `code` decision leaves in the run's log. */
export type CodeTestsEvent = Extract<SpanData, { type: 'code-tests' }>;

/** How the programs graded in this process fared in the sandbox. */
export interface CodeTestsCounts {
  /** Distinct programs run (a program decided again, by another method, is run once). */
  readonly programs: number;
  readonly passed: number;
  readonly failed: number;
  /** Stopped at the wall-clock or CPU limit. */
  readonly timedOut: number;
  /** Decisions with no program to run (no answer): wrong without running. */
  readonly noProgram: number;
}

/** Options of {@link createTaskGrader}. */
export interface TaskGraderOptions {
  /** The run's tasks; a `code` task's `reference` is its test code (Python). */
  readonly tasks: readonly LoadedTask[];
  /** The task file, named in errors about its tests. */
  readonly file: string;
  /** Sandbox limits of every test run. @default the sandbox's defaults (10 s, 512 MiB) */
  readonly sandbox?: Omit<RunCodeTestsOptions, 'code' | 'test' | 'language'>;
  /** Runs a program against tests. @default `runCodeTests` (bubblewrap sandbox) */
  readonly runTests?: (options: RunCodeTestsOptions) => Promise<CodeTestResult>;
  /** Says whether the sandbox can run here. @default `checkSandbox` */
  readonly checkSandbox?: typeof checkSandbox;
}

/** Grades decided answers of a run's tasks. */
export interface TaskGrader {
  /** `code` tasks with tests (graded in the sandbox). */
  readonly codeTasks: number;
  /**
   * Whether `answer` is right for task `taskId`: `undefined` without a reference, a boolean for the
   * other kinds, a promise of one for a `code` task (its program run against the tests).
   */
  grade(taskId: string, answer: string | null): boolean | undefined | Promise<boolean>;
  /** The `code-tests` events of the grades of `taskId` since the last call, to store with its result. */
  takeEvents(taskId: string): CodeTestsEvent[];
  /** The sandbox runs of this grader so far. */
  counts(): CodeTestsCounts;
}

/** Characters of the sandbox's stderr kept in an event (its end, where Python puts the error). */
const STDERR_TAIL = 2000;

/**
 * Creates the grader `repute run` gives its protocol: scores answers by their kind against each
 * task's `reference`, and runs a `code` task's decided program against its tests (the task's
 * `reference`) in the bubblewrap sandbox, once per distinct program and task. With `code` tasks
 * that have tests it checks the sandbox first and throws {@link SandboxUnavailableError} (naming
 * what to install) when it cannot run here, and a {@link DataFormatError} for empty tests; tests
 * that do not compile throw a {@link DataFormatError} when first run. Code never runs outside the
 * sandbox.
 *
 * @example
 * const grader = createTaskGrader({ tasks: await loadTasks('tasks.jsonl'), file: 'tasks.jsonl' });
 * await grader.grade('add-1', '42'); // true
 */
export function createTaskGrader(options: TaskGraderOptions): TaskGrader {
  const { tasks, file } = options;
  const runTests = options.runTests ?? runCodeTests;
  const byId = new Map(tasks.map((item) => [item.task.id, item]));
  const codeTasks = tasks.filter((item) => item.task.kind === 'code' && item.reference !== undefined);
  for (const item of codeTasks) {
    if ((item.reference as string).trim() === '')
      throw new DataFormatError({
        file,
        message: `task ${JSON.stringify(item.task.id)}: the reference of a code task is its test code, and it is empty (every program would pass); write Python tests (asserts or check(...) calls) or leave the reference out (the task is then not graded)`,
      });
  }
  if (codeTasks.length > 0) {
    const status = (options.checkSandbox ?? checkSandbox)(options.sandbox?.tools);
    if (!status.available)
      throw new SandboxUnavailableError(
        `${file} has ${codeTasks.length} code task${codeTasks.length === 1 ? '' : 's'} with tests, which repute run grades by running the decided program in the bubblewrap sandbox, and the sandbox cannot run here: ${status.reason}. Install bubblewrap (apt-get install bubblewrap; it needs util-linux and python3 too), or leave out the references of the code tasks (they are then not graded)`,
      );
  }
  const runs = new Map<string, Promise<CodeTestsEvent>>();
  const pending = new Map<string, CodeTestsEvent[]>();
  const counts = { programs: 0, passed: 0, failed: 0, timedOut: 0, noProgram: 0 };

  async function runProgram(item: LoadedTask, code: string): Promise<CodeTestsEvent> {
    let result: CodeTestResult;
    try {
      result = await runTests({ ...options.sandbox, code, test: item.reference as string, language: 'python' });
    } catch (error) {
      if (error instanceof InvalidArgumentError && error.parameter === 'test')
        throw new DataFormatError({
          file,
          message: `task ${JSON.stringify(item.task.id)}: the reference of a code task is its test code, and ${error.message}`,
          cause: error,
        });
      throw error;
    }
    counts.programs++;
    if (result.status === 'passed') counts.passed++;
    else if (result.status === 'timeout') counts.timedOut++;
    else counts.failed++;
    return {
      type: 'code-tests',
      taskId: item.task.id,
      program: digest(code),
      status: result.status,
      correct: result.passed,
      exitCode: result.exitCode,
      signal: result.signal,
      durationMs: Math.round(result.durationMs),
      stderr: result.stderr.slice(-STDERR_TAIL),
    };
  }

  function remember(event: CodeTestsEvent): CodeTestsEvent {
    const list = pending.get(event.taskId) ?? [];
    list.push(event);
    pending.set(event.taskId, list);
    return event;
  }

  return {
    codeTasks: codeTasks.length,
    grade(taskId, answer) {
      const item = byId.get(taskId);
      if (item?.reference === undefined) return undefined;
      if (item.task.kind !== 'code') return scoreAnswer(item.task.kind, answer, item.reference).correct;
      if (answer === null) {
        counts.noProgram++;
        remember({
          type: 'code-tests',
          taskId,
          program: null,
          status: 'no-program',
          correct: false,
          exitCode: null,
          signal: null,
          durationMs: null,
          stderr: '',
        });
        return Promise.resolve(false);
      }
      const key = `${taskId}\u0000${answer}`;
      let run = runs.get(key);
      if (run === undefined) {
        run = runProgram(item, answer);
        runs.set(key, run);
        // A failed run (sandbox error) is not kept: the error stops the run, a rerun tries again.
        run.catch(() => runs.delete(key));
      }
      return run.then((event) => remember(event).correct);
    },
    takeEvents(taskId) {
      const events = pending.get(taskId) ?? [];
      pending.delete(taskId);
      return events;
    },
    counts: () => ({ ...counts }),
  };
}

/** First 16 hex digits of the SHA-256 of a program's text (events name the program, not its text). */
function digest(code: string): string {
  return createHash('sha256').update(code).digest('hex').slice(0, 16);
}
