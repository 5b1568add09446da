import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer, type RecordedRequest } from '../../testing/openai-compatible-server.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const cli = ['--import', 'tsx', 'src/cli/run-cli.ts', 'run'];

/**
 * A deterministic "model": it solves `What is a + b?` prompts, except agent `weak`, which answers
 * a + b + 1 and keeps it in debate; ratings are 0.9 for the right sum and 0.1 otherwise.
 */
function reply(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: string | Array<{ text: string }> }> }).messages;
  const text = (message: (typeof messages)[number] | undefined) => (typeof message?.content === 'string' ? message.content : (message?.content ?? []).map((part) => part.text).join(''));
  const system = text(messages.find((message) => message.role === 'system'));
  const user = text(messages.find((message) => message.role === 'user'));
  const agent = /You are agent (\S+),/.exec(system)?.[1] ?? '?';
  const match = /What is (\d+) \+ (\d+)\?/.exec(user);
  const sum = match ? Number(match[1]) + Number(match[2]) : 0;
  if (user.includes('"score"')) {
    const proposed = /proposed the answer (\S+) with/.exec(user)?.[1];
    return JSON.stringify({ score: proposed === String(sum) ? 0.9 : 0.1, reason: 'checked the sum' });
  }
  const answer = agent === 'weak' ? sum + 1 : sum;
  return `Here is my reply.\n${JSON.stringify({ reasoning: `${match?.[1]} plus ${match?.[2]}`, answer: String(answer) })}`;
}

