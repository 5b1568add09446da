import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { extractAnswer } from '../../core/answers/answers.js';
import { InvalidArgumentError, ReputeError } from '../../core/errors.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { INVALID_TESTS_EXIT, INVALID_TESTS_LINE, STARTED_LINE, TESTS_FD, VERDICT_FD, driverSource } from './_driver.js';
import { syscallFilter, syscallFilterSupports } from './_syscall-filter.js';
import { usrMounts } from './_usr-mounts.js';

/** The sandbox cannot run here (tool missing, namespaces refused); nothing was executed. */
export class SandboxUnavailableError extends ReputeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
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

/** What to run: a program, then its tests against the program's names. */
export interface RunCodeTestsOptions {
  /** The candidate program (untrusted). */
  code: string;
  /**
   * Test code run after the program (asserts, `check(entry_point)` calls, or
   * `unittest.main(exit=False)`), as `__main__` in a process of its own where the program's global
   * names are bound: plain values (None, bool, int, float, str, bytes, complex, Fraction, Decimal,
   * range and containers of them) by value, anything else (functions, classes, objects, iterators)
   * as a reference whose calls, attributes, items, `len`, `bool`, iteration, `repr` and `str` the
   * program answers. `==`, hashing and ordering of a reference are the tests' own (identity), so
   * compare what the program returns with plain values. Arguments reach the program as copies;
   * functions passed to it run in the tests' process when it calls them. The program never sees
   * the tests. Tests that do not compile throw {@link InvalidArgumentError}.
   */
  test: string;
  /** Only Python is supported. */
  language: 'python';
  /** Wall-clock limit in milliseconds; the sandbox is killed after it. @default 10000 */
  timeoutMs?: number;
  /**
   * Memory in MiB: the program's address space (one process: it cannot start others), as much for
   * the tests' process, and as much again for files in /tmp. @default 512
   */
  memoryMb?: number;
  /** Bytes of stdout and of stderr kept in the result. @default 65536 */
  maxOutputBytes?: number;
  /**
   * Files and directories the run may make in its /tmp, integer ≥ 0; past it the program's process
   * is killed and the run fails (checked every 5 ms, so a fast program may overshoot by what it
   * makes in that time). Each costs kernel memory that neither `memoryMb` nor the tmpfs size counts.
   * @default 10000
   */
  maxTmpFiles?: number;
  /** Tool paths, merged over the default installs (`undefined` keeps the default). @default /usr/bin/{bwrap,prlimit,setpriv,python3} */
  tools?: SandboxTools;
}

