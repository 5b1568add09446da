import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { SandboxUnavailableError, checkSandbox, runCodeTests, scoreCodeAnswer } from './run-code-tests.js';

/** Runs `body` with os.tmpdir() pointing at `directory` (it reads TMPDIR on every call). */
async function withTmpdir<T>(directory: string, body: () => Promise<T>): Promise<T> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = directory;
  try {
    return await body();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** Processes whose command line or mount table names `path` (readable for every process as root). */
function processesNaming(path: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const mounts = readFileSync(`/proc/${pid}/mountinfo`, 'utf8');
      if (args.includes(path) || mounts.includes(path)) found.push(`${pid}: ${args}`);
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

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
    // Then the supervisor says why the run failed.
    expect(result.stderr).toBe(
      "bwrap: sandbox exploded\nrepute-sandbox: the program's process ended before the tests finished\n",
    );
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

  it('kills the whole sandbox at the timeout, threads that ignore SIGTERM included', async () => {
    const code = [
      'import os, signal, threading, time',
      'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
      'threading.Thread(target=lambda: time.sleep(60), daemon=False).start()',
      'print(os.getpid(), flush=True)',
    ].join('\n');
    // The host copy of this run goes to a temporary directory of its own, so that sandboxes of other
    // test files (or other processes on the machine) running at the same time are told apart.
    const own = mkdtempSync(join(os.tmpdir(), 'repute-sandbox-kill-'));
    chmodSync(own, 0o755); // like /tmp: the sandbox's unprivileged user must reach the host copy
    const result = await withTmpdir(own, () =>
      runCodeTests({ code, test: 'time.sleep(30)', language: 'python', timeoutMs: 1500 }),
    );
    expect(result).toMatchObject({ status: 'timeout', signal: 'SIGKILL', exitCode: null });
    // The program runs in its own PID namespace: the supervisor (python, which prlimit execs in
    // place; bwrap --as-pid-1 starts no init of its own) is PID 1, the program's process PID 2.
    expect(result.stdout.trim()).toBe('2');
    // No process of this run survives the kill: neither bwrap (its arguments name the host copy)
    // nor anything inside (its mount table names the host copy bound at /sandbox).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const survivors = processesNaming(own);
    rmSync(own, { recursive: true, force: true });
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
    const own = mkdtempSync(join(os.tmpdir(), 'repute-sandbox-tmp-'));
    chmodSync(own, 0o755);
    const result = await withTmpdir(own, () => runCodeTests({ code, test: '', language: 'python' }));
    expect(result.status).toBe('passed');
    const lines = result.stdout.trim().split('\n');
    // Inside, /tmp is writable; every other path is read-only or absent.
    expect(lines[0]).toBe('True');
    expect(lines.slice(1).every((line) => !line.startsWith('WROTE'))).toBe(true);
    expect(existsSync(join('/tmp', marker))).toBe(false);
    expect(existsSync(join(own, marker))).toBe(false);
    expect(existsSync('/usr/escape') || existsSync('/escape')).toBe(false);
    // The host copy of the program (repute-sandbox-*, made in this run's own directory) is removed too.
    expect(readdirSync(own)).toEqual([]);
    rmSync(own, { recursive: true, force: true });
  });

  it('sees only the parts of /usr that Python needs, and the standard library still works', async () => {
    // Before, the whole of /usr was visible: other programs, headers, documentation, /usr/local/bin.
    const hidden = ['/usr/include', '/usr/share/doc', '/usr/bin/env', '/usr/bin/perl', '/usr/local/bin', '/usr/sbin'];
    // Control: they are there on the host (a path the host lacks would prove nothing).
    const present = hidden.filter((file) => existsSync(file));
    expect(present.length).toBeGreaterThanOrEqual(3);
    const code = [
      'import os',
      `for path in ${JSON.stringify(present)}:`,
      '    print(path, os.path.exists(path))',
      'import ctypes, datetime, hashlib, sqlite3, ssl, zlib, zoneinfo',
      'print(datetime.datetime(2024, 7, 1, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")).utcoffset())',
      'print(sqlite3.connect(":memory:").execute("select 1 + 1").fetchone(), zlib.crc32(b"x"), ctypes.sizeof(ctypes.c_int))',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python' });
    expect(result.stderr).toBe('');
    // Paris is UTC+2 in July; crc32(b"x") = 2363233923.
    expect(result.stdout).toBe(
      [...present.map((file) => `${file} False`), '2:00:00', '(2,) 2363233923 4', ''].join('\n'),
    );
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
    // The supervisor (1) and the program's process (2): nothing of the host.
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
  // --- Reproductions of the defects found in the security review (each failed before its fix). ---

  it('passes no descriptor the host process inherited on to the program', async () => {
    // A Node process gets a pipe at fd 30 that is not close-on-exec (as a supervisor or a log
    // collector may leave one; Node keeps such descriptors from 20 up open in its children), then
    // runs a program that writes to fd 30. bwrap passes inherited descriptors on to the command, so
    // before the fix the program's words reached the host's pipe.
    const directory = mkdtempSync(join(os.tmpdir(), 'repute-fd-test-'));
    try {
      const script = join(directory, 'run.mts');
      const program = [
        'import os',
        'try:',
        '    os.write(30, b"LEAKED")',
        '    print("wrote")',
        'except OSError as error:',
        '    print(type(error).__name__)',
      ].join('\n');
      writeFileSync(
        script,
        `import { runCodeTests } from ${JSON.stringify(new URL('./run-code-tests.ts', import.meta.url).href)};\n` +
          `const result = await runCodeTests({ code: ${JSON.stringify(program)}, test: '', language: 'python' });\n` +
          'process.stdout.write(JSON.stringify(result));\n',
      );
      const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
        cwd: fileURLToPath(new URL('../../../', import.meta.url)),
        stdio: ['ignore', 'pipe', 'pipe', ...new Array<'ignore'>(27).fill('ignore'), 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(child.stderr).toBe('');
      const result = JSON.parse(child.stdout);
      expect(result).toMatchObject({ status: 'passed', stdout: 'OSError\n' });
      expect(child.output[30]).toBe('');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('bounds the memory of the whole sandbox: the program cannot start processes, only threads', async () => {
    // Before the fix each of 64 processes had its own memoryMb of address space: four children of
    // 40 MiB each (160 MiB) all fitted under memoryMb: 64. Now fork and subprocess are refused.
    const code = [
      'import os, subprocess, threading',
      'children = 0',
      'for _ in range(4):',
      '    try:',
      '        pid = os.fork()',
      '    except OSError as error:',
      '        print("fork", type(error).__name__)',
      '        break',
      '    if pid == 0:',
      '        block = bytearray(40 * 1024 * 1024)',
      '        os._exit(0)',
      '    os.waitpid(pid, 0)',
      '    children += 1',
      'print("children", children)',
      'try:',
      '    subprocess.run(["/usr/bin/true"])',
      '    print("subprocess ran")',
      'except OSError as error:',
      '    print("subprocess", type(error).__name__)',
      'seen = []',
      'worker = threading.Thread(target=lambda: seen.append("thread ran"))',
      'worker.start()',
      'worker.join()',
      'print(*seen)',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python', memoryMb: 64 });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('fork PermissionError\nchildren 0\nsubprocess PermissionError\nthread ran\n');
  });

  it('cannot create a user namespace of its own (whose tmpfs would have no size limit)', async () => {
    // Before the fix unshare(CLONE_NEWUSER | CLONE_NEWNS) succeeded, and a tmpfs mounted there took
    // half the host's memory as its size.
    const code = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'status = libc.unshare(0x10000000 | 0x00020000)',
      'print(status, os.strerror(ctypes.get_errno()) if status else "")',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python' });
    expect(result.stdout).toBe('-1 Operation not permitted\n');
  });

  it('cannot hold memory outside its address space in SysV shared memory or memfd files', async () => {
    // Before the fix, with memoryMb: 64, the program kept 576 MiB in 12 detached 48 MiB SysV segments
    // (no limit in a new IPC namespace) and 900 MiB in 60 memfd files (64 descriptors x 16 MiB).
    const code = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'segments = 0',
      'for _ in range(3):',
      '    if libc.shmget(0, ctypes.c_size_t(48 << 20), 0o1600) < 0:',
      '        print("shmget", os.strerror(ctypes.get_errno()))',
      '        break',
      '    segments += 1',
      'print("segments", segments)',
      'try:',
      '    os.memfd_create("held")',
      '    print("memfd created")',
      'except OSError as error:',
      '    print("memfd", type(error).__name__)',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python', memoryMb: 64 });
    expect(result.stdout).toBe('shmget Operation not permitted\nsegments 0\nmemfd PermissionError\n');
  });

  it('cannot write to /dev (an unbounded tmpfs) or /dev/shm, but can write to /dev/null', async () => {
    const code = [
      'for path in ["/dev/escape", "/dev/shm/escape", "/dev/null"]:',
      '    try:',
      '        with open(path, "wb") as out:',
      '            out.write(b"x" * 1024)',
      '        print(path, "written")',
      '    except OSError as error:',
      '        print(path, type(error).__name__)',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python', memoryMb: 64 });
    expect(result.stdout).toBe('/dev/escape OSError\n/dev/shm/escape OSError\n/dev/null written\n');
  });

  it('leaves nothing in the kernel keyrings for a later run to read', async () => {
    // Before the fix a key added by one run stayed listed (description included) in /proc/keys of
    // the next run, a channel between runs; request_key can also start a helper on the host.
    const marker = `repute-key-${process.pid}`;
    const addKey = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'libc.syscall.restype = ctypes.c_long',
      `number = {"x86_64": 248, "aarch64": 217}[os.uname().machine]`,
      `status = libc.syscall(number, b"user", b"${marker}", b"secret", 6, -4)`,
      'print("add_key", "refused" if status < 0 else "added")',
    ].join('\n');
    const first = await runCodeTests({ code: addKey, test: '', language: 'python' });
    expect(first.stdout).toBe('add_key refused\n');
    const second = await runCodeTests({
      code: `import os\nkeys = open("/proc/keys").read() if os.path.exists("/proc/keys") else ""\nprint(${JSON.stringify(marker)} in keys)`,
      test: '',
      language: 'python',
    });
    expect(second.stdout).toBe('False\n');
  });

  it.each([
    [
      'patches builtins.exec',
      'import builtins\ndef add(a, b):\n    return a - b\nbuiltins.exec = lambda *args, **kwargs: None',
    ],
    [
      'patches builtins.compile',
      'import builtins\ndef add(a, b):\n    return a - b\nbuiltins.compile = lambda *args, **kwargs: compile("pass", "x", "exec")',
    ],
    [
      'serves other tests through builtins.open',
      'import builtins, io\nreal_open = builtins.open\ndef add(a, b):\n    return a - b\nbuiltins.open = lambda path, *args, **kwargs: io.StringIO("pass") if str(path).endswith("tests.py") else real_open(path, *args, **kwargs)',
    ],
    [
      'replaces sys.exit',
      'import sys\ndef add(a, b):\n    sys.exit = lambda *args: None\n    sys.exit(0)\n    return a - b',
    ],
  ])('fails a wrong program that %s', async (_label, code) => {
    const result = await runCodeTests({ code, test: 'assert add(2, 3) == 5', language: 'python' });
    expect(result.status).toBe('failed');
  });

  it.each([
    ['redirects sys.stdout', 'import io, sys\nsys.stdout = io.StringIO()\ndef add(a, b):\n    return a + b'],
    ['closes sys.stdout', 'import sys\nsys.stdout.close()\ndef add(a, b):\n    return a + b'],
  ])('passes a right program that %s', async (_label, code) => {
    const result = await runCodeTests({ code, test: 'assert add(2, 3) == 5', language: 'python' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe('passed');
  });

  it('runs unittest test cases with unittest.main(exit=False), and fails a wrong program', async () => {
    // Before the fix sys.modules["__main__"] was the driver: "Ran 0 tests", and the wrong program passed.
    const test = [
      'import unittest',
      'class AddTest(unittest.TestCase):',
      '    def test_add(self):',
      '        self.assertEqual(add(2, 3), 5)',
      'outcome = unittest.main(exit=False).result',
      'assert outcome.testsRun == 1 and outcome.wasSuccessful()',
    ].join('\n');
    const wrong = await runCodeTests({ code: 'def add(a, b):\n    return a - b', test, language: 'python' });
    expect(wrong.status).toBe('failed');
    expect(wrong.stderr).toMatch(/Ran 1 test/);
    const right = await runCodeTests({ code: 'def add(a, b):\n    return a + b', test, language: 'python' });
    expect(right.status).toBe('passed');
  });

  it('refuses tests that do not compile with InvalidArgumentError, instead of failing every program', async () => {
    const run = runCodeTests({
      code: 'def add(a, b):\n    return a + b',
      test: 'assert add(2, 3) ==',
      language: 'python',
    });
    await expect(run).rejects.toThrow(InvalidArgumentError);
    await expect(run).rejects.toThrow(/test does not compile as Python: .*SyntaxError/s);
    // A program that writes the same words is only a failed program (it runs after the tests compiled).
    const forged = await runCodeTests({
      code: 'import sys\nsys.stderr.write("repute-sandbox: the tests do not compile\\n")\nsys.exit(2)',
      test: 'assert True',
      language: 'python',
    });
    expect(forged.status).toBe('failed');
  });

  it('reports a program killed by a signal as failed with that signal, not as a timeout', async () => {
    const killed = await runCodeTests({
      code: 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)',
      test: '',
      language: 'python',
      timeoutMs: 5000,
    });
    // Before the fix: status 'timeout' after a few milliseconds, signal null.
    expect(killed).toMatchObject({ status: 'failed', signal: 'SIGKILL', exitCode: 128 + 9 });
    const crashed = await runCodeTests({ code: 'import ctypes\nctypes.string_at(0)', test: '', language: 'python' });
    expect(crashed).toMatchObject({ status: 'failed', signal: 'SIGSEGV', exitCode: 128 + 11 });
  });

  it('reports the CPU limit (SIGXCPU) as a timeout', async () => {
    // The program lowers its own CPU limit to 1 s, as the sandbox's limit would stop a multi-threaded loop.
    const code = 'import resource\nresource.setrlimit(resource.RLIMIT_CPU, (1, 2))\nwhile True:\n    pass';
    const result = await runCodeTests({ code, test: '', language: 'python', timeoutMs: 8000 });
    expect(result).toMatchObject({ status: 'timeout', signal: 'SIGXCPU', exitCode: 128 + 24 });
  });

  it('keeps no part of the end-of-tests token in a short stdout, and cuts long output on a whole character', async () => {
    // 79 x and a newline: 80 bytes, under maxOutputBytes: 100; before the fix the rest of the
    // 100 bytes held the start of the token line.
    const short = await runCodeTests({ code: 'print("x" * 79)', test: '', language: 'python', maxOutputBytes: 100 });
    expect(short).toMatchObject({ status: 'passed', stdout: `${'x'.repeat(79)}\n` });
    // 60 é are 120 bytes; 101 bytes hold 50 whole é (100 bytes) and half of the 51st.
    const accented = await runCodeTests({ code: 'print("é" * 60)', test: '', language: 'python', maxOutputBytes: 101 });
    expect(accented.stdout).toBe('é'.repeat(50));
  });

  it('takes tools left undefined from the defaults', async () => {
    // Before the fix { bwrap: undefined } replaced the default and the run was refused ("not found at undefined").
    const result = await runCodeTests({ code: 'print(1)', test: '', language: 'python', tools: { bwrap: undefined } });
    expect(result.stdout).toBe('1\n');
  });

  it('reports an interpreter the sandbox cannot see as unavailable, before any run', () => {
    // The sandbox mounts only /usr; before the fix the probe ran /usr/bin/true, said "available",
    // and every run then failed.
    const directory = mkdtempSync(join(os.tmpdir(), 'repute-python-test-'));
    try {
      const python = join(directory, 'python3');
      writeFileSync(python, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const outside = checkSandbox({ python });
      expect(outside.available).toBe(false);
      expect(outside.available ? '' : outside.reason).toContain(python);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/**
 * Programs that try to make a wrong `add` pass; each of them faked a pass against the driver that
 * ran the tests in the program's own interpreter (the token it wrote after the tests sat in its
 * frame, in memory and on stdout, and the tests' comparisons, builtins and unittest were the
 * program's to change).
 */
const forgeries: [string, string, string][] = [
  [
    "reads the end token from the driver's frame (sys._getframe, f_back, f_locals)",
    [
      'import os, sys',
      'def add(a, b):',
      '    frame = sys._getframe()',
      '    while frame is not None:',
      '        for value in list(frame.f_locals.values()):',
      '            if isinstance(value, str) and value.startswith("repute-tests-done-"):',
      '                os.write(1, ("\\n" + value + "\\n").encode())',
      '                os._exit(0)',
      '        frame = frame.f_back',
      '    return a - b',
    ].join('\n'),
    'assert add(2, 3) == 5',
  ],
  [
    "reads the end token from inspect.stack() and a traceback's frames",
    [
      'import inspect, os',
      'def forge(frames):',
      '    for frame in frames:',
      '        for value in list(frame.f_locals.values()):',
      '            if isinstance(value, str) and value.startswith("repute-tests-done-"):',
      '                os.write(1, ("\\n" + value + "\\n").encode())',
      '                os._exit(0)',
      'def add(a, b):',
      '    forge(info.frame for info in inspect.stack())',
      '    try:',
      '        raise RuntimeError',
      '    except RuntimeError as error:',
      '        frame = error.__traceback__.tb_frame',
      '    chain = []',
      '    while frame is not None:',
      '        chain.append(frame)',
      '        frame = frame.f_back',
      '    forge(chain)',
      '    return a - b',
    ].join('\n'),
    'assert add(2, 3) == 5',
  ],
  [
    "raises an exception whose __str__ walks the driver's frames while it reports the failure",
    [
      'import os, sys',
      'class Failure(Exception):',
      '    def __str__(self):',
      '        frame = sys._getframe()',
      '        while frame is not None:',
      '            for value in list(frame.f_locals.values()):',
      '                if isinstance(value, str) and value.startswith("repute-tests-done-"):',
      '                    os.write(1, ("\\n" + value + "\\n").encode())',
      '                    os._exit(0)',
      '            frame = frame.f_back',
      '        return "failure"',
      'def add(a, b):',
      '    raise Failure()',
    ].join('\n'),
    'assert add(2, 3) == 5',
  ],
  [
    'finds the end token in its own memory (/proc/*/mem) and writes it to every descriptor and /proc/*/fd it can open',
    [
      'import os, re',
      'pattern = re.compile(rb"repute-tests-done-[0-9a-f]{32}")',
      'def tokens():',
      '    found = set()',
      '    for pid in [name for name in os.listdir("/proc") if name.isdigit()]:',
      '        try:',
      '            regions = open(f"/proc/{pid}/maps").read().splitlines()',
      '            memory = open(f"/proc/{pid}/mem", "rb")',
      '        except OSError:',
      '            continue',
      '        for region in regions:',
      '            span, permissions = region.split()[:2]',
      '            start, end = (int(part, 16) for part in span.split("-"))',
      '            if permissions[0] != "r" or end - start > 1 << 28:',
      '                continue',
      '            try:',
      '                memory.seek(start)',
      '                found.update(pattern.findall(memory.read(end - start)))',
      '            except (OSError, OverflowError, ValueError):',
      '                pass',
      '    return found',
      'def forge():',
      '    for token in tokens():',
      '        line = b"\\n" + token + b"\\n"',
      '        for fd in range(1, 64):',
      '            try:',
      '                os.write(fd, line)',
      '            except OSError:',
      '                pass',
      '        for pid in [name for name in os.listdir("/proc") if name.isdigit()]:',
      '            try:',
      '                for fd in os.listdir(f"/proc/{pid}/fd"):',
      '                    try:',
      '                        descriptor = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY)',
      '                        os.write(descriptor, line)',
      '                    except OSError:',
      '                        pass',
      '            except OSError:',
      '                pass',
      '    os._exit(0)',
      'def add(a, b):',
      '    forge()',
    ].join('\n'),
    'assert add(2, 3) == 5',
  ],
  [
    'returns an object equal to everything',
    [
      'class Anything:',
      '    def __eq__(self, other):',
      '        return True',
      '    __hash__ = object.__hash__',
      'def add(a, b):',
      '    return Anything()',
    ].join('\n'),
    'assert add(2, 3) == 5\nassert add(1, 1) == 2',
  ],
  [
    'returns an int subclass equal to everything',
    [
      'class Number(int):',
      '    def __eq__(self, other):',
      '        return True',
      '    __hash__ = int.__hash__',
      'def add(a, b):',
      '    return Number(a - b)',
    ].join('\n'),
    'assert add(2, 3) == 5\nassert add(1, 1) == 2',
  ],
  [
    'patches a builtin the tests use (abs)',
    'import builtins\nbuiltins.abs = lambda value: 0\ndef add(a, b):\n    return a - b',
    'assert abs(add(2, 3) - 5) < 1e-9',
  ],
  [
    'defines a global named like a builtin the tests use (abs)',
    'def abs(value):\n    return 0\ndef add(a, b):\n    return a - b',
    'assert abs(add(2, 3) - 5) < 1e-9',
  ],
  [
    'replaces a function of a standard module it imported (math.isclose)',
    'import math\nmath.isclose = lambda *args, **kwargs: True\ndef add(a, b):\n    return a - b',
    'assert math.isclose(add(2, 3), 5)',
  ],
  [
    'exits inside the tested function, under tests that catch BaseException',
    'import sys\ndef add(a, b):\n    sys.exit(0)',
    'try:\n    assert add(2, 3) == 5\nexcept BaseException:\n    pass',
  ],
  [
    'patches unittest.TestCase.assertEqual',
    'import unittest\nunittest.TestCase.assertEqual = lambda *args, **kwargs: None\ndef add(a, b):\n    return a - b',
    [
      'import unittest',
      'class AddTest(unittest.TestCase):',
      '    def test_add(self):',
      '        self.assertEqual(add(2, 3), 5)',
      'outcome = unittest.main(exit=False).result',
      'assert outcome.testsRun == 1 and outcome.wasSuccessful()',
    ].join('\n'),
  ],
  [
    'reads the tests (from /sandbox, /proc/*/fd and /proc/*/mem) and answers from them',
    [
      'import os, re',
      'pattern = re.compile(rb"assert add\\((\\d+), (\\d+)\\) == (\\d+)")',
      'answers = {}',
      'def learn(data):',
      '    for a, b, expected in pattern.findall(data):',
      '        answers[(int(a), int(b))] = int(expected)',
      'for root, _, names in os.walk("/sandbox"):',
      '    for name in names:',
      '        try:',
      '            learn(open(os.path.join(root, name), "rb").read())',
      '        except OSError:',
      '            pass',
      'for pid in [name for name in os.listdir("/proc") if name.isdigit()]:',
      '    try:',
      '        for fd in os.listdir(f"/proc/{pid}/fd"):',
      '            try:',
      '                learn(os.read(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK), 1 << 20))',
      '            except OSError:',
      '                pass',
      '    except OSError:',
      '        pass',
      '    try:',
      '        regions = open(f"/proc/{pid}/maps").read().splitlines()',
      '        memory = open(f"/proc/{pid}/mem", "rb")',
      '    except OSError:',
      '        continue',
      '    for region in regions:',
      '        span, permissions = region.split()[:2]',
      '        start, end = (int(part, 16) for part in span.split("-"))',
      '        if permissions[0] == "r" and end - start <= 1 << 28:',
      '            try:',
      '                memory.seek(start)',
      '                learn(memory.read(end - start))',
      '            except (OSError, OverflowError, ValueError):',
      '                pass',
      'def add(a, b):',
      '    return answers.get((a, b), a - b)',
    ].join('\n'),
    'assert add(2, 3) == 5\nassert add(10, 20) == 30',
  ],
];

describe.skipIf(!status.available)('runCodeTests against programs that try to fake a pass', () => {
  it.each(forgeries)('fails a wrong program that %s', async (_label, code, test) => {
    const result = await runCodeTests({ code, test, language: 'python' });
    expect(result.status).toBe('failed');
    expect(result.passed).toBe(false);
  });

  it("cannot reach the supervisor's memory, descriptors or process from the program's process", async () => {
    const code = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'supervisor = os.getppid()',
      'for part in ("mem", "fd", "maps", "environ"):',
      '    try:',
      '        path = f"/proc/{supervisor}/{part}"',
      '        os.listdir(path) if part == "fd" else open(path, "rb").read(1)',
      '        print(part, "open")',
      '    except OSError as error:',
      '        print(part, type(error).__name__)',
      '# PTRACE_ATTACH = 16',
      'print("ptrace", libc.ptrace(16, supervisor, None, None), os.strerror(ctypes.get_errno()))',
      'kinds = []',
      'for fd in sorted(int(fd) for fd in os.listdir("/proc/self/fd")):',
      '    try:',
      '        kinds.append(os.readlink(f"/proc/self/fd/{fd}").split(":")[0]) if fd > 2 else None',
      '    except OSError:',
      '        pass',
      'print("descriptors", kinds)',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python' });
    // Beyond stdin, stdout and stderr it holds only its two pipes to the supervisor: neither the
    // tests' descriptor nor the verdict's.
    expect(result.stdout).toBe(
      [
        'mem PermissionError',
        'fd PermissionError',
        'maps PermissionError',
        'environ PermissionError',
        'ptrace -1 Operation not permitted',
        "descriptors ['pipe', 'pipe']",
        '',
      ].join('\n'),
    );
    expect(result.status).toBe('passed');
  });

  it('cannot open the memory of any other process in the sandbox', async () => {
    // Before, bwrap's own init was PID 1: dumpable, of the same user, outside prlimit's limits, and
    // the program could open its /proc/1/mem for writing (and so run code there).
    const code = [
      'import os',
      'for pid in sorted(int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid()):',
      '    try:',
      '        os.close(os.open(f"/proc/{pid}/mem", os.O_RDWR))',
      '        print(pid, "opened")',
      '    except OSError as error:',
      '        print(pid, type(error).__name__)',
    ].join('\n');
    const result = await runCodeTests({ code, test: '', language: 'python' });
    expect(result.stdout).toBe('1 PermissionError\n');
  });

  it('fails the run for good when the program exits, even if the tests go on', async () => {
    const code = 'import os\ndef add(a, b):\n    os._exit(0)';
    const result = await runCodeTests({
      code,
      test: 'try:\n    add(2, 3)\nexcept BaseException:\n    pass\nprint("tests went on")',
      language: 'python',
    });
    expect(result).toMatchObject({ status: 'failed', stdout: 'tests went on\n' });
    expect(result.stderr).toBe("repute-sandbox: the program's process ended before the tests finished\n");
  });

  it('stops a program that makes more files in /tmp than maxTmpFiles', async () => {
    // Before the cap the program made its 100 000 empty files (kernel memory no limit counted) and passed.
    const code = 'for index in range(100_000):\n    open(f"/tmp/{index}", "w").close()\nprint("made them all")';
    const result = await runCodeTests({ code, test: '', language: 'python', maxTmpFiles: 1000 });
    expect(result).toMatchObject({ status: 'failed', stdout: '' });
    expect(result.stderr).toMatch(
      /^repute-sandbox: the run made \d+ files and directories in \/tmp, more than maxTmpFiles = 1000\n$/,
    );
    const fewer = await runCodeTests({
      code: code.replace('100_000', '900'),
      test: '',
      language: 'python',
      maxTmpFiles: 1000,
    });
    expect(fewer).toMatchObject({ status: 'passed', stdout: 'made them all\n' });
  });
});

describe.skipIf(!status.available)('runCodeTests across the process boundary (honest programs)', () => {
  it('lets the tests use generators, classes, module objects and exceptions of the program', async () => {
    const code = [
      'import math',
      'from collections import OrderedDict, namedtuple',
      'Point = namedtuple("Point", "x y")',
      'def count(n):',
      '    yield from range(n)',
      'class Stack:',
      '    def __init__(self):',
      '        self.items = []',
      '    def push(self, item):',
      '        self.items.append(item)',
      '    def pop(self):',
      '        if not self.items:',
      '            raise IndexError("pop from an empty stack")',
      '        return self.items.pop()',
      '    def __len__(self):',
      '        return len(self.items)',
      'def point():',
      '    return Point(1, 2)',
      'def table():',
      '    return OrderedDict(b=2, a=1)',
      'def big():',
      '    return 3 ** 10_000',
    ].join('\n');
    const test = [
      'assert list(count(3)) == [0, 1, 2] and 2 in count(3) and 5 not in count(3)',
      'stack = Stack()',
      'stack.push(4)',
      'assert len(stack) == 1 and stack.items == [4] and stack.pop() == 4 and not stack',
      'try:',
      '    stack.pop()',
      '    raise AssertionError("no IndexError")',
      'except IndexError as error:',
      '    assert str(error) == "pop from an empty stack"',
      'assert point() == (1, 2) and table() == {"a": 1, "b": 2} and math.isclose(math.pi, 3.14159, abs_tol=1e-5)',
      'assert big() == 3 ** 10_000',
      'assert stack == stack and stack != Stack()',
    ].join('\n');
    const result = await runCodeTests({ code, test, language: 'python' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe('passed');
  });

  it("lets the program call functions the tests pass to it, in the tests' process", async () => {
    const code = 'def apply(function, value):\n    return function(value) + 1';
    const test = [
      'assert apply(lambda value: value * 2, 3) == 7',
      'try:',
      '    apply(lambda value: 1 / value, 0)',
      'except ZeroDivisionError:',
      '    print("raised across both processes")',
    ].join('\n');
    const result = await runCodeTests({ code, test, language: 'python' });
    expect(result).toMatchObject({ status: 'passed', stdout: 'raised across both processes\n' });
  });

  it('keeps the order of the output of both processes', async () => {
    const result = await runCodeTests({
      code: 'print("program loads")\ndef say(text):\n    print("program:", text)',
      test: 'print("tests start")\nsay("one")\nprint("tests between")\nsay("two")',
      language: 'python',
    });
    expect(result.stdout).toBe('program loads\ntests start\nprogram: one\ntests between\nprogram: two\n');
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
