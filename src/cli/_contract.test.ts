import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ArgsDef } from 'citty';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  DataFormatError,
  InterruptedError,
  InvalidArgumentError,
  ProviderError,
  RunFailedError,
  StoreError,
  TransportError,
} from '../core/errors.js';
import {
  checkArgs,
  checkOutputs,
  closest,
  colourEnabled,
  exitCodeOf,
  formatErrorLine,
  UsageError,
} from './_contract.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';
import { SandboxUnavailableError } from '../eval/sandbox/run-code-tests.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    // TEST and CI would switch citty's colour off by themselves: remove them so the pipe decides.
    const { TEST: _test, CI: _ci, ...base } = process.env;
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/run-cli.ts', ...args],
      { cwd: root, encoding: 'utf8', env: { ...base, TERM: 'xterm-256color', NO_COLOR: '', REPUTE_DEBUG: '', ...env } },
      (error, stdout, stderr) =>
        resolve({ status: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });

const argsDef: ArgsDef = {
  team: { type: 'positional', required: true },
  tasks: { type: 'string', valueHint: 'N' },
  'run-id': { type: 'string' },
  mode: { type: 'enum', options: ['a', 'b'] },
  json: { type: 'boolean', default: false },
};

describe('command-line contract (in process)', () => {
  it('accepts a well-formed command line', () => {
    expect(() =>
      checkArgs(
        argsDef,
        ['team.yaml', '--tasks', '10', '--run-id=x', '--mode', 'b', '--json', '--no-json', '--seed-like', '-5'].slice(
          0,
          7,
        ),
      ),
    ).not.toThrow();
    // An option's other spellings are the same option.
    expect(() => checkArgs(argsDef, ['team.yaml', '--runId', 'y'])).not.toThrow();
    expect(() => checkArgs(argsDef, ['--tasks', '-3', 'team.yaml'])).not.toThrow();
    expect(() => checkArgs(argsDef, ['team.yaml', '--', '--not-an-option'].slice(0, 2))).not.toThrow();
  });

  it('refuses unknown options with a suggestion, missing values, bad enum values and extra or missing arguments', () => {
    const cases: Array<[string[], string]> = [
      [['team.yaml', '--task', '10'], 'unknown option --task (did you mean --tasks?)'],
      [['team.yaml', '--frobnicate'], 'unknown option --frobnicate'],
      [['team.yaml', '-x'], 'unknown option -x'],
      [['team.yaml', '--tasks'], 'missing value for --tasks; pass --tasks N'],
      [['team.yaml', '--tasks', '--json'], 'missing value for --tasks; pass --tasks N'],
      [['team.yaml', '--mode', 'c'], '--mode must be one of a, b, got "c"'],
      [['team.yaml', 'other.yaml'], 'unexpected argument "other.yaml"; this command takes <TEAM>'],
      [['--json'], 'missing argument <TEAM>; see --help'],
      [['team.yaml', '--json=yes'], '--json is a switch and takes no value'],
      [['team.yaml', '--tasks', ''], '--tasks got an empty value; pass --tasks N, or leave the option out'],
      [['team.yaml', '--tasks=  '], '--tasks got an empty value'],
      [['team.yaml', '--tasks', '99999', '--tasks', '5'], '--tasks is given twice ("99999", then "5"); pass it once'],
      [['team.yaml', '--run-id=x', '--runId', 'y'], '--run-id is given twice ("x", then "y")'],
    ];
    for (const [args, message] of cases) {
      expect(() => checkArgs(argsDef, args), args.join(' ')).toThrow(UsageError);
      expect(() => checkArgs(argsDef, args), args.join(' ')).toThrow(message);
    }
    // Edit distance: task → tasks is 1; runid → run-id is 1; nothing within 2 of "zzz".
    expect(closest('task', ['tasks', 'json'])).toBe('tasks');
    expect(closest('runid', ['run-id', 'json'])).toBe('run-id');
    expect(closest('zzz', ['tasks', 'json'])).toBeUndefined();
    // The input is a prefix of both: the one fewer edits away (1 against 6) wins, whatever the order.
    expect(closest('task', ['tasks-file', 'tasks'])).toBe('tasks');
    expect(closest('task', ['tasks', 'tasks-file'])).toBe('tasks');
  });

  it('maps errors to exit codes: 2 usage, 3 data, 4 provider or run failure, 5 a tool missing on the host, 130/143 interrupted, 1 else', () => {
    expect(exitCodeOf(new UsageError({ parameter: '--x', message: 'm' }))).toBe(2);
    expect(exitCodeOf(new InvalidArgumentError({ parameter: 'p', value: 1, message: 'm' }))).toBe(2);
    expect(exitCodeOf(new DataFormatError({ file: 'f', message: 'm' }))).toBe(3);
    expect(exitCodeOf(new StoreError('m'))).toBe(3);
    expect(exitCodeOf(new ProviderError({ provider: 'p', attempts: 1, message: 'm' }))).toBe(4);
    expect(exitCodeOf(new RunFailedError({ runId: 'r', failedTasks: 1, message: 'm' }))).toBe(4);
    // A NATS server that is down or dies is a run failure, not a bug.
    expect(exitCodeOf(new TransportError('cannot connect to NATS'))).toBe(4);
    // No bubblewrap on the host: the user installs a tool; it is neither a bug (1) nor bad data (3).
    expect(exitCodeOf(new SandboxUnavailableError('bwrap missing'))).toBe(5);
    expect(exitCodeOf(new InterruptedError({ signal: 'SIGINT' }))).toBe(130);
    expect(exitCodeOf(new InterruptedError({ signal: 'SIGTERM' }))).toBe(143);
    expect(exitCodeOf(new TypeError('bug'))).toBe(1);
    expect(formatErrorLine('repute run', new DataFormatError({ file: 'f', message: 'two\n  lines' }))).toBe(
      'repute run: DataFormatError: f: two lines',
    );
  });

  it('colours only a TTY without NO_COLOR', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
  });

  it('checks --out before any work: a directory option must not be a file, a file option not a directory', () => {
    const dir = temporaryDirectory('repute-out-');
    const file = join(dir, 'file.txt');
    writeFileSync(file, 'x');
    const dirOut: ArgsDef = { out: { type: 'string', valueHint: 'DIR', default: 'replay-out' } };
    const fileOut: ArgsDef = { out: { type: 'string', valueHint: 'FILE' } };
    expect(() => checkOutputs(dirOut, ['--out', file])).toThrow(/--out .*file\.txt: exists and is not a directory/);
    expect(() => checkOutputs(dirOut, ['--out', join(file, 'sub')])).toThrow(
      /cannot be created: .*file\.txt is not a directory/,
    );
    expect(() => checkOutputs(fileOut, ['--out', dir])).toThrow(/is a directory, expected a file/);
    expect(() => checkOutputs(dirOut, ['--out', join(dir, 'new', 'deeper')])).not.toThrow();
    expect(() => checkOutputs(fileOut, [`--out=${join(dir, 'report.html')}`])).not.toThrow();
  });
});

