// Bad replies are failures, not results: a model answering in prose has its answers read; a model
// answering garbage fails its tasks (exit 4, bad replies counted per agent, nothing cached), and once
// it is fixed the same command redoes those tasks and completes.
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type RecordedRequest,
} from '../../testing/openai-compatible-server.js';
import { runToExit } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { sumReply, writeSumTeam } from '../../testing/_test-sum-team.js';
import { join } from 'node:path';

const servers: OpenAICompatibleServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** The sum of the task's `What is a + b?`, read from the request. */
function sumOf(request: RecordedRequest): number {
  const match = /What is (\d+) \+ (\d+)\?/.exec(JSON.stringify(request.body));
  return match ? Number(match[1]) + Number(match[2]) : 0;
}

describe('repute run with replies that are not in the asked format', () => {
  it('reads the answers of a model that replies in prose: accuracy 100%, no repair prompt needed', async () => {
    // Prose only, no JSON: "Adding the two numbers gives 13, so the result is 13."
    const server = await startOpenAICompatibleServer({
      script: (request) => `Adding the two numbers gives ${sumOf(request)}, so the result is ${sumOf(request)}.`,
    });
    servers.push(server);
    const dir = temporaryDirectory('repute-prose-');
    const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks: 3, agents: ['a', 'b'], methods: ['majority'] });
    const result = await runToExit([team, '--json'], process.env);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    // Old main: accuracy 0.0% and exit 0. 3 tasks × 2 agents × (propose + revise) = 12 requests, no repairs.
    expect(summary.methods.majority).toMatchObject({ done: 3, failed: 0, accuracy: 1 });
    expect(summary.badReplies).toEqual({});
    expect(server.requestCount).toBe(12);
  }, 60_000);

  it('fails the tasks of a garbage-answering agent (exit 4, counted per agent), then redoes them once it is fixed', async () => {
    let fixed = false;
    const server = await startOpenAICompatibleServer({
      script: (request) =>
        !fixed && JSON.stringify(request.body).includes('You are agent b,')
          ? 'lorem ipsum dolor sit amet'
          : sumReply(request),
    });
    servers.push(server);
    const dir = temporaryDirectory('repute-garbage-');
    const team = writeSumTeam(dir, {
      baseURL: server.baseURL,
      tasks: 2,
      agents: ['a', 'b'],
      methods: ['majority'],
      cache: true,
    });
    const first = await runToExit([team, '--json'], process.env);
    expect(first.code, first.stderr).toBe(4);
    const summary = JSON.parse(first.stdout);
    expect(summary.status).toBe('failed');
    expect(summary.methods.majority).toMatchObject({ done: 0, failed: 2 });
    // Per task b's propose and its repair prompt fail (one bad reply), and so do its revise and repair:
    // 2 bad replies per task, 2 tasks.
    expect(summary.badReplies).toEqual({ b: 4 });
    expect(first.stderr).toContain('bad replies per agent: b 4');
    expect(first.stderr).toContain('answered bad reply');
    // The reply is kept for inspection in the task's failure record.
    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const failures = store.taskFailures(summary.runId);
    store.close();
    expect(failures).toHaveLength(2);
    expect(JSON.stringify(failures)).toContain('lorem ipsum dolor sit amet');
    const before = server.requestCount;
    // 2 tasks × (a: propose + revise = 2, b: 2 acts × 2 calls = 4) = 12 requests.
    expect(before).toBe(12);

    fixed = true;
    const rerun = await runToExit([team, '--json'], process.env);
    expect(rerun.code, rerun.stderr).toBe(0);
    const after = JSON.parse(rerun.stdout);
    expect(after.status).toBe('completed');
    expect(after.methods.majority).toMatchObject({ done: 2, failed: 0, accuracy: 1 });
    // b's calls were never cached, so they go to the endpoint again; a's propose comes from the cache.
    expect(server.requestCount).toBeGreaterThan(before);
  }, 90_000);
});
