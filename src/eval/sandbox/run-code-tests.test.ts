import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { SandboxUnavailableError, checkSandbox, runCodeTests, scoreCodeAnswer } from './run-code-tests.js';

const status = checkSandbox();
// Skip only when the capability is really absent (not root, no util-linux, namespaces refused).
const skipReason = status.available ? '' : status.reason;
if (!status.available) console.warn(`sandbox tests skipped: ${skipReason}`);

describe.skipIf(!status.available)('runCodeTests (sandboxed)', () => {
  let server: net.Server;
  let port = 0;

  beforeAll(async () => {
    server = net.createServer((socket) => socket.end('hello\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('passes a correct program', async () => {
    const result = await runCodeTests({
      code: 'def add(a, b):\n    return a + b',
      test: 'assert add(2, 3) == 5\nprint("ok")',
      language: 'python',
    });
    expect(result).toMatchObject({ schemaVersion: 1, status: 'passed', passed: true, exitCode: 0 });
    expect(result.stdout).toBe('ok\n');
  });

  it('fails a wrong program and keeps the traceback', async () => {
    const result = await runCodeTests({
      code: 'def add(a, b):\n    return a - b',
      test: 'assert add(2, 3) == 5',
      language: 'python',
    });
    expect(result.status).toBe('failed');
    expect(result.passed).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/AssertionError/);
  });

  it.each([
    [
      'sys.exit(0) in a main guard',
      'import sys\ndef add(a, b):\n    return a - b\nif __name__ == "__main__":\n    print(add(1, 2))\n    sys.exit(0)',
    ],
    ['a bare sys.exit(0)', 'import sys\ndef add(a, b):\n    return a - b\nsys.exit(0)'],
    ['os._exit(0)', 'import os\ndef add(a, b):\n    return a - b\nos._exit(0)'],
    ['sys.exit(0) inside the function the tests call', 'import sys\ndef add(a, b):\n    sys.exit(0)'],
  ])('fails a program that exits before the tests finish (%s)', async (_label, code) => {
    const result = await runCodeTests({ code, test: 'assert add(2, 3) == 5', language: 'python' });
    expect(result.status).toBe('failed');
    expect(result.passed).toBe(false);
  });

  it('runs a main guard of the tests, not of the program', async () => {
    const result = await runCodeTests({
      code: 'def add(a, b):\n    return a + b\nif __name__ == "__main__":\n    print("program main")',
      test: 'if __name__ == "__main__":\n    assert add(2, 3) == 5\n    print("tests main")',
      language: 'python',
    });
    expect(result).toMatchObject({ status: 'passed', stdout: 'tests main\n' });
  });

  it('reports a pass when the tests end, however much the program printed', async () => {
    const result = await runCodeTests({
      code: 'print("x" * 5000)',
      test: 'assert True',
      language: 'python',
      maxOutputBytes: 100,
    });
    expect(result.status).toBe('passed');
    expect(result.stdout).toBe('x'.repeat(100));
  });

  it('judges a program that writes a sandbox-like error and exits 1 as failed, not as a broken sandbox', async () => {
    const result = await runCodeTests({
      code: 'import sys\nsys.stderr.write("bwrap: sandbox exploded\\n")\nsys.stderr.flush()\nimport os\nos._exit(1)',
      test: '',
      language: 'python',
    });
    expect(result.status).toBe('failed');
    expect(result.stderr).toBe('bwrap: sandbox exploded\n');
  });

  it('bounds its /tmp: writing more than memoryMb there fails', async () => {
    const code = [
      'written = 0',
      'try:',
      '    for index in range(16):',
      '        with open(f"/tmp/block{index}", "wb") as out:',
      '            out.write(b"x" * (8 * 1024 * 1024))',
      '        written += 8',
      'except OSError as error:',
      '    print(type(error).__name__, written)',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python', memoryMb: 64 });
    // 64 MiB of tmpfs: a ninth 8 MiB block no longer fits (ENOSPC); 128 MiB are never reached.
    expect(result.stdout).toMatch(/^OSError (48|56|64)\n$/);
  });

  it('kills an infinite loop at the timeout', async () => {
    const started = performance.now();
    const result = await runCodeTests({ code: 'while True:\n    pass', test: '', language: 'python', timeoutMs: 1500 });
    expect(result.status).toBe('timeout');
    expect(result.passed).toBe(false);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('kills children forked by the program too (own PID namespace)', async () => {
    const result = await runCodeTests({
      code: 'import os, time\nif os.fork() == 0:\n    while True: time.sleep(1)\nprint(os.getpid(), flush=True)',
      test: 'time.sleep(30)',
      language: 'python',
      timeoutMs: 1500,
    });
    expect(result.status).toBe('timeout');
    // The program runs in its own PID namespace: bwrap's init is PID 1, python (prlimit execs it in place) PID 2.
    expect(result.stdout.trim()).toBe('2');
    // No sandboxed process (bwrap names the host copy repute-sandbox-*, python /sandbox/program.py) survives the kill.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const survivors = spawnSync('ps', ['-e', '-o', 'args='], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((line) => line.includes('repute-sandbox-') || line.includes('/sandbox/program.py'));
    expect(survivors).toEqual([]);
  });

  it('has no network: neither the internet nor a server on the host loopback is reachable', async () => {
    const probe = [
      'import socket',
      'def reach(host, port):',
      '    try:',
      '        socket.create_connection((host, port), timeout=2).close()',
      '        return "connected"',
      '    except OSError as error:',
      '        return type(error).__name__',
      `print(reach("127.0.0.1", ${port}))`,
      'print(reach("1.1.1.1", 53))',
    ].join('\n');
    // Control: the same probe run directly (trusted, outside the sandbox) reaches the host server,
    // so a sandbox that leaked the network would make this test fail.
    const control = spawnSync('/usr/bin/python3', ['-c', probe], { encoding: 'utf8', timeout: 10_000 });
    expect(control.stdout.split('\n')[0]).toBe('connected');
    const result = await runCodeTests({ code: probe, test: '', language: 'python' });
    expect(result.status).toBe('passed');
    const [loopback, internet] = result.stdout.trim().split('\n');
    expect(loopback).not.toBe('connected');
    expect(internet).not.toBe('connected');
  });

  it('runs as nobody with an empty environment (no API keys leak)', async () => {
    if (process.getuid?.() !== 0) return; // not root: bwrap runs as the current user instead
    process.env.REPUTE_SANDBOX_TEST_SECRET = 'sk-test-should-not-leak';
    try {
      const result = await runCodeTests({
        code: 'import os',
        test: 'assert os.getuid() == 65534 and os.getgid() == 65534, (os.getuid(), os.getgid())\nassert os.getgroups() == [], os.getgroups()\nassert "REPUTE_SANDBOX_TEST_SECRET" not in os.environ\nassert not os.access("/root", os.R_OK)',
        language: 'python',
      });
      expect(result.stderr).toBe('');
      expect(result.passed).toBe(true);
    } finally {
      delete process.env.REPUTE_SANDBOX_TEST_SECRET;
    }
  });

  it('sees no file of the repository, the data or the home directory', async () => {
    const repositoryFile = fileURLToPath(new URL('../../../package.json', import.meta.url));
    // Control: the file is there for the host.
    expect(existsSync(repositoryFile)).toBe(true);
    const paths = [
      repositoryFile,
      fileURLToPath(new URL('../../../', import.meta.url)),
      '/work',
      '/root',
      '/home',
      '/etc/passwd',
      os.homedir(),
    ];
    const result = await runCodeTests({
      code: `import os\nfor p in ${JSON.stringify(paths)}:\n    print(p, os.path.exists(p))`,
      test: `try:\n    open(${JSON.stringify(repositoryFile)}).read()\n    print("READ")\nexcept OSError as error:\n    print(type(error).__name__)`,
      language: 'python',
    });
    expect(result.status).toBe('passed');
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, paths.length)).toEqual(paths.map((p) => `${p} False`));
    expect(lines.at(-1)).toBe('FileNotFoundError');
  });

  it('writes nothing that outlives the run: /tmp is private and removed, the root read-only', async () => {
    const marker = `repute-escape-${process.pid}-${Date.now()}`;
    const before = new Set(readdirSync(os.tmpdir()));
    const code = [
      'import os',
      `open("/tmp/${marker}", "w").write("x")`,
      `print(os.path.exists("/tmp/${marker}"))`,
      'for p in ["/usr/escape", "/escape", "/sandbox/escape", "/proc/escape"]:',
      '    try:',
      '        open(p, "w").write("x")',
      '        print("WROTE", p)',
      '    except OSError as error:',
      '        print(type(error).__name__)',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python' });
    expect(result.status).toBe('passed');
    const lines = result.stdout.trim().split('\n');
    // Inside, /tmp is writable; every other path is read-only or absent.
    expect(lines[0]).toBe('True');
    expect(lines.slice(1).every((line) => !line.startsWith('WROTE'))).toBe(true);
    expect(existsSync(join(os.tmpdir(), marker))).toBe(false);
    expect(existsSync('/usr/escape') || existsSync('/escape')).toBe(false);
    // The host copy of the program (repute-sandbox-*) is removed too.
    const added = readdirSync(os.tmpdir()).filter((entry) => !before.has(entry) && entry.startsWith('repute-sandbox-'));
    expect(added).toEqual([]);
  });

  it("sees only its own processes in /proc, not the host's", async () => {
    const result = await runCodeTests({
      code:
        'import os\npids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())\nprint(pids)\nprint(os.path.exists("/proc/' +
        process.pid +
        '"))',
      test: '',
      language: 'python',
    });
    expect(result.status).toBe('passed');
    const [pids, host] = result.stdout.trim().split('\n');
    // bwrap's init (1) and python (2): nothing of the host.
    expect(pids).toBe('[1, 2]');
    expect(host).toBe('False');
  });

  it('enforces the memory limit', async () => {
    const result = await runCodeTests({
      code: 'block = bytearray(1024 * 1024 * 1024)',
      test: '',
      language: 'python',
      memoryMb: 128,
    });
    expect(result.status).toBe('failed');
    expect(result.stderr).toMatch(/MemoryError/);
  });

  it('grades a code answer from raw model text', async () => {
    const text = 'Here is my solution:\n```python\ndef is_even(n):\n    return n % 2 == 0\n```';
    await expect(scoreCodeAnswer({ text, test: 'assert is_even(4) and not is_even(3)' })).resolves.toMatchObject({
      correct: true,
    });
    await expect(scoreCodeAnswer({ text: '   ', test: 'assert True' })).resolves.toEqual({
      correct: false,
      result: null,
    });
  });
});

describe('runCodeTests refusals (no sandbox needed)', () => {
  it('refuses to run when a sandbox tool is missing, instead of running unsandboxed', async () => {
    await expect(
      runCodeTests({ code: 'print(1)', test: '', language: 'python', tools: { bwrap: '/nonexistent/bwrap' } }),
    ).rejects.toThrow(SandboxUnavailableError);
    await expect(
      runCodeTests({ code: 'print(1)', test: '', language: 'python', tools: { python: '/nonexistent/python3' } }),
    ).rejects.toThrow(/refusing to run untrusted code without a sandbox/);
  });

  it('refuses bad arguments with typed errors', async () => {
    await expect(runCodeTests({ code: 'x', test: '', language: 'ruby' as never })).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(runCodeTests({ code: 'x', test: '', language: 'python', timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
  });
});
