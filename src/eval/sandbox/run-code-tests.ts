import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { extractAnswer } from '../../core/answers/answers.js';
import { InvalidArgumentError, ReputeError } from '../../core/errors.js';
import { assertInteger } from '../../core/validate.js';

/** The sandbox cannot run here (tool missing, namespaces refused); nothing was executed. */
export class SandboxUnavailableError extends ReputeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, options);
  }
}

/** Paths of the tools the sandbox uses; override only to point at other installs. */
export interface SandboxTools {
  /** bubblewrap (`bwrap`, Debian package `bubblewrap`): new mount, PID, network, IPC, UTS and user namespaces over a minimal read-only root. @default '/usr/bin/bwrap' */
  bwrap?: string;
  /** util-linux `prlimit` (memory, CPU, process, file limits). @default '/usr/bin/prlimit' */
  prlimit?: string;
  /** util-linux `setpriv` (when running as root: drop to nobody:nogroup before bwrap). @default '/usr/bin/setpriv' */
  setpriv?: string;
  /** Python interpreter under /usr (the only tree the sandbox sees). @default '/usr/bin/python3' */
  python?: string;
}

/** What to run: a program, then its tests in the program's namespace. */
export interface RunCodeTestsOptions {
  /** The candidate program (untrusted). */
  code: string;
  /** Test code run after the program, in its namespace (asserts, or `check(entry_point)` calls). */
  test: string;
  /** Only Python is supported. */
  language: 'python';
  /** Wall-clock limit in milliseconds; the process group is killed after it. @default 10000 */
  timeoutMs?: number;
  /** Address-space limit in MiB. @default 512 */
  memoryMb?: number;
  /** Bytes of stdout and of stderr kept in the result. @default 65536 */
  maxOutputBytes?: number;
  /** Tool paths, merged over the default installs. @default /usr/bin/{bwrap,prlimit,setpriv,python3} */
  tools?: SandboxTools;
}

/** Outcome of one sandboxed test run. */
export interface CodeTestResult {
  readonly schemaVersion: 1;
  /**
   * `passed` = the tests ran to their end and the process exited 0 in time; `failed` = anything else
   * that ended in time (an assertion, an exception, the memory limit, or an exit before the tests
   * finished: `sys.exit(0)` or `os._exit(0)` in the program fails); `timeout` = killed at the
   * wall-clock or CPU limit.
   */
  readonly status: 'passed' | 'failed' | 'timeout';
  /** Same as `status === 'passed'`. */
  readonly passed: boolean;
  /** Exit code of the sandbox chain (the program's own code when it ran to the end), or `null` when killed. */
  readonly exitCode: number | null;
  /** Signal that ended the process, e.g. `SIGKILL` at the timeout, or `null`. */
  readonly signal: string | null;
  /** Captured output, truncated to `maxOutputBytes`. */
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock time in milliseconds. */
  readonly durationMs: number;
}

const defaultTools: Required<SandboxTools> = {
  bwrap: '/usr/bin/bwrap',
  prlimit: '/usr/bin/prlimit',
  setpriv: '/usr/bin/setpriv',
  python: '/usr/bin/python3',
};

const NOBODY_UID = 65534;
const NOGROUP_GID = 65534;

/** Where the run's files are mounted (read-only) inside the sandbox: the driver, the program and the tests. */
const SANDBOX_DIRECTORY = '/sandbox';

/**
 * The Python driver inside the sandbox. It reads a one-time token from stdin (then at its end, as
 * /dev/null was), says on stderr that it started (so a failure without that line is the sandbox's,
 * whatever the program writes), runs the program and then the tests in one namespace (the program
 * as an imported module, so its main guard does not run; the tests as `__main__`), and prints the
 * token as the last line of stdout only once the tests are done. An exit from the program or the
 * tests (`SystemExit`, even with code 0, so tests must not call `sys.exit` or a plain
 * `unittest.main()`) is a failure, and `os._exit` skips the token, so no exit passes without the
 * tests. This stops programs that exit early; it does not make hostile code safe to grade (in one
 * interpreter, code can always fake the tests' comparisons).
 */
