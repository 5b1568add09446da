import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../core/errors.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';
import { startNodeScript } from './_node-script-process.js';

function script(dir: string, name: string, body: string): URL {
  const path = join(dir, name);
  writeFileSync(path, body);
  return pathToFileURL(path);
}

describe('startNodeScript', () => {
  it('takes the first script that exists, is ready on `ready <id>`, passes stderr on and stops on SIGTERM', async () => {
    const dir = temporaryDirectory('repute-node-script-');
    const url = script(
      dir,
      'node.mjs',
      "process.stderr.write('warming up\\n'); console.log('ready a1 ' + process.argv.slice(2).join(' ')); setInterval(() => {}, 1000);",
    );
    const errors: string[] = [];
    const node = startNodeScript({
      scripts: [new URL('missing.mjs', url), url],
      args: ['--x', '1'],
      agentId: 'a1',
      role: 'agent process',
      onStderr: (text) => errors.push(text),
    });
    await node.ready;
    await node.stop();
    expect(node.child.signalCode).toBe('SIGTERM');
    expect(errors.join('')).toBe('warming up\n');
  });

  it('rejects `ready` with the exit code and the stderr tail when the script exits first', async () => {
    const dir = temporaryDirectory('repute-node-script-');
    const url = script(dir, 'broken.mjs', "process.stderr.write('no team file'); process.exit(3);");
    const node = startNodeScript({ scripts: [url], args: [], agentId: 'a2', role: 'node process' });
    await expect(node.ready).rejects.toThrow(TransportError);
    await expect(node.ready).rejects.toThrow(
      'node process for a2 exited with code 3 before it was ready: no team file',
    );
    await node.kill();
  });

  it('names every candidate when none exists', () => {
    const dir = temporaryDirectory('repute-node-script-');
    expect(() =>
      startNodeScript({
        scripts: [pathToFileURL(join(dir, 'a.js')), pathToFileURL(join(dir, 'a.ts'))],
        args: [],
        agentId: 'a3',
        role: 'agent process',
      }),
    ).toThrow(/cannot find the agent process script \(.*a\.js or .*a\.ts\); reinstall the package/);
  });
});
