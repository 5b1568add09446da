// An execution-based verifier: a code proposal is judged by running it against tests in the sandbox
// (the execution feedback of CodeT, Chen et al. 2022, and of AlphaCode's filtering, Li et al. 2022).
import { availableParallelism } from 'node:os';
import type { Task } from '../../core/task.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import type { Verifier } from '../../aggregation/verifier.js';
import { createSemaphore } from '../../llm/semaphore.js';
import { scoreCodeAnswer, type RunCodeTestsOptions } from './run-code-tests.js';

/** Options of {@link createExecutionVerifier}. */
export interface ExecutionVerifierOptions {
  /**
   * The tests a proposal for `task` runs against, or `undefined` when the task has none (the verifier
   * then has no opinion). Use tests the agents could see (public examples), not the hidden grading
   * tests, or the verifier leaks the reference into the decision. Empty test code is refused (every
   * program would pass it).
   */
  tests: (task: Task) => string | undefined;
  /** Sandbox limits passed to every run (timeout, memory, tools). @default the sandbox defaults */
  sandbox?: Omit<RunCodeTestsOptions, 'code' | 'test' | 'language'>;
  /**
   * Runs one program text (the proposal's extracted answer) against tests and says whether it passed. @default `scoreCodeAnswer` in the
   * sandbox (extracts the last fenced block; unparseable text fails without running)
   */
  run?: (input: { text: string; test: string }) => Promise<{ correct: boolean }>;
  /** Name shown in reasons. @default 'execution' */
  name?: string;
  /**
   * Programs run at once, integer ≥ 1. Runs are CPU-bound: more at once than there are CPUs only
   * slows each one towards its wall-clock timeout (and each sandbox holds up to 3 × `memoryMb`:
   * the program's process, the tests' process and /tmp).
   * @default os.availableParallelism()
   */
  concurrency?: number;
}

const knownExecutionVerifierOptions = defineOptionKeys<ExecutionVerifierOptions>()([
  'tests',
  'sandbox',
  'run',
  'name',
  'concurrency',
]);
const knownSandboxOptions = defineOptionKeys<NonNullable<ExecutionVerifierOptions['sandbox']>>()([
  'timeoutMs',
  'memoryMb',
  'maxOutputBytes',
  'maxTmpFiles',
  'tools',
]);

/**
 * Creates a verifier that runs each `code` proposal's program (its extracted answer: the last fenced
 * block of the reply, or the reply) against its task's tests: 1 when they pass, 0
 * when they fail or time out, no opinion for other answer kinds or tasks without tests. Unparseable
 * proposals are judged 0 without running. It never runs code outside the sandbox: without one, the
 * default runner throws `SandboxUnavailableError`; empty tests, and tests that do not compile,
 * throw `InvalidArgumentError`. At most `concurrency` programs run at once. Asynchronous: collect
 * verdicts with `verifyProposals` before aggregating.
 *
 * @example
 * const verifier = createExecutionVerifier({ tests: (task) => publicTests[task.id] });
 * const verdicts = await verifyProposals({ verifier, task, proposals });
 */
export function createExecutionVerifier(options: ExecutionVerifierOptions): Verifier {
  if (options === null || typeof options !== 'object' || typeof options.tests !== 'function') {
    throw new InvalidArgumentError({
      parameter: 'options.tests',
      value: options?.tests,
      message:
        'options.tests must be a function (task) => test code or undefined; pass e.g. { tests: (task) => publicTests[task.id] }',
    });
  }
  assertKnownOptions('options', options, knownExecutionVerifierOptions, 'createExecutionVerifier');
  assertKnownOptions('options.sandbox', options.sandbox, knownSandboxOptions, 'createExecutionVerifier');
  const concurrency = options.concurrency ?? availableParallelism();
  assertInteger('concurrency', concurrency, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. { concurrency: 4 }');
  const gate = createSemaphore(concurrency);
  const run =
    options.run ?? ((input: { text: string; test: string }) => scoreCodeAnswer({ ...options.sandbox, ...input }));
  return {
    name: options.name ?? 'execution',
    async verify({ task, proposal }) {
      if (task.kind !== 'code') return undefined;
      const test = options.tests(task);
      if (test === undefined) return undefined;
      if (typeof test === 'string' && test.trim() === '')
        throw new InvalidArgumentError({
          parameter: 'options.tests',
          value: test,
          message: `the tests for task ${task.id} are empty, and every program passes empty tests; return undefined from options.tests for a task without tests`,
        });
      if (proposal.answer === null) return 0;
      // The extracted program (the `code` kind's answer), not the reply: a live agent's reply wraps
      // the program in JSON or prose, which is not a program.
      const program = proposal.answer;
      const { correct } = await gate.run(() => run({ text: program, test }));
      return correct ? 1 : 0;
    },
  };
}