/** Outcome of one sandboxed test run. */
export interface CodeTestResult {
  readonly schemaVersion: 1;
  /**
   * `passed` = the tests' process ran them to their end and vouched for it on a descriptor only it
   * holds, in time; `failed` = anything else that ended in time (an assertion, an exception, the
   * memory limit, a crash, more than `maxTmpFiles` in /tmp, or an exit of the program before the
   * tests finished: `sys.exit(0)` or `os._exit(0)` fails the run even when the tests catch it);
   * `timeout` = stopped at the wall-clock limit or the CPU limit (`SIGXCPU`).
   */
  readonly status: 'passed' | 'failed' | 'timeout';
  /** Same as `status === 'passed'`. */
  readonly passed: boolean;
  /** Exit code of the sandbox (0 on a pass; 1 when the tests failed; the program's own when it exited; 128 + n when signal n ended it), or `null` when killed at the timeout. */
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

/** Where the run's files are mounted (read-only) inside the sandbox: the driver, its second filter and the program (not the tests). */
const SANDBOX_DIRECTORY = '/sandbox';

/** The descriptor on which bwrap reads the seccomp filter of stage `'sandbox'` (see `_syscall-filter.ts`). */
const FILTER_FD = 3;

/**
 * The bwrap command line: a root holding only the parts of /usr in `usr` (read-only, see
 * `_usr-mounts.ts`; with the merged-/usr symlinks), its
 * own /proc, a read-only /dev (its device nodes still work), a private tmpfs /tmp of at most `tmpMb`
 * MiB (gone with the sandbox; its pages are memory the address-space limit does not count) as
 * working directory, the run's files bound read-only at /sandbox, every namespace unshared (no
 * network: only a down loopback), no capabilities, the stage-`'sandbox'` seccomp filter read from
 * {@link FILTER_FD} (no namespaces, keys or memory outside the address space; the driver stacks the
 * one that forbids processes after its fork), an empty environment, and the process killed with its parent.
 */
function bwrapArgs(files: string, tmpMb: number, usr: readonly string[]): string[] {
  return [
    '--unshare-all',
    // No bwrap reaper as PID 1: it would be a dumpable process of the same user, outside prlimit's
    // limits, whose memory the program could write through /proc/1/mem. The supervisor is PID 1
    // (non-dumpable); when it exits, the kernel kills the rest of the PID namespace.
    '--as-pid-1',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...usr.flatMap((tree) => ['--ro-bind', tree, tree]),
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
 * filter's architectures), bubblewrap and the other tools present, the interpreter and prlimit
 * under /usr (the interpreter, run once outside the sandbox with `-I`, names the trees of /usr it
 * needs), and a probe that starts the interpreter inside the same sandbox, under the same filter
 * and limits (as nobody when root).
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
  const usr = usrMounts(resolved.python, resolved.prlimit);
  if ('reason' in usr) return { available: false, reason: usr.reason };
  const directory = mkdtempSync(path.join(os.tmpdir(), 'repute-sandbox-probe-'));
  try {
    const filterFile = path.join(directory, 'filter.bpf');
    writeFileSync(filterFile, syscallFilter(process.arch, 'sandbox'));
    const filter = openSync(filterFile, 'r');
    try {
      const chain = [
        ...dropPrivileges(resolved),
        resolved.bwrap,
        ...bwrapArgs('/dev/null', 16, usr.paths),
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
          reason: `the sandbox probe (${resolved.python} under bubblewrap) failed: ${detail.slice(0, 500)}; check that bubblewrap can create namespaces here (allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1, or use a container that permits them) and that tools.python is an interpreter under /usr, the only tree the sandbox shows parts of`,
        };
      }
    } finally {
      closeSync(filter);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  probedTools.set(JSON.stringify(resolved), usr.paths);
  return { available: true };
}

/** Tool sets whose probe succeeded in this process, with the parts of /usr they need; the probe blocks for tens of milliseconds, so runs skip it once it passed. */
const probedTools = new Map<string, readonly string[]>();

const knownRunCodeTestsOptions = defineOptionKeys<RunCodeTestsOptions>()([
  'code',
  'test',
  'language',
  'timeoutMs',
  'memoryMb',
  'maxOutputBytes',
  'maxTmpFiles',
  'tools',
]);
const knownSandboxTools = defineOptionKeys<SandboxTools>()(['bwrap', 'prlimit', 'setpriv', 'python']);

/**
 * Runs untrusted Python code plus its tests in a sandbox and reports pass/fail. The code runs
 * under bubblewrap: it sees only the parts of /usr that Python needs (read-only: the interpreter,
 * its standard library, site-packages and library directory), its own /proc (its own processes only), a
 * read-only /dev and a private tmpfs /tmp (at most `memoryMb` MiB) that disappears with it; no
 * repository, data, home or host /tmp; no network (only a down loopback); no capabilities; no
 * descriptor of the host process but its stdin, stdout and stderr; an empty environment (no API
 * keys). Started as root, it first drops to nobody:nogroup with no groups and no new privileges.
 * Inside, `prlimit` caps each process's address space (`memoryMb`), CPU seconds
 * (ceil(timeoutMs/1000)+1), threads (64), file size (16 MiB), open files (64) and core dumps (0),
 * and `python3 -I -B` runs a driver in two processes: a supervisor that runs the tests and alone can
 * report a pass, and the program's process, forked from it, that answers the tests' calls with
 * plain data (see {@link RunCodeTestsOptions.test} and `_driver.ts`). After that fork a seccomp
 * filter lets both start threads but no process, namespace or kernel key, reach into another
 * process, or keep memory outside their address space (SysV IPC, memfd files, BPF maps), so
 * `memoryMb` bounds each (plus as much in /tmp, of at most `maxTmpFiles` entries). A wall-clock
 * timeout kills the sandbox.
 * It never runs code unsandboxed: when the sandbox is unavailable it throws
 * {@link SandboxUnavailableError}; tests that do not compile throw {@link InvalidArgumentError}.
 *
 * @example
 * const result = await runCodeTests({ code: 'def add(a, b):\n    return a + b', test: 'assert add(2, 3) == 5', language: 'python' });
 * result.passed; // true
 */
export async function runCodeTests(options: RunCodeTestsOptions): Promise<CodeTestResult> {
  assertKnownOptions('', options, knownRunCodeTestsOptions, 'runCodeTests');
  assertKnownOptions('tools', options.tools, knownSandboxTools, 'runCodeTests');
  const {
    code,
    test,
    language,
    timeoutMs = 10_000,
    memoryMb = 512,
    maxOutputBytes = 65_536,
    maxTmpFiles = 10_000,
  } = options;
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
  assertInteger('maxTmpFiles', maxTmpFiles, 0, 10_000_000, 'pass e.g. { maxTmpFiles: 10000 }');
  const tools = resolveTools(options.tools);
  const toolsKey = JSON.stringify(tools);
  if (!probedTools.has(toolsKey)) {
    const status = checkSandbox(tools);
    if (!status.available)
      throw new SandboxUnavailableError(`refusing to run untrusted code without a sandbox: ${status.reason}`);
  }
  const usr = probedTools.get(toolsKey) as readonly string[];

  // The host side holds only the run's three files (read-only inside) and the filter, and is removed afterwards.
  const directory = await mkdtemp(path.join(os.tmpdir(), 'repute-sandbox-'));
  try {
    await chmod(directory, 0o755);
    const files = path.join(directory, 'files');
    await mkdir(files, { mode: 0o755 });
    await chmod(files, 0o755);
    await writeFile(path.join(files, 'driver.py'), driverSource(SANDBOX_DIRECTORY, maxTmpFiles), { mode: 0o644 });
    await writeFile(path.join(files, 'program.py'), `${code}\n`, { mode: 0o644 });
    // The tests never become a file: the supervisor reads them from a descriptor after its fork,
    // so the program's process holds no copy of them.
    await writeFile(path.join(files, 'filter.bpf'), syscallFilter(process.arch, 'program'), { mode: 0o644 });
    const filterFile = path.join(directory, 'filter.bpf');
    await writeFile(filterFile, syscallFilter(process.arch, 'sandbox'), { mode: 0o600 });
    const chain = [
      ...dropPrivileges(tools),
      tools.bwrap,
      ...bwrapArgs(files, memoryMb, usr),
      '--',
      ...prlimitArgs(tools.prlimit, memoryMb, Math.ceil(timeoutMs / 1000) + 1),
      tools.python,
      '-I',
      '-B',
      `${SANDBOX_DIRECTORY}/driver.py`,
    ];
    // A fresh token per run, known only to the supervisor (not to the program's process): it
    // comes back on the verdict descriptor when the tests passed.
    const token = `repute-tests-done-${randomBytes(16).toString('hex')}`;
    const filter = await open(filterFile, 'r');
    try {
      const outcome = await execute(chain[0] as string, chain.slice(1), {
        cwd: directory,
        timeoutMs,
        maxOutputBytes,
        token,
        test,
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
    test,
    filterFd,
  }: { cwd: string; timeoutMs: number; maxOutputBytes: number; token: string; test: string; filterFd: number },
): Promise<Execution> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // stdin is /dev/null; TESTS_FD carries the token and the tests to the supervisor, VERDICT_FD
    // brings the token back from it (and from nothing else: the program's process closed both).
    const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe', filterFd, 'pipe', 'pipe'];
    const child = spawn(command, args, {
      cwd,
      detached: true,
      stdio,
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
    // These stdio entries are 'pipe', so Node always creates these four streams.
    const [output, errors] = [child.stdout, child.stderr] as [Readable, Readable];
    const testsInput = child.stdio[TESTS_FD] as Writable;
    const verdictOutput = (child.stdio as unknown as (Readable | null)[])[VERDICT_FD] as Readable;
    // A sandbox that dies before reading the tests closes the pipe: that error is the exit's to
    // report, not this write's.
    testsInput.on('error', () => {});
    testsInput.end(`${token}\n${test}\n`);
    const verdictLine = `${token}\n`;
    const verdict = collect(verdictOutput, verdictLine.length + 1);
    const stdout = collect(output, maxOutputBytes);
    // Room for the driver's first line, or for the compiler's message on tests that do not compile.
    const stderr = collect(errors, maxOutputBytes + 4096);
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
      // bwrap exits with 128 + n when signal n ended the program, as a shell reports it (the
      // supervisor passes its child's fate on the same way).
      const signal = hostSignal ?? (exitCode !== null && exitCode > 128 ? signalName(exitCode - 128) : null);
      const vouched = verdict.bytes().toString('utf8') === verdictLine;
      const status = timedOut || signal === 'SIGXCPU' ? 'timeout' : exitCode === 0 && vouched ? 'passed' : 'failed';
      resolve({
        result: {
          schemaVersion: 1,
          status,
          passed: status === 'passed',
          exitCode,
          signal,
          stdout: decodePrefix(stdout.bytes(), maxOutputBytes),
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

/** The first `limit` bytes of a stream (plus one, so that more than `limit` shows), however long it ran. */
function collect(stream: NodeJS.ReadableStream, limit: number): { bytes(): Buffer } {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    if (size > limit) return;
    const part = chunk.subarray(0, limit + 1 - size);
    chunks.push(part);
    size += part.length;
  });
  return { bytes: () => Buffer.concat(chunks) };
}

/** The first `limit` bytes as text; when that cuts a UTF-8 character, the cut character is left out. */
function decodePrefix(bytes: Buffer, limit: number): string {
  if (bytes.length <= limit) return bytes.toString('utf8');
  // A streaming decoder holds back an incomplete character at the end instead of writing U+FFFD.
  return new TextDecoder('utf-8').decode(bytes.subarray(0, limit), { stream: true });
}

const knownScoreCodeOptions = defineOptionKeys<Parameters<typeof scoreCodeAnswer>[0]>()([
  'text',
  'test',
  'timeoutMs',
  'memoryMb',
  'maxOutputBytes',
  'maxTmpFiles',
  'tools',
]);

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
  assertKnownOptions('', options, knownScoreCodeOptions, 'scoreCodeAnswer');
  const code = extractAnswer('code', options.text);
  if (code === null) return { correct: false, result: null };
  const { text: _text, ...rest } = options;
  const result = await runCodeTests({ ...rest, code, language: 'python' });
  return { correct: result.passed, result };
}
