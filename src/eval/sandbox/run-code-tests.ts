import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { extractAnswer } from '../../core/answers/answers.js';
import { InvalidArgumentError, ReputeError } from '../../core/errors.js';
import { assertInteger } from '../../core/validate.js';
import { syscallFilter, syscallFilterSupports } from './_syscall-filter.js';

/** The sandbox cannot run here (tool missing, namespaces refused); nothing was executed. */
export class SandboxUnavailableError extends ReputeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, options);
  }
}

/** Paths of the tools the sandbox uses; override only to point at other installs. */
export interface SandboxTools {
  /** bubblewrap (`bwrap`, Debian package `bubblewrap`): new mount, PID, network, IPC, UTS and user namespaces over a minimal read-only root. @default '/usr/bin/bwrap' */
  bwrap?: string | undefined;
  /** util-linux `prlimit` (memory, CPU, process, file limits). @default '/usr/bin/prlimit' */
  prlimit?: string | undefined;
  /** util-linux `setpriv` (when running as root: drop to nobody:nogroup before bwrap). @default '/usr/bin/setpriv' */
  setpriv?: string | undefined;
  /** Python interpreter under /usr (the only tree the sandbox sees). @default '/usr/bin/python3' */
  python?: string | undefined;
}

/** What to run: a program, then its tests in the program's namespace. */
export interface RunCodeTestsOptions {
  /** The candidate program (untrusted). */
  code: string;
  /**
   * Test code run after the program, in its namespace (asserts, `check(entry_point)` calls, or
   * `unittest.main(exit=False)`). Tests that do not compile throw {@link InvalidArgumentError}.
   */
  test: string;
  /** Only Python is supported. */
  language: 'python';
  /** Wall-clock limit in milliseconds; the sandbox is killed after it. @default 10000 */
  timeoutMs?: number;
  /**
   * Memory in MiB: the program's address space (one process: it cannot start others), and as much
   * again for files in its /tmp. @default 512
   */
  memoryMb?: number;
  /** Bytes of stdout and of stderr kept in the result. @default 65536 */
  maxOutputBytes?: number;
  /** Tool paths, merged over the default installs (`undefined` keeps the default). @default /usr/bin/{bwrap,prlimit,setpriv,python3} */
  tools?: SandboxTools;
}

/** Outcome of one sandboxed test run. */
export interface CodeTestResult {
  readonly schemaVersion: 1;
  /**
   * `passed` = the tests ran to their end and the process exited 0 in time; `failed` = anything else
   * that ended in time (an assertion, an exception, the memory limit, a crash, or an exit before the
   * tests finished: `sys.exit(0)` or `os._exit(0)` in the program fails); `timeout` = stopped at the
   * wall-clock limit or the CPU limit (`SIGXCPU`).
   */
  readonly status: 'passed' | 'failed' | 'timeout';
  /** Same as `status === 'passed'`. */
  readonly passed: boolean;
  /** Exit code of the sandbox (the program's own, or 128 + n when signal n ended it), or `null` when killed at the timeout. */
  readonly exitCode: number | null;
  /** Signal that ended the program (`SIGSEGV` for a crash, `SIGXCPU` at the CPU limit, `SIGKILL` at the timeout), or `null`. */
  readonly signal: string | null;
  /** Captured output, truncated to `maxOutputBytes` (on a whole UTF-8 character). */
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock time in milliseconds. */
  readonly durationMs: number;
}

/** Every tool's path, after the defaults were filled in. */
type ResolvedTools = { [Name in keyof SandboxTools]-?: string };

const defaultTools: ResolvedTools = {
  bwrap: '/usr/bin/bwrap',
  prlimit: '/usr/bin/prlimit',
  setpriv: '/usr/bin/setpriv',
  python: '/usr/bin/python3',
};

const NOBODY_UID = 65534;
const NOGROUP_GID = 65534;

/** Where the run's files are mounted (read-only) inside the sandbox: the driver, the program and the tests. */
const SANDBOX_DIRECTORY = '/sandbox';

/** The descriptor on which bwrap reads the seccomp filter (see `_syscall-filter.ts`). */
const FILTER_FD = 3;

/** Exit code of the driver when the tests do not compile (the program did not run). */
const INVALID_TESTS_EXIT = 2;