describe('command-line contract (every command, as a user runs it)', () => {
  // Old main: unknown flags and typos were ignored (exit 0, full default run); errors of run, demo
  // and raps were Node stack traces with exit 1; replay --out <file> failed only after the work.
  it.concurrent.each([
    [['run', 'team.yaml', '--task', '10'], 2, 'repute run: UsageError: unknown option --task (did you mean --tasks?)'],
    [['demo', '--tasks'], 2, 'repute demo: UsageError: missing value for --tasks; pass --tasks N'],
    [['demo', 'extra'], 2, 'repute demo: UsageError: unexpected argument "extra"; this command takes no arguments'],
    [['demo', '--tasks', 'many'], 2, 'repute demo: InvalidArgumentError: --tasks must be an integer'],
    [['raps', 'nope'], 2, 'repute raps: InvalidArgumentError: unknown RAPS scenario "nope"'],
    [
      ['replay', 'x', '--out', 'package.json'],
      2,
      'repute replay: InvalidArgumentError: --out package.json: exists and is not a directory',
    ],
    [['drf', 'sign', '--seedz', '3'], 2, 'repute drf sign: UsageError: unknown option --seedz (did you mean --seeds?)'],
    [
      ['run', 'missing-team.yaml'],
      3,
      'repute run: DataFormatError: missing-team.yaml: cannot read the team file (ENOENT)',
    ],
    [['frob'], 2, 'repute: UsageError: unknown command frob'],
  ] as Array<[string[], number, string]>)(
    '%j exits %i with one error line',
    async (args, code, line) => {
      const result = await cli(args);
      expect(result.status).toBe(code);
      const errorLines = result.stderr.split('\n').filter((entry) => entry.startsWith('repute'));
      expect(errorLines).toHaveLength(1);
      expect(errorLines[0]).toContain(line);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
    120_000,
  );

  it('prints a stack trace only with --debug or REPUTE_DEBUG=1', async () => {
    expect((await cli(['run', 'missing-team.yaml', '--debug'])).stderr).toMatch(/\n\s+at /);
    expect((await cli(['run', 'missing-team.yaml'], { REPUTE_DEBUG: '1' })).stderr).toMatch(/\n\s+at /);
  }, 120_000);

  it('prints help without colour into a pipe, and with NO_COLOR', async () => {
    const help = await cli(['run', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/USAGE/);
    expect(help.stdout).toContain('--max-failures');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for ANSI escapes
    expect(help.stdout).not.toMatch(/\u001B\[/);
  }, 120_000);

  it('leaves SIGTERM to the default for a command that does not watch it (killed at once, 143 in a shell)', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/run-cli.ts',
        'demo',
        '--tasks',
        '200',
        '--out',
        join(temporaryDirectory('repute-term-'), 'r.html'),
      ],
      { cwd: root, env: { ...process.env, NO_COLOR: '' } },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Stopped before its --out directory is removed, also when an assertion failed.
    onTestFinished(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    // Wait for the first progress line (majority on the clean condition done): the command is working.
    await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
    child.kill('SIGTERM');
    const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, exitSignal) => resolve(exitSignal)),
    );
    expect(signal).toBe('SIGTERM');
  }, 120_000);
});