const DRIVER = `import sys

def _repute_run():
    token = sys.stdin.readline().strip()
    sys.stderr.write("repute-sandbox: started\\n")
    sys.stderr.flush()
    namespace = {"__builtins__": __builtins__}
    for label in ("program", "tests"):
        # The program is imported, not run (its main guard stays off); the tests are the main script.
        namespace["__name__"] = "__main__" if label == "tests" else "__repute_program__"
        path = "${SANDBOX_DIRECTORY}/" + label + ".py"
        with open(path, encoding="utf-8") as source:
            code = compile(source.read(), path, "exec")
        try:
            exec(code, namespace)
        except SystemExit as stop:
            sys.stderr.write("repute-sandbox: the " + label + " exited (code " + repr(stop.code) + ") before the tests finished\\n")
            sys.exit(1)
    sys.stdout.write("\\n" + token + "\\n")
    sys.stdout.flush()

_repute_run()
`;

/** The driver's first line on stderr: present once the sandbox is up and Python runs. */
const STARTED_LINE = 'repute-sandbox: started\n';

/**
 * The bwrap command line: a root holding only /usr (read-only, with the merged-/usr symlinks), its
 * own /proc and /dev, a private tmpfs /tmp of at most `tmpMb` MiB (gone with the sandbox; its pages
 * are memory the address-space limit does not count) as working directory, the run's files bound
 * read-only at /sandbox, every namespace unshared (no network: only a down loopback), no
 * capabilities, an empty environment, and the process killed with its parent.
 */
function bwrapArgs(files: string, tmpMb: number): string[] {
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/sbin',
    '/sbin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(tmpMb * 1024 * 1024),
    '--tmpfs',
    '/tmp',
    '--ro-bind',
    files,
    SANDBOX_DIRECTORY,
    // The root itself (bwrap builds it on a tmpfs) is made read-only once everything is mounted.
    '--remount-ro',
    '/',
    '--chdir',
    '/tmp',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'PYTHONHASHSEED',
    '0',
  ];
}

/** As root, drop to nobody:nogroup (no groups, no new privileges) before entering bwrap; otherwise run bwrap as the current user. */
function dropPrivileges(tools: Required<SandboxTools>): string[] {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return root
    ? [tools.setpriv, `--reuid=${NOBODY_UID}`, `--regid=${NOGROUP_GID}`, '--clear-groups', '--no-new-privs', '--']
    : [];
}

/**
 * Reports whether the sandbox can run here, and why not: Linux, bubblewrap and the other tools
 * present, and a probe that runs `true` inside the same sandbox (as nobody when root) successfully.
 *
 * @example
 * const status = checkSandbox();
 * if (!status.available) console.log(status.reason);
 */
export function checkSandbox(tools?: SandboxTools): { available: true } | { available: false; reason: string } {
  const resolved = { ...defaultTools, ...tools };
  if (process.platform !== 'linux')
    return {
      available: false,
      reason: `the code sandbox needs Linux namespaces (bubblewrap); this is ${process.platform}`,
    };
  for (const [name, file] of Object.entries(resolved)) {
    if (!existsSync(file))
      return {
        available: false,
        reason: `sandbox tool ${name} not found at ${file}; install bubblewrap, util-linux and python3 (apt-get install bubblewrap util-linux python3) or pass tools.${name}`,
      };
  }
  const chain = [...dropPrivileges(resolved), resolved.bwrap, ...bwrapArgs('/dev/null', 16), '--', '/usr/bin/true'];
  const probe = spawnSync(chain[0] as string, chain.slice(1), { timeout: 10_000 });
  if (probe.status !== 0) {
    return {
      available: false,
      reason: `bubblewrap could not create its namespaces here (${probe.stderr?.toString().trim() || probe.error?.message || `exit ${probe.status}`}); allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run in a container that permits them`,
    };
  }
  return { available: true };
}