/**
 * The Python driver inside the sandbox. Before any untrusted code it closes every descriptor but
 * stdin, stdout and stderr (bwrap hands the command whatever the host process inherited), reads a
 * one-time token from stdin (then at its end, as /dev/null was), compiles the tests (when they do
 * not compile it says so as its first line on stderr and exits 2), and says on stderr that it
 * started, so a failure without that line is the sandbox's and a program cannot fake either line.
 * It runs the program and then the tests in one module registered in `sys.modules` (the program as
 * `__repute_program__`, so its main guard does not run; the tests as `__main__`, so
 * `unittest.main(exit=False)` and `doctest.testmod()` find them), and writes the token as the last
 * line of stdout, on descriptor 1 itself, only once the tests are done. It holds its own references
 * to what it uses, so a program that replaces `builtins.exec`, `open`, `sys.stdout` or `sys.exit`
 * changes nothing for it. An exit from the program or the tests (`SystemExit`, even with code 0, so
 * tests must not call `sys.exit` or a plain `unittest.main()`) is a failure, and `os._exit` skips
 * the token, so no exit passes without the tests. This stops programs that exit early or disturb
 * the driver by accident; it does not make hostile code safe to grade (in one interpreter, code can
 * always fake the tests' comparisons, or find the token in the driver's frame).
 */
const DRIVER = `import builtins, os, sys, traceback, types

def _repute_run():
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2:
            try:
                os.close(int(name))
            except OSError:
                pass
    token = sys.stdin.readline().strip()
    write, end, run, stdout, stderr = os.write, os._exit, exec, sys.stdout, sys.stderr
    format_exception, format_exception_only = traceback.format_exception, traceback.format_exception_only

    def say(text):
        for stream in (stdout, stderr, sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        data = text.encode("utf-8", "replace")
        while data:
            try:
                data = data[write(2, data):]
            except OSError:
                return

    def load(label):
        path = "${SANDBOX_DIRECTORY}/" + label + ".py"
        with open(path, encoding="utf-8") as source:
            return compile(source.read(), path, "exec", dont_inherit=True)

    try:
        tests = load("tests")
    except BaseException as error:
        say("repute-sandbox: the tests do not compile\\n" + "".join(format_exception_only(type(error), error)))
        end(${INVALID_TESTS_EXIT})
    say("repute-sandbox: started\\n")
    try:
        program = load("program")
    except BaseException as error:
        say("repute-sandbox: the program does not compile\\n" + "".join(format_exception_only(type(error), error)))
        end(1)
    module = types.ModuleType("__repute_program__")
    namespace = module.__dict__
    namespace["__builtins__"] = builtins
    modules = sys.modules
    modules["__repute_program__"] = module
    for label, code in (("program", program), ("tests", tests)):
        if label == "tests":
            namespace["__name__"] = "__main__"
            modules["__main__"] = module
        try:
            run(code, namespace)
        except SystemExit as stop:
            say("repute-sandbox: the " + label + " exited (code " + repr(stop.code) + ") before the tests finished\\n")
            end(1)
        except BaseException as error:
            # The traceback without the driver's own frame.
            try:
                say("".join(format_exception(type(error), error, error.__traceback__.tb_next)))
            except BaseException:
                say("repute-sandbox: the " + label + " raised " + type(error).__name__ + "\\n")
            end(1)
    say("")
    data = ("\\n" + token + "\\n").encode("ascii")
    while data:
        try:
            data = data[write(1, data):]
        except OSError as error:
            say("repute-sandbox: could not write to stdout after the tests: " + str(error) + "\\n")
            end(1)
    end(0)

_repute_run()
`;

/** The driver's first line on stderr once Python runs and the tests compiled; anything after it may be the program's. */
const STARTED_LINE = 'repute-sandbox: started\n';

/** The driver's first line on stderr when the tests do not compile (then the compiler's message). */
const INVALID_TESTS_LINE = 'repute-sandbox: the tests do not compile\n';

