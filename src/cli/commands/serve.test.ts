import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from '../../store/store.js';
import { startOpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { makeReadOnly, makeWritable } from '../../testing/_test-read-only.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function startCli(args: string[]): Promise<{ url: string; stop: () => Promise<number | null>; stderr: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', 'serve', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Stopped before the test's directory (holding the store) is removed, also when an assertion failed.
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const url = /^(http:\/\/\S+?)\/?$/m.exec(stdout)?.[1];
      if (url)
        resolve({
          url,
          stderr: () => stderr,
          stop: () =>
            new Promise((done) => {
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`repute serve exited ${code}: ${stderr}`)));
  });
}

describe('repute serve', () => {
  it('serves the store on 127.0.0.1 and stops on SIGTERM (exit 143)', async () => {
    const dir = temporaryDirectory('repute-serve-');
    const path = join(dir, 'repute.db');
    const store = openStore({ path });
    store.createRun({ id: 'r1', kind: 'run', team: 't', config: {} });
    store.close();
    const server = await startCli(['--store', path, '--port', '0']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const runs = (await (await fetch(`${server.url}/api/runs`)).json()) as { runs: Array<{ id: string }> };
    expect(runs.runs.map((run) => run.id)).toEqual(['r1']);
    // The CLI contract: a command stopped by SIGTERM exits 143 after winding down.
    expect(await server.stop()).toBe(143);
  }, 30_000);

  it('serves a store it cannot write when no team is given (it only reads then)', async (context) => {
    const dir = temporaryDirectory('repute-serve-ro-');
    const path = join(dir, 'repute.db');
    const store = openStore({ path });
    store.createRun({ id: 'r1', kind: 'run', team: 't', config: {} });
    store.close();
    if (!makeReadOnly(path)) context.skip();
    onTestFinished(() => makeWritable(path));
    // The store's write check at open refused this with "store ... is read-only" (exit 3).
    const server = await startCli(['--store', path, '--port', '0']);
    const runs = (await (await fetch(`${server.url}/api/runs`)).json()) as { runs: Array<{ id: string }> };
    expect(runs.runs.map((run) => run.id)).toEqual(['r1']);
    expect(await server.stop()).toBe(143);
  }, 30_000);

  it('refuses a public host without a token, naming the flag', async () => {
    const dir = temporaryDirectory('repute-serve-');
    openStore({ path: join(dir, 'x.db') }).close();
    await expect(startCli(['--store', join(dir, 'x.db'), '--port', '0', '--host', '0.0.0.0'])).rejects.toThrow(
      /--token/,
    );
  }, 30_000);

  it('refuses a store or replay folder that does not exist instead of serving nothing (exit 3)', async () => {
    const dir = temporaryDirectory('repute-serve-');
    await expect(startCli(['--store', join(dir, 'typo.db'), '--port', '0'])).rejects.toThrow(
      /exited 3: .*NotFoundError: no store at .*typo\.db; pass --store/,
    );
    expect(existsSync(join(dir, 'typo.db'))).toBe(false);
    openStore({ path: join(dir, 'x.db') }).close();
    await expect(
      startCli(['--store', join(dir, 'x.db'), '--replay-dir', join(dir, 'no-such-folder'), '--port', '0']),
    ).rejects.toThrow(/exited 3: .*NotFoundError: no folder at .*no-such-folder; pass --replay-dir/);
  }, 30_000);

  it('refuses a port in use with a typed error naming it (exit 2)', async () => {
    const dir = temporaryDirectory('repute-serve-');
    openStore({ path: join(dir, 'x.db') }).close();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const port = String((busy.address() as AddressInfo).port);
    await expect(startCli(['--store', join(dir, 'x.db'), '--port', port])).rejects.toThrow(
      new RegExp(`exited 2: .*port ${port} on 127\\.0\\.0\\.1 is already in use`),
    );
  }, 30_000);

  it("marks the served team's run interrupted when stopped", async () => {
    const dir = temporaryDirectory('repute-serve-');
    const team = join(dir, 'team.yaml');
    writeFileSync(
      team,
      [
        'schemaVersion: 1',
        'name: served',
        'store: served.db',
        'tasks: tasks.jsonl',
        'serve: { method: majority, kind: number }',
        'agents:',
        ...['a', 'b', 'c'].flatMap((id) => [
          `  - id: ${id}`,
          '    provider: openai-compatible',
          `    model: m-${id}`,
          '    baseURL: http://127.0.0.1:9/v1',
        ]),
      ].join('\n'),
    );
    const server = await startCli([team, '--port', '0']);
    expect(await server.stop()).toBe(143);
    const store = openStore({ path: join(dir, 'served.db') });
    try {
      const runs = store.listRuns().filter((run) => run.kind === 'serve');
      expect(runs.map((run) => run.status)).toEqual(['interrupted']);
    } finally {
      store.close();
    }
  }, 30_000);

  it('drains on SIGTERM: a team request in flight gets its answer, then exit 143 with what was drained', async () => {
    const upstream = await startOpenAICompatibleServer({
      script: () => ({ type: 'reply', text: '{"reasoning": "2 + 2", "answer": "4"}', delayMs: 1500 }),
    });
    onTestFinished(() => upstream.close());
    const dir = temporaryDirectory('repute-serve-drain-');
    const team = join(dir, 'team.yaml');
    writeFileSync(
      team,
      [
        'name: drained',
        'store: served.db',
        'tasks: tasks.jsonl',
        'serve: { method: majority, kind: number }',
        'agents:',
        ...['a', 'b'].flatMap((id) => [
          `  - id: ${id}`,
          '    provider: openai-compatible',
          `    model: m-${id}`,
          `    baseURL: ${upstream.baseURL}`,
        ]),
      ].join('\n'),
    );
    const server = await startCli([team, '--port', '0']);
    const answer = fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'team:drained', messages: [{ role: 'user', content: 'What is 2 + 2?' }] }),
    });
    // SIGTERM once the team's calls are at the endpoint (before: curl saw the connection dropped, exit 52).
    while (upstream.requestCount === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const stopped = server.stop();
    const response = await answer;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toContain('4');
    expect(await stopped).toBe(143);
    expect(server.stderr()).toContain(
      'interrupted by SIGTERM; stopped serving after draining: 1 request in flight finished',
    );
    expect(server.stderr()).not.toContain('rerun the same command to resume');
  }, 60_000);
});
