import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

// What `npm pack` would publish: the built package without test-only files or source maps, with the LICENSE.
// The listing comes from dist/, so dist is built first when a fresh clone has none (`npm ci` builds it via `prepare`).
const root = process.cwd();
let files: string[] = [];

beforeAll(() => {
  if (!existsSync(join(root, 'dist/index.js'))) {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  // --ignore-scripts: listing the files must not rebuild (npm pack runs `prepare` otherwise).
  const listing = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
  const parsed = JSON.parse(listing) as Array<{ files: Array<{ path: string }> }>;
  files = (parsed[0]?.files ?? []).map((file) => file.path);
}, 180_000);

describe('npm pack listing', () => {
  it('ships the LICENSE that package.json names', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string };
    expect(manifest.license).toBe('Apache-2.0');
    expect(files).toContain('LICENSE');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
  });

  it('ships the entry points that package.json exports', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string; import: string }>;
    };
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : [target.types, target.import],
    );
    expect(targets.length).toBeGreaterThan(2);
    for (const target of targets) expect(files, `exports target ${target}`).toContain(target.replace(/^\.\//, ''));
    expect(files).toContain('bin/repute.js');
  });

  it('ships no test files, test helpers or source maps', () => {
    const testOnly = files.filter((path) => /\.test(-d)?\.|(^|\/)_test|(^|\/)_testing\/|(^|\/)_sigkill/.test(path));
    expect(testOnly).toEqual([]);
    // Source maps are dropped: they would point at src/, which is not shipped (see tsconfig.build.json).
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
    expect(files.filter((path) => path.startsWith('src/') || path.startsWith('test/'))).toEqual([]);
  });
});
