import type { TestModule } from 'vitest/node';
import { describe, expect, it } from 'vitest';
import SandboxSkipReporter from './_sandbox-skip-reporter.js';

/** A test module stand-in with `skipped` skipped tests. */
const module = (moduleId: string, skipped: number) =>
  ({
    moduleId,
    children: { allTests: (state?: string) => (state === 'skipped' ? Array(skipped).fill({}) : [])[Symbol.iterator]() },
  }) as unknown as TestModule;

describe('the sandbox skip line', () => {
  it('counts the skipped tests of sandbox files only and names the reason', () => {
    const lines: string[] = [];
    const reporter = new SandboxSkipReporter(
      () => ({ available: false, reason: 'bwrap not found under /usr' }),
      (text) => lines.push(text),
    );
    reporter.onTestRunEnd([
      module('/repo/src/eval/sandbox/run-code-tests.test.ts', 40),
      module('/repo/src/eval/sandbox/execution-verifier.test.ts', 19),
      module('/repo/src/cli/commands/run-code-tasks.test.ts', 1),
      module('/repo/src/llm/complete.test.ts', 5),
    ]);
    // 40 + 19 + 1 = 60 sandbox tests; the 5 elsewhere are not counted.
    expect(lines.join('')).toContain('sandbox: 60 sandbox tests SKIPPED: bwrap not found under /usr.');
    expect(lines.join('')).toContain('apt-get install bubblewrap');
  });

  it('prints nothing when no sandbox test was skipped', () => {
    const lines: string[] = [];
    new SandboxSkipReporter(
      () => ({ available: true }),
      (text) => lines.push(text),
    ).onTestRunEnd([module('/repo/src/eval/sandbox/run-code-tests.test.ts', 0)]);
    expect(lines).toEqual([]);
  });
});