function writeTeam(dir: string, baseURL: string, tasks: number, extra = ''): string {
  const lines = Array.from({ length: tasks }, (_, index) => JSON.stringify({ id: `t${index + 1}`, prompt: `What is ${index + 10} + ${2 * index + 3}?`, kind: 'number', reference: String(3 * index + 13) }));
  writeFileSync(join(dir, 'tasks.jsonl'), `${lines.join('\n')}\n`);
  const agents = ['alpha', 'beta-1', 'beta-2', 'weak']
    .map((id) => `  - id: ${id}\n    provider: openai-compatible\n    model: ${id.startsWith('beta') ? 'beta-model' : `${id}-model`}\n    baseURL: ${baseURL}\n    price: { inputPerMillion: 1, outputPerMillion: 2 }${extra}`)
    .join('\n');
  const file = join(dir, 'team.yaml');
  writeFileSync(file, `name: test-team\nstore: repute.db\ntasks: tasks.jsonl\nprotocol: { type: debate, rounds: 1 }\nmethods: [majority, beta, minirep]\nmaxRetries: 0\nagents:\n${agents}\n`);
  return file;
}

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('repute run', () => {
  it('replays a second run entirely from the cache: zero provider requests, identical decisions and events', async () => {
    server = await startOpenAICompatibleServer({ script: (request) => reply(request) });
    const dir = mkdtempSync(join(tmpdir(), 'repute-run-'));
    const team = writeTeam(dir, server.baseURL, 4);
    const first = JSON.parse((await run(process.execPath, [...cli, team, '--run-id', 'first', '--reputation', 'fresh', '--json'], { cwd: root })).stdout);
    const requests = server.requestCount;
    // 4 agents × (propose + 1 revise) × 4 tasks × 3 methods = 96 calls (no ratings in these methods).
    // Methods that show the same peers send identical requests, so part of them already come from
    // the cache within the first run: every call is either a provider request or a cache hit.
    expect(first.usage.calls).toBe(96);
    expect(requests).toBeGreaterThanOrEqual(32);
    expect(first.usage.cachedCalls).toBe(96 - requests);
    expect(first.methods.majority).toEqual({ done: 4, resumed: 0, accuracy: 1, failures: 0 });

    const second = JSON.parse((await run(process.execPath, [...cli, team, '--run-id', 'second', '--reputation', 'fresh', '--json'], { cwd: root })).stdout);
    expect(server.requestCount).toBe(requests);
    expect(second.usage).toMatchObject({ calls: 96, cachedCalls: 96, cost: 0 });
    const store = openStore({ path: join(dir, 'repute.db') });
    for (const method of ['majority', 'beta', 'minirep']) {
      expect(store.taskResults('second', method).map((record) => record.result)).toEqual(store.taskResults('first', method).map((record) => record.result));
    }
    const strip = (runId: string) => store.events(runId).map((event) => [event.type, event.method, event.taskId, event.spanId, event.parentId, JSON.stringify(event.data)]);
    expect(strip('second')).toEqual(strip('first'));
    expect(strip('first').length).toBeGreaterThan(0);
    store.close();
  }, 60_000);

  it('counts a failing provider without crashing and never stores the API key', async () => {
    const secret = 'sk-test-4f9a2c81d7e6b3';
    // Agent `weak` always gets an error whose body echoes the Authorization header (a leaky server).
    server = await startOpenAICompatibleServer({ script: (request) => (reply(request).includes('"answer"') && JSON.stringify(request.body).includes('You are agent weak,') ? { type: 'echo-auth', status: 500 } : reply(request)) });
    const dir = mkdtempSync(join(tmpdir(), 'repute-fail-'));
    const team = writeTeam(dir, server.baseURL, 3, '\n    apiKeyEnv: REPUTE_TEST_KEY');
    const { stdout } = await run(process.execPath, [...cli, team, '--methods', 'majority', '--json'], { cwd: root, env: { ...process.env, REPUTE_TEST_KEY: secret } });
    const summary = JSON.parse(stdout);
    // 3 tasks × (propose + 1 revise) failed acts of `weak`; the three honest agents still decide right.
    expect(summary.methods.majority).toEqual({ done: 3, resumed: 0, accuracy: 1, failures: 6 });
    expect(server.requests.some((request) => request.headers.authorization === `Bearer ${secret}`)).toBe(true);
    expect(stdout).not.toContain(secret);
    const bytes = readFileSync(join(dir, 'repute.db')).toString('latin1') + (existsSync(join(dir, 'repute.db-wal')) ? readFileSync(join(dir, 'repute.db-wal')).toString('latin1') : '');
    expect(bytes).not.toContain(secret);
    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const failed = store.events(store.listRuns()[0]!.id).filter((event) => event.error !== null);
    expect(failed).toHaveLength(6);
    // The message keeps what happened (HTTP 500, echoed header) with the key scrubbed by src/llm.
    expect(failed[0]!.error).toMatch(/HTTP 500: .*authorization Bearer \[redacted\]/);
    expect(failed.every((event) => !event.error!.includes(secret))).toBe(true);
    store.close();
  }, 60_000);

  it('resumes after SIGKILL with no task lost or counted twice', async () => {
    server = await startOpenAICompatibleServer({ script: (request) => ({ type: 'reply', text: reply(request), delayMs: 40 }) });
    const dir = mkdtempSync(join(tmpdir(), 'repute-kill-'));
    const team = writeTeam(dir, server.baseURL, 8);
    const child = spawn(process.execPath, [...cli, team, '--methods', 'majority,beta', '--json'], { cwd: root, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const dbPath = join(dir, 'repute.db');
    // Kill once a few tasks are committed (polling the store from this process).
    for (let attempt = 0; attempt < 400; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      let done = 0;
      try {
        const store = openStore({ path: dbPath, readonly: true });
        done = store.listRuns().reduce((sum, runRecord) => sum + store.taskResults(runRecord.id).length, 0);
        store.close();
      } catch {
        // the child has not created the database yet
      }
      if (done >= 3) break;
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const before = openStore({ path: dbPath, readonly: true });
    const runId = before.listRuns()[0]!.id;
    const committed = before.taskResults(runId).length;
    before.close();
    expect(committed).toBeGreaterThanOrEqual(3);
    expect(committed).toBeLessThan(16);

    const resumed = JSON.parse((await run(process.execPath, [...cli, team, '--methods', 'majority,beta', '--json'], { cwd: root })).stdout);
    expect(resumed.runId).toBe(runId);
    expect(resumed.methods.majority.done + resumed.methods.beta.done).toBe(16);
    expect(resumed.methods.majority.resumed + resumed.methods.beta.resumed).toBe(committed);
    const store = openStore({ path: dbPath, readonly: true });
    for (const method of ['majority', 'beta']) {
      const ids = store.taskResults(runId, method).map((record) => record.taskId);
      expect(ids.slice().sort()).toEqual(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
      expect(store.events(runId, { type: 'vote', method })).toHaveLength(8);
    }
    expect(store.getRun(runId)?.status).toBe('completed');
    store.close();
  }, 90_000);
});