/**
 * The bwrap command line: a root holding only /usr (read-only, with the merged-/usr symlinks), its
 * own /proc, a read-only /dev (its device nodes still work), a private tmpfs /tmp of at most `tmpMb`
 * MiB (gone with the sandbox; its pages are memory the address-space limit does not count) as
 * working directory, the run's files bound read-only at /sandbox, every namespace unshared (no
 * network: only a down loopback), no capabilities, the seccomp filter read from {@link FILTER_FD}
 * (no new processes, namespaces or keys), an empty environment, and the process killed with its parent.
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
    // bwrap's /dev is a tmpfs without a size limit (with /dev/shm on it): read-only, it holds no files.
    '--remount-ro',
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
    '--seccomp',
    String(FILTER_FD),
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

/**
 * prlimit's arguments: address space `memoryMb`, CPU seconds (`SIGXCPU` at `cpuSeconds`, `SIGKILL`
 * a second later), 64 threads, 16 MiB files, 64 open files, no core dumps.
 */
function prlimitArgs(prlimit: string, memoryMb: number, cpuSeconds: number): string[] {
  return [
    prlimit,
    `--as=${memoryMb * 1024 * 1024}`,
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    '--nproc=64',
    `--fsize=${16 * 1024 * 1024}`,
    '--nofile=64',
    '--core=0',
    '--',
  ];
}

/** As root, drop to nobody:nogroup (no groups, no new privileges) before entering bwrap; otherwise run bwrap as the current user. */
function dropPrivileges(tools: ResolvedTools): string[] {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return root
    ? [tools.setpriv, `--reuid=${NOBODY_UID}`, `--regid=${NOGROUP_GID}`, '--clear-groups', '--no-new-privs', '--']
    : [];
}

/** The default tools with the given ones over them; a tool left `undefined` keeps its default. */
function resolveTools(tools: SandboxTools | undefined): ResolvedTools {
  const resolved = { ...defaultTools };
  for (const name of Object.keys(defaultTools) as (keyof SandboxTools)[]) {
    const file = tools?.[name];
    if (file === undefined) continue;
    if (typeof file !== 'string' || file === '')
      throw new InvalidArgumentError({
        parameter: `tools.${name}`,
        value: file,
        message: `tools.${name} must be the path of an executable, got ${JSON.stringify(file)}; leave it out to use ${defaultTools[name]}`,
      });
    resolved[name] = file;
  }
  return resolved;
}

/**
 * Reports whether the sandbox can run here, and why not: Linux on x64 or arm64 (the system-call
 * filter's architectures), bubblewrap and the other tools present, and a probe that starts the
 * interpreter inside the same sandbox, under the same filter and limits (as nobody when root).
 *
 * @example
 * const status = checkSandbox();
 * if (!status.available) console.log(status.reason);
 */
