// A protocol registered from outside the package runs through `repute run`: the example's module
// (examples/custom-protocol.ts, importing only `repute/core` and `repute/protocols`) is loaded
// before the CLI (node --import), as a user would, and its team file runs, stores and resumes like
// the built-in protocols'.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import type { OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { repoRoot } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { toyColluders, toyHonest, toyTasks, writeToyTeam } from '../../testing/_test-toy-team.js';
import { startToyTeamEndpoint } from '../../testing/toy-team-endpoint.js';

const execute = promisify(execFile);

beforeAll(() => {
  // The example imports the built package (`repute/protocols`), as code outside the package does.
  if (!existsSync(join(repoRoot, 'dist/protocols/registry.js')))
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
}, 300_000);

/** `repute run <team> --json` (the built CLI) with the example protocol registered first. */
async function runWithExample(team: string): Promise<{ summary: Record<string, unknown>; stderr: string }> {
  const { stdout, stderr } = await execute(
    process.execPath,
    ['--import', 'tsx', '--import', './examples/custom-protocol.ts', 'bin/repute.js', 'run', team, '--json'],
    { cwd: repoRoot },
  );
  return { summary: JSON.parse(stdout), stderr };
}

let endpoint: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('repute run with a protocol registered from outside the package', () => {
  it('runs, stores and resumes a round-robin team like a built-in protocol', async () => {
    const tasks = toyTasks(4);
    endpoint = await startToyTeamEndpoint({ tasks });
    const dir = temporaryDirectory('repute-custom-protocol-');
    const team = writeToyTeam(dir, {
      name: 'round-robin-team',
      baseURL: endpoint.baseURL,
      tasks,
      protocol: 'type: round-robin, start: 1',
      agents: [toyHonest[0] as (typeof toyHonest)[number], toyColluders[0] as (typeof toyColluders)[number]],
    });
    // writeToyTeam lists `methods: [plurality]` (DRF and RAPS); this protocol's one method is its own.
    writeFileSync(team, readFileSync(team, 'utf8').replace('methods: [plurality]', 'methods: [round-robin]'));

    const first = await runWithExample(team);
    // start 1: the colluder (position 1) takes t1 and t3 and answers 13, wrong; honest-a takes t2 and
    // t4 and answers from the references: 2 of 4 right = 0.5. One propose call per task = 4 requests.
    expect(first.summary.status).toBe('completed');
    expect(first.summary.methods).toEqual({
      'round-robin': { done: 4, resumed: 0, accuracy: 0.5, failures: 0, failed: 0 },
    });
    expect(first.stderr).toContain('protocol round-robin, 2 agents, 4 tasks');
    expect(endpoint.requests).toHaveLength(4);
    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const runId = first.summary.runId as string;
    expect(store.getRun(runId)?.status).toBe('completed');
    expect(
      store
        .taskResults<{ agentId: string; answer: string }>(runId, 'round-robin')
        .map((record) => [record.taskId, record.result.agentId]),
    ).toEqual([
      ['t1', 'colluder-1'],
      ['t2', 'honest-a'],
      ['t3', 'colluder-1'],
      ['t4', 'honest-a'],
    ]);
    store.close();

    // The rerun reads every task back (resume) and sends nothing.
    const second = await runWithExample(team);
    expect(second.summary.runId).toBe(runId);
    expect(second.summary.methods).toEqual({
      'round-robin': { done: 4, resumed: 4, accuracy: 0.5, failures: 0, failed: 0 },
    });
    expect(endpoint.requests).toHaveLength(4);
  }, 120_000);
});
