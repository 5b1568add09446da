// `repute run` with a team file's `verifier:` section, against the local toy endpoint: an LLM judge
// (cached and booked in the ledger like every call) and an execution verifier (unit tests in the
// sandbox). Both judge every final proposal before aggregation; the verdicts are in the vote events.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSandbox } from '../../eval/sandbox/run-code-tests.js';
import { openStore } from '../../store/store.js';
import { runJson, runToExit } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { toyTasks } from '../../testing/_test-toy-team.js';
import type { OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { startToyTeamEndpoint, type ToyTask } from '../../testing/toy-team-endpoint.js';

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Two honest toy agents and three colluders (the same wrong answer 13): the colluders are a majority. */
function writeTeam(
  dir: string,
  baseURL: string,
  tasks: readonly object[],
  verifier: string,
  methods = 'majority, minirep',
): string {
  writeFileSync(join(dir, 'tasks.jsonl'), `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
  const agents = [
    ['honest-a', 'toy-honest-a'],
    ['honest-b', 'toy-honest-b'],
    ['colluder-1', 'toy-colluder-1'],
    ['colluder-2', 'toy-colluder-2'],
    ['colluder-3', 'toy-colluder-3'],
  ]
    .map(
      ([id, model]) => `  - id: ${id}\n    provider: openai-compatible\n    model: ${model}\n    baseURL: ${baseURL}`,
    )
    .join('\n');
  const file = join(dir, 'team.yaml');
  writeFileSync(
    file,
    `name: verified\nstore: repute.db\ntasks: tasks.jsonl\nreputation: fresh\nmaxRetries: 0\nprotocol: { type: debate, rounds: 0 }\nmethods: [${methods}]\n${verifier}\nagents:\n${agents}\n`,
  );
  return file;
}

type VoteData = { verifier?: string; verdicts?: Record<string, number>; answer: string | null };

function votes(dir: string, runId: string, method: string): VoteData[] {
  const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
  try {
    // Without the version of the reputation log read: a second run reads it at later positions.
    return store
      .events(runId)
      .filter((event) => event.type === 'vote' && event.method === method)
      .map((event) => {
        const { readVersion: _version, ...data } = event.data as VoteData & { readVersion?: number };
        return data;
      });
  } finally {
    store.close();
  }
}

describe('repute run with a verifier', () => {
  it('asks an LLM judge about every proposal before aggregation, books its calls, and a rerun sends no request', async () => {
    const tasks = toyTasks(4);
    server = await startToyTeamEndpoint({ tasks });
    const dir = temporaryDirectory('repute-judge-');
    const team = writeTeam(
      dir,
      server.baseURL,
      tasks,
      `verifier:\n  type: llm-judge\n  id: judge\n  provider: openai-compatible\n  model: toy-honest-judge\n  baseURL: ${server.baseURL}\n  price: { perCall: 0.001 }`,
      'majority, verifier-majority, minirep',
    );
    const first = await runJson(team, '--run-id', 'first');
    expect(first.status).toBe('completed');
    // The honest judge says "correct, confidence 0.9" to the reference and "incorrect, 0.9" to 13:
    // P(correct) = 0.9 for the honest agents and 1 − 0.9 = 0.1 for the colluders, on every task.
    for (const method of ['majority', 'verifier-majority', 'minirep']) {
      const recorded = votes(dir, 'first', method);
      expect(recorded).toHaveLength(4);
      for (const vote of recorded) {
        expect(vote.verifier).toBe('llm-judge(judge: toy-honest-judge)');
        expect(Object.keys(vote.verdicts ?? {}).sort()).toEqual([
          'colluder-1',
          'colluder-2',
          'colluder-3',
          'honest-a',
          'honest-b',
        ]);
        expect(vote.verdicts?.['honest-a']).toBeCloseTo(0.9, 12);
        expect(vote.verdicts?.['colluder-2']).toBeCloseTo(0.1, 12);
      }
    }
    // Majority ignores verdicts: the three colluders outvote the two honest agents on every task.
    expect(first.methods.majority.accuracy).toBe(0);
    // verifier-majority votes among the accepted proposals only (verdict ≥ 0.5): the honest ones.
    expect(first.methods['verifier-majority'].accuracy).toBe(1);
    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    // 5 proposals × 4 tasks × 3 methods = 60 judge calls. The judge's prompt is the task and the
    // reply (not the agent's id), and the toy agents of one behaviour reply alike, so per task only
    // 2 prompts differ (the honest reply, the colluders' reply): 4 × 2 = 8 paid requests, 52 cached.
    const judgeRow = store.usageSummary({ by: 'agent', runId: 'first' }).find((row) => row.key === 'judge');
    expect(judgeRow).toMatchObject({ calls: 60, cachedCalls: 52 });
    expect(judgeRow?.cost).toBeCloseTo(8 * 0.001, 12);
    // Verifier feedback: MiniRep's model learns from the verdicts, not from agreement with the
    // (colluder) majority, so every honest agent ends above every colluder.
    const minirep = store.taskResults<{ reputation: Record<string, number> }>('first', 'minirep').at(-1)?.result
      .reputation as Record<string, number>;
    store.close();
    for (const honest of ['honest-a', 'honest-b'])
      for (const colluder of ['colluder-1', 'colluder-2', 'colluder-3'])
        expect(minirep[honest]).toBeGreaterThan(minirep[colluder] as number);

    const requests = server.requestCount;
    const second = await runJson(team, '--run-id', 'second');
    expect(server.requestCount).toBe(requests);
    expect(second.usage.cachedCalls).toBe(second.usage.calls);
    expect(votes(dir, 'second', 'minirep')).toEqual(votes(dir, 'first', 'minirep'));
  }, 90_000);

  it('refuses a judge whose id is an agent id before any request', async () => {
    const dir = temporaryDirectory('repute-judge-bad-');
    const tasks = toyTasks(1);
    const clash = writeTeam(
      dir,
      'http://127.0.0.1:9/v1',
      tasks,
      'verifier: { type: llm-judge, id: honest-a, provider: openai-compatible, model: m, baseURL: "http://127.0.0.1:9/v1" }',
    );
    const result = await runToExit([clash]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('field verifier.id: the same id as agents.0.id');
  }, 30_000);
});

const sandbox = checkSandbox();
describe.skipIf(!sandbox.available)('repute run with an execution verifier (sandbox)', () => {
  it('runs every code proposal against the public tests in the sandbox: 1 for a passing program, 0 for the rest', async () => {
    const program = 'def add(a, b):\n    return a + b';
    const prompt = 'Write a Python function add(a, b) that returns the sum of a and b.';
    // The toy endpoint answers with the "reference": honest agents give the program, colluders "13".
    const toy: ToyTask[] = [{ prompt, reference: program }];
    server = await startToyTeamEndpoint({ tasks: toy });
    const dir = temporaryDirectory('repute-exec-');
    const team = writeTeam(
      dir,
      server.baseURL,
      [{ id: 'add', kind: 'code', prompt, metadata: { tests: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0' } }],
      'verifier: { type: execution, timeoutMs: 10000 }',
    );
    const summary = await runJson(team, '--run-id', 'exec');
    expect(summary.status).toBe('completed');
    for (const method of ['majority', 'minirep']) {
      const [vote] = votes(dir, 'exec', method);
      expect(vote?.verifier).toBe('execution(metadata.tests)');
      // The honest program passes both asserts; `13` defines no add, so the tests fail (NameError).
      expect(vote?.verdicts).toEqual({
        'honest-a': 1,
        'honest-b': 1,
        'colluder-1': 0,
        'colluder-2': 0,
        'colluder-3': 0,
      });
    }
  }, 90_000);
});