export function checkSandbox(tools?: SandboxTools): { available: true } | { available: false; reason: string } {
  const resolved = resolveTools(tools);
  if (process.platform !== 'linux')
    return {
      available: false,
      reason: `the code sandbox needs Linux namespaces (bubblewrap); this is ${process.platform}`,
    };
  if (!syscallFilterSupports(process.arch))
    return {
      available: false,
      reason: `the code sandbox's system-call filter knows the x64 and arm64 architectures; this is ${process.arch}`,
    };
  for (const [name, file] of Object.entries(resolved)) {
    if (!existsSync(file))
      return {
        available: false,
        reason: `sandbox tool ${name} not found at ${file}; install bubblewrap, util-linux and python3 (apt-get install bubblewrap util-linux python3) or pass tools.${name}`,
      };
  }
  const directory = mkdtempSync(path.join(os.tmpdir(), 'repute-sandbox-probe-'));
  try {
    const filterFile = path.join(directory, 'filter.bpf');
    writeFileSync(filterFile, syscallFilter(process.arch));
    const filter = openSync(filterFile, 'r');
    try {
      const chain = [
        ...dropPrivileges(resolved),
        resolved.bwrap,
        ...bwrapArgs('/dev/null', 16),
        '--',
        ...prlimitArgs(resolved.prlimit, 256, 10),
        resolved.python,
        '-I',
        '-B',
        '-c',
        'pass',
      ];
      const probe = spawnSync(chain[0] as string, chain.slice(1), {
        timeout: 10_000,
        stdio: ['ignore', 'pipe', 'pipe', filter],
        env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
      });
      if (probe.status !== 0) {
        const detail = probe.stderr?.toString().trim() || probe.error?.message || `exit ${probe.status}`;
        return {
          available: false,
          reason: `the sandbox probe (${resolved.python} under bubblewrap) failed: ${detail.slice(0, 500)}; check that bubblewrap can create namespaces here (allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1, or use a container that permits them) and that tools.python is an interpreter under /usr, the only tree the sandbox mounts`,
        };
      }
    } finally {
      closeSync(filter);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return { available: true };
}

/** Tool sets whose probe succeeded in this process; the probe blocks for tens of milliseconds, so runs skip it once it passed. */
const probedTools = new Set<string>();

/**
 * Runs untrusted Python code plus its tests in a sandbox and reports pass/fail. The code runs
 * under bubblewrap: it sees only /usr (read-only), its own /proc (its own processes only), a
 * read-only /dev and a private tmpfs /tmp (at most `memoryMb` MiB) that disappears with it; no
 * repository, data, home or host /tmp; no network (only a down loopback); no capabilities; no
 * descriptor of the host process but its stdin, stdout and stderr; an empty environment (no API
 * keys). A seccomp filter lets it start threads but no process, namespace or kernel key, and keep
 * no memory outside its address space (SysV IPC, memfd files, BPF maps), so `memoryMb` bounds it as
 * a whole (plus as much in /tmp). Started as root, it first drops to nobody:nogroup with no groups
 * and no new privileges. Inside, `prlimit` caps the address space (`memoryMb`), CPU seconds
 * (ceil(timeoutMs/1000)+1), threads (64), file size (16 MiB), open files (64) and core dumps (0),
 * and `python3 -I -B` runs a driver that runs the program, then the tests, and marks their end (see
 * {@link CodeTestResult.status}). A wall-clock timeout kills the sandbox.
 * It never runs code unsandboxed: when the sandbox is unavailable it throws
 * {@link SandboxUnavailableError}; tests that do not compile throw {@link InvalidArgumentError}.
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
  const tools = resolveTools(options.tools);
  const toolsKey = JSON.stringify(tools);
  if (!probedTools.has(toolsKey)) {
    const status = checkSandbox(tools);
    if (!status.available)
      throw new SandboxUnavailableError(`refusing to run untrusted code without a sandbox: ${status.reason}`);
    probedTools.add(toolsKey);
  }

  // The host side holds only the run's three files (read-only inside) and the filter, and is removed afterwards.
  const directory = await mkdtemp(path.join(os.tmpdir(), 'repute-sandbox-'));
  try {
    await chmod(directory, 0o755);
    const files = path.join(directory, 'files');
    await mkdir(files, { mode: 0o755 });
    await chmod(files, 0o755);
    await writeFile(path.join(files, 'driver.py'), DRIVER, { mode: 0o644 });
    await writeFile(path.join(files, 'program.py'), `${code}\n`, { mode: 0o644 });
    await writeFile(path.join(files, 'tests.py'), `${test}\n`, { mode: 0o644 });
    const filterFile = path.join(directory, 'filter.bpf');
    await writeFile(filterFile, syscallFilter(process.arch), { mode: 0o600 });
    const chain = [
      ...dropPrivileges(tools),
      tools.bwrap,
      ...bwrapArgs(files, memoryMb),
      '--',
      ...prlimitArgs(tools.prlimit, memoryMb, Math.ceil(timeoutMs / 1000) + 1),
      tools.python,
      '-I',
      '-B',
      `${SANDBOX_DIRECTORY}/driver.py`,
    ];
    // A fresh token per run: the program cannot know it, so it cannot print the end of the tests.
    const token = `repute-tests-done-${randomBytes(16).toString('hex')}`;
    const filter = await open(filterFile, 'r');
    try {
      const outcome = await execute(chain[0] as string, chain.slice(1), {
        cwd: directory,
        timeoutMs,
        maxOutputBytes,
        token,
        filterFd: filter.fd,
      });
      if (outcome.invalidTests !== undefined)
        throw new InvalidArgumentError({
          parameter: 'test',
          value: test,
          message: `test does not compile as Python: ${outcome.invalidTests.trim().slice(0, 500)}; pass test code that compiles on its own (asserts, check(...) calls or unittest.main(exit=False))`,
        });
      return outcome.result;
    } finally {
      await filter.close();
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** What {@link execute} saw: a result, or the compiler's message when the tests do not compile. */
type Execution = { result: CodeTestResult; invalidTests?: undefined } | { invalidTests: string };

function execute(
  command: string,
  args: string[],
  {
    cwd,
    timeoutMs,
    maxOutputBytes,
    token,
    filterFd,
  }: { cwd: string; timeoutMs: number; maxOutputBytes: number; token: string; filterFd: number },
): Promise<Execution> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', filterFd],
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
    // stdio[0..2] are 'pipe', so Node always creates these three streams.
    const [input, output, errors] = [child.stdin, child.stdout, child.stderr] as [Writable, Readable, Readable];
    // The token, then end of input (the program reads EOF, as from /dev/null). A sandbox that dies
    // before reading it closes the pipe: that error is the exit's to report, not this write's.
    input.on('error', () => {});
    input.end(`${token}\n`);
    const doneLine = `\n${token}\n`;
    const stdout = collect(output, maxOutputBytes + doneLine.length, doneLine.length);
    // Room for the driver's first line, or for the compiler's message on tests that do not compile.
    const stderr = collect(errors, maxOutputBytes + 4096, 0);
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
    child.on('close', (exitCode, hostSignal) => {
      clearTimeout(timer);
      killGroup(child.pid);
      const errorBytes = stderr.bytes();
      const errorText = errorBytes.toString('utf8');
      // The driver's first words: without them Python never ran, so a failure is the sandbox's
      // (whatever the program could have written comes after them).
      const ran = errorText.startsWith(STARTED_LINE);
      if (!timedOut && exitCode === INVALID_TESTS_EXIT && errorText.startsWith(INVALID_TESTS_LINE)) {
        resolve({ invalidTests: errorText.slice(INVALID_TESTS_LINE.length) });
        return;
      }
      if (!timedOut && exitCode !== 0 && !ran) {
        reject(
          new SandboxUnavailableError(
            `the sandbox itself failed before running the code: ${errorText.trim().slice(0, 500) || `exit ${exitCode}${hostSignal === null ? '' : `, ${hostSignal}`}`}`,
          ),
        );
        return;
      }
      // bwrap exits with 128 + n when signal n ended the program, as a shell reports it.
      const signal = hostSignal ?? (exitCode !== null && exitCode > 128 ? signalName(exitCode - 128) : null);
      const finished = stdout.tail().endsWith(doneLine);
      const status = timedOut || signal === 'SIGXCPU' ? 'timeout' : exitCode === 0 && finished ? 'passed' : 'failed';
      // The program's own output is what came before the end line.
      const outputBytes = stdout.bytes().subarray(0, Math.max(0, stdout.total() - (finished ? doneLine.length : 0)));
      resolve({
        result: {
          schemaVersion: 1,
          status,
          passed: status === 'passed',
          exitCode,
          signal,
          stdout: decodePrefix(outputBytes, maxOutputBytes),
          stderr: decodePrefix(ran ? errorBytes.subarray(Buffer.byteLength(STARTED_LINE)) : errorBytes, maxOutputBytes),
          durationMs: performance.now() - started,
        },
      });
    });
  });
}

