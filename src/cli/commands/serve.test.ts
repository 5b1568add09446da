import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from '../../store/store.js';
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

  it('refuses a public host without a token, naming the flag', async () => {
    const dir = temporaryDirectory('repute-serve-');
    await expect(startCli(['--store', join(dir, 'x.db'), '--port', '0', '--host', '0.0.0.0'])).rejects.toThrow(
      /--token/,
    );
  }, 30_000);
});