/**
 * Runs untrusted Python code plus its tests in a sandbox and reports pass/fail. The code runs
 * under bubblewrap: it sees only /usr (read-only), its own /proc (its own processes only), a
 * minimal /dev and a private tmpfs /tmp (at most `memoryMb` MiB) that disappears with it; no
 * repository, data, home or host /tmp; no network (only a down loopback); no capabilities; an empty
 * environment (no API keys). Started as root, it first drops to nobody:nogroup with no groups and
 * no new privileges. Inside, `prlimit` caps the address space (`memoryMb`), CPU seconds
 * (ceil(timeoutMs/1000)+1), processes (64), file size (16 MiB), open files (64) and core dumps (0),
 * and `python3 -I -B` runs a driver that runs the program, then the tests, and marks their end
 * (see {@link CodeTestResult.status}). A wall-clock timeout kills the whole process group. It
 * never runs code unsandboxed: when the sandbox is unavailable it throws
 * {@link SandboxUnavailableError}.
 *
 * @example
 * const result = await runCodeTests({ code: 'def add(a, b):\n    return a + b', test: 'assert add(2, 3) == 5', language: 'python' });
 * result.passed; // true
 */
export async function runCodeTests(options: RunCodeTestsOptions): Promise<CodeTestResult> {
  const { code, test, language, timeoutMs = 10_000, memoryMb = 512, maxOutputBytes = 65_536 } = options;
  if (typeof code !== 'string')
    throw new InvalidArgumentError({
      parameter: 'code',
      value: code,
      message: 'code must be a string of program text',
    });
  if (typeof test !== 'string')
    throw new InvalidArgumentError({ parameter: 'test', value: test, message: 'test must be a string of test code' });
  if (language !== 'python')
    throw new InvalidArgumentError({
      parameter: 'language',
      value: language,
      message: `only language 'python' is supported, got ${JSON.stringify(language)}`,
    });
  assertInteger('timeoutMs', timeoutMs, 100, 600_000, 'pass e.g. { timeoutMs: 10000 }');
  assertInteger('memoryMb', memoryMb, 16, 65_536, 'pass e.g. { memoryMb: 512 }');
  assertInteger('maxOutputBytes', maxOutputBytes, 0, 100_000_000);
  const tools = { ...defaultTools, ...options.tools };
  const status = checkSandbox(tools);
  if (!status.available)
    throw new SandboxUnavailableError(`refusing to run untrusted code without a sandbox: ${status.reason}`);

  // The host side holds only the run's three files (read-only inside), and is removed afterwards.
  const directory = await mkdtemp(path.join(os.tmpdir(), 'repute-sandbox-'));
  try {
    await chmod(directory, 0o755);
    const files = path.join(directory, 'files');
    await mkdir(files, { mode: 0o755 });
    await chmod(files, 0o755);
    await writeFile(path.join(files, 'driver.py'), DRIVER, { mode: 0o644 });
    await writeFile(path.join(files, 'program.py'), `${code}\n`, { mode: 0o644 });
    await writeFile(path.join(files, 'tests.py'), `${test}\n`, { mode: 0o644 });
    const cpuSeconds = Math.ceil(timeoutMs / 1000) + 1;
    const chain = [
      ...dropPrivileges(tools),
      tools.bwrap,
      ...bwrapArgs(files, memoryMb),
      '--',
      tools.prlimit,
      `--as=${memoryMb * 1024 * 1024}`,
      `--cpu=${cpuSeconds}`,
      '--nproc=64',
      `--fsize=${16 * 1024 * 1024}`,
      '--nofile=64',
      '--core=0',
      '--',
      tools.python,
      '-I',
      '-B',
      `${SANDBOX_DIRECTORY}/driver.py`,
    ];
    // A fresh token per run: the program cannot know it, so it cannot print the end of the tests.
    const token = `repute-tests-done-${randomBytes(16).toString('hex')}`;
    return await execute(chain[0] as string, chain.slice(1), { cwd: directory, timeoutMs, maxOutputBytes, token });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function execute(
  command: string,
  args: string[],
  { cwd, timeoutMs, maxOutputBytes, token }: { cwd: string; timeoutMs: number; maxOutputBytes: number; token: string },
): Promise<CodeTestResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
    // The token, then end of input (the program reads EOF, as from /dev/null). A sandbox that dies
    // before reading it closes the pipe: that error is the exit's to report, not this write's.
    child.stdin.on('error', () => {});
    child.stdin.end(`${token}\n`);
    const doneLine = `\n${token}\n`;
    const stdout = collect(child.stdout, maxOutputBytes, doneLine.length);
    const stderr = collect(child.stderr, maxOutputBytes + STARTED_LINE.length, 0);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new SandboxUnavailableError(`could not start the sandbox (${command}): ${error.message}`, { cause: error }),
      );
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      killGroup(child.pid);
      const errorText = stderr.text();
      // The driver's first words: without them Python never ran, so a failure is the sandbox's
      // (whatever the program could have written comes after them).
      const ran = errorText.startsWith(STARTED_LINE);
      if (!timedOut && exitCode !== 0 && !ran) {
        reject(
          new SandboxUnavailableError(
            `the sandbox itself failed before running the code: ${errorText.trim().slice(0, 500) || `exit ${exitCode}${signal === null ? '' : `, ${signal}`}`}`,
          ),
        );
        return;
      }
      // SIGKILL/SIGXCPU from the CPU limit counts as a timeout too (exit 128 + signal via --kill-child chains).
      const cpuKilled = signal === 'SIGXCPU' || signal === 'SIGKILL' || exitCode === 128 + 24 || exitCode === 128 + 9;
      const finished = stdout.tail().endsWith(doneLine);
      const outcome = timedOut || cpuKilled ? 'timeout' : exitCode === 0 && finished ? 'passed' : 'failed';
      const output = stdout.text();
      resolve({
        schemaVersion: 1,
        status: outcome,
        passed: outcome === 'passed',
        exitCode,
        signal,
        stdout: finished && output.endsWith(doneLine) ? output.slice(0, -doneLine.length) : output,
        stderr: ran ? errorText.slice(STARTED_LINE.length) : errorText,
        durationMs: performance.now() - started,
      });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The first `limit` bytes of a stream, and its last `tailBytes` bytes (however long it ran). */
function collect(stream: NodeJS.ReadableStream, limit: number, tailBytes: number): { text(): string; tail(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let tail = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    if (tailBytes > 0) {
      const joined = Buffer.concat([tail, chunk]);
      tail = joined.subarray(Math.max(0, joined.length - tailBytes));
    }
    if (size >= limit) return;
    const part = chunk.subarray(0, limit - size);
    chunks.push(part);
    size += part.length;
  });
  return { text: () => Buffer.concat(chunks).toString('utf8'), tail: () => tail.toString('utf8') };
}

/**
 * Grades a `code` answer: extracts the program from raw model text (last fenced block, else the
 * whole text) and runs it with the tests in the sandbox; unparseable text is wrong without running.
 *
 * @example
 * const { correct } = await scoreCodeAnswer({ text: '```python\ndef f():\n    return 1\n```', test: 'assert f() == 1' });
 */
export async function scoreCodeAnswer(
  options: { text: string; test: string } & Omit<RunCodeTestsOptions, 'code' | 'test' | 'language'>,
): Promise<{ correct: boolean; result: CodeTestResult | null }> {
  const code = extractAnswer('code', options.text);
  if (code === null) return { correct: false, result: null };
  const { text: _text, ...rest } = options;
  const result = await runCodeTests({ ...rest, code, language: 'python' });
  return { correct: result.passed, result };
}