/** The name of signal `number` (`SIGSEGV` for 11), or `null` when Node knows no such signal. */
function signalName(number: number): string | null {
  const entry = Object.entries(os.constants.signals).find(([, value]) => value === number);
  return entry === undefined ? null : entry[0];
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The first `limit` bytes of a stream, its total length and its last `tailBytes` bytes (however long it ran). */
function collect(
  stream: NodeJS.ReadableStream,
  limit: number,
  tailBytes: number,
): { bytes(): Buffer; total(): number; tail(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let total = 0;
  let tail = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (tailBytes > 0) {
      const joined = Buffer.concat([tail, chunk]);
      tail = joined.subarray(Math.max(0, joined.length - tailBytes));
    }
    if (size >= limit) return;
    const part = chunk.subarray(0, limit - size);
    chunks.push(part);
    size += part.length;
  });
  return { bytes: () => Buffer.concat(chunks), total: () => total, tail: () => tail.toString('utf8') };
}

/** The first `limit` bytes as text; when that cuts a UTF-8 character, the cut character is left out. */
function decodePrefix(bytes: Buffer, limit: number): string {
  if (bytes.length <= limit) return bytes.toString('utf8');
  // A streaming decoder holds back an incomplete character at the end instead of writing U+FFFD.
  return new TextDecoder('utf-8').decode(bytes.subarray(0, limit), { stream: true });
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
