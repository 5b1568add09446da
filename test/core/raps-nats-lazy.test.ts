import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../../src/testing/_test-temporary-directory.js';

// Importing the package (and its transport subpath) must not load `nats`: a resolve hook makes any import of it fail loudly.
describe('package import', () => {
  it('does not load nats until the NATS transport is used', () => {
    const dir = temporaryDirectory('repute-lazy-');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `export async function resolve(specifier, context, next) { if (specifier === 'nats' || specifier.startsWith('nats/')) throw new Error('nats was loaded'); return next(specifier, context); }\n`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const entry = pathToFileURL(join(process.cwd(), 'src/index.ts')).href;
    const transport = pathToFileURL(join(process.cwd(), 'src/transport/index.ts')).href;
    const script = `const repute = await import(${JSON.stringify(entry)}); const { connectNatsTransport } = await import(${JSON.stringify(transport)}); console.log(typeof connectNatsTransport, typeof repute.runRaps);`;
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--import', pathToFileURL(register).href, '--input-type=module', '-e', script],
      { encoding: 'utf8', cwd: process.cwd() },
    );
    expect(result.stderr).not.toContain('nats was loaded');
    expect(result.stdout.trim()).toBe('function function');
    // And the hook really works: loading the transport module's dependency fails under it.
    const probe = spawnSync(
      process.execPath,
      ['--import', pathToFileURL(register).href, '--input-type=module', '-e', "await import('nats')"],
      { encoding: 'utf8', cwd: process.cwd() },
    );
    expect(probe.stderr).toContain('nats was loaded');
  });
});
