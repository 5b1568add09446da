// Internal: a Vitest reporter that ends the suite's output with one line when sandbox tests were
// skipped (bubblewrap missing or unusable), naming how many and why, so the skip is not lost among
// the suite's other output. Registered after the default reporter in vitest.config.ts.
import type { Reporter, TestModule } from 'vitest/node';
import { checkSandbox } from '../eval/sandbox/run-code-tests.js';

/** Test files that need the sandbox: the sandbox's own, and `repute run`'s grading of code tasks. */
const sandboxTestFile = (moduleId: string) =>
  moduleId.includes('/src/eval/sandbox/') || moduleId.endsWith('/src/cli/commands/run-code-tasks.test.ts');

/** Counts the skipped tests of the sandbox's test files and prints the line when there are any. */
export default class SandboxSkipReporter implements Reporter {
  constructor(
    private readonly check: typeof checkSandbox = checkSandbox,
    private readonly write: (text: string) => void = (text) => process.stdout.write(text),
  ) {}

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const sandboxModules = testModules.filter((module) => sandboxTestFile(module.moduleId));
    let skipped = 0;
    for (const module of sandboxModules) skipped += [...module.children.allTests('skipped')].length;
    if (skipped === 0) return;
    const status = this.check();
    const reason = status.available ? 'skipped by the tests themselves' : status.reason;
    this.write(
      `\nsandbox: ${skipped} sandbox test${skipped === 1 ? '' : 's'} SKIPPED: ${reason}. Install bubblewrap (apt-get install bubblewrap) to run them; code tasks cannot be graded without it (docs/security.md).\n`,
    );
  }
}
