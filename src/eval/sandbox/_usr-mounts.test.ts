import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { elfInterpreter, usrMounts } from './_usr-mounts.js';

const python = '/usr/bin/python3';
const here = process.platform === 'linux' && existsSync(python) && existsSync('/usr/bin/prlimit');

describe.skipIf(!here)('usrMounts', () => {
  it("reads the dynamic loader from a binary's ELF header, and null from a script", () => {
    // x64: /lib64/ld-linux-x86-64.so.2; arm64: /lib/ld-linux-aarch64.so.1.
    expect(elfInterpreter(realpathSync(python))).toMatch(/^\/(usr\/)?lib(64)?\/ld-linux-[\w-]+\.so\.\d$/);
    const directory = mkdtempSync(join(os.tmpdir(), 'repute-elf-test-'));
    try {
      writeFileSync(join(directory, 'script'), '#!/bin/sh\nexit 0\n');
      expect(elfInterpreter(join(directory, 'script'))).toBeNull();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('binds the interpreter, its standard library and the loader, each path once and none inside another', () => {
    const result = usrMounts(python, '/usr/bin/prlimit');
    if (!('paths' in result)) throw new Error(result.reason);
    const { paths } = result;
    expect(paths).toContain(python);
    expect(paths).toContain('/usr/bin/prlimit');
    // The standard library holds os.py; one bound tree holds it.
    expect(paths.some((tree) => existsSync(join(tree, 'os.py')))).toBe(true);
    expect(paths.some((tree) => /ld-linux/.test(tree) || /-linux-gnu$/.test(tree))).toBe(true);
    expect(paths.every((tree) => tree.startsWith('/usr/'))).toBe(true);
    expect(paths.filter((tree) => paths.some((other) => other !== tree && tree.startsWith(`${other}/`)))).toEqual([]);
    expect(paths).not.toContain('/usr');
    expect(paths).not.toContain('/usr/include');
  });

  it('names a tool outside /usr instead of binding it', () => {
    const directory = mkdtempSync(join(os.tmpdir(), 'repute-usr-test-'));
    try {
      const outside = join(directory, 'python3');
      writeFileSync(outside, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      expect(usrMounts(outside, '/usr/bin/prlimit')).toEqual({
        reason: `tools.python ${outside} is not under /usr, the only tree the sandbox shows parts of; pass an install under /usr`,
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
