// `repute run` grades `code` tasks by running the decided program against the task's tests (its
// `reference`) in the bubblewrap sandbox: accuracy per method, a `code-tests` event per graded
// decision, the sandbox's runs in the summary; a rerun resumes the grades without running again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSandbox } from '../../eval/sandbox/run-code-tests.js';
import { openStore } from '../../store/store.js';
import {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type RecordedRequest,
} from '../../testing/openai-compatible-server.js';
import { runToExit } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const servers: OpenAICompatibleServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** Every agent writes `add` right and `mul` wrong (it adds): one task of two passes its tests. */
function codeReply(request: RecordedRequest): string {
  const body = JSON.stringify(request.body);
  const program = body.includes('function mul')
    ? 'def mul(a, b):\n    return a + b'
    : 'def add(a, b):\n    return a + b';
  return JSON.stringify({ reasoning: 'straightforward', answer: `\`\`\`python\n${program}\n\`\`\`` });
}

const status = checkSandbox();
if (!status.available) console.warn(`sandbox tests skipped: ${status.reason}`);

describe.skipIf(!status.available)('repute run with code tasks', () => {
  it('grades the decided programs against the tests in the sandbox, per method; a rerun resumes the grades', async () => {
    const server = await startOpenAICompatibleServer({ script: codeReply });
    servers.push(server);
    const dir = temporaryDirectory('repute-code-tasks-');
    const tasks = [
      {
        id: 'add',
        kind: 'code',
        prompt: 'Write a Python function add(a, b) that returns a + b.',
        reference: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0',
      },
      {
        id: 'mul',
        kind: 'code',
        prompt: 'Write a Python function mul(a, b) that returns a * b.',
        reference: 'assert mul(2, 3) == 6',
      },
    ];
    writeFileSync(join(dir, 'tasks.jsonl'), `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
    const agents = ['a', 'b']
      .map(
        (id) =>
          `  - id: ${id}\n    provider: openai-compatible\n    model: ${id}-model\n    baseURL: ${server.baseURL}`,
      )
      .join('\n');
    const team = join(dir, 'team.yaml');
    writeFileSync(
      team,
      `name: code-team\nstore: repute.db\ntasks: tasks.jsonl\nprotocol: { type: debate, rounds: 1 }\nmethods: [majority, minirep]\nmaxRetries: 0\nagents:\n${agents}\n`,
    );

    const first = await runToExit([team, '--json'], process.env);
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout);
    // add passes its tests, mul (a + b) fails mul(2, 3) == 6: 1 of 2 per method. Old main: accuracy null.
    expect(summary.methods.majority).toMatchObject({ done: 2, failed: 0, accuracy: 0.5 });
    expect(summary.methods.minirep).toMatchObject({ done: 2, failed: 0, accuracy: 0.5 });
    // Both methods decide the same two programs: each is run once.
    expect(summary.codeTests).toEqual({ programs: 2, passed: 1, failed: 1, timedOut: 0, noProgram: 0 });

    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const events = store.events(summary.runId, { type: 'code-tests' });
    store.close();
    const graded = events.map((event) => {
      const data = event.data as { status: string; correct: boolean; stderr: string };
      return [event.method, event.taskId, data.status, data.correct];
    });
    expect(graded).toEqual([
      ['majority', 'add', 'passed', true],
      ['majority', 'mul', 'failed', false],
      ['minirep', 'add', 'passed', true],
      ['minirep', 'mul', 'failed', false],
    ]);
    expect(JSON.stringify(events[1]?.data)).toContain('AssertionError');

    const table = await runToExit([team], process.env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/majority\s+2\s+2\s+0\s+50\.0%/);
    // Resumed tasks keep their grades; nothing runs again.
    expect(table.stdout).toContain('code tests (sandbox, this invocation): 0 programs run');
  }, 90_000);
});
