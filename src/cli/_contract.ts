// The one command-line contract every `repute` command follows (docs/cli.md): strict option
// parsing, one error line, exit codes by error kind, signals, colour, and `--out` checked before
// any work. Commands stay plain citty definitions; `runCli` applies all of this around them, so a
// command added later gets it without doing anything.
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { renderUsage, runCommand, type ArgDef, type ArgsDef, type CommandDef } from 'citty';
import { closest } from '../core/_closest.js';
import { InterruptedError, InvalidArgumentError, ReputeError } from '../core/errors.js';

export { closest };

/** Exit status of each outcome (docs/cli.md). */
export const exitCodes = {
  ok: 0,
  error: 1,
  usage: 2,
  data: 3,
  run: 4,
  unavailable: 5,
  sigint: 130,
  sigterm: 143,
} as const;

/** The command line itself is wrong: unknown option, missing value, extra or missing argument. */
export class UsageError extends InvalidArgumentError {
  constructor({ parameter, message }: { parameter: string; message: string }) {
    super({ parameter, value: undefined, message });
  }
}

/** Exit code for an error thrown by a command. */
export function exitCodeOf(error: unknown): number {
  if (!(error instanceof ReputeError)) return exitCodes.error;
  switch (error.code) {
    case 'invalid_argument':
      return exitCodes.usage;
    case 'data_format':
    case 'not_found':
    case 'store':
      return exitCodes.data;
    case 'provider':
    case 'run_failed':
    case 'transport':
      return exitCodes.run;
    case 'unavailable':
      return exitCodes.unavailable;
    case 'interrupted':
      return (error as InterruptedError).signal === 'SIGTERM' ? exitCodes.sigterm : exitCodes.sigint;
    default:
      return exitCodes.error;
  }
}

/** The one error line: `repute <command>: <ErrorName>: <message>`, newlines folded. */
export function formatErrorLine(command: string, error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return `${command}: ${name}: ${message.replace(/\s*\n\s*/g, ' ').trim()}`;
}

/** True when stdout may carry ANSI colour: a TTY, and `NO_COLOR` unset or empty. */
export function colourEnabled(
  stream: { isTTY?: boolean } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb';
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences
const ansi = /\u001B\[[0-9;]*m/g;

interface InterruptState {
  readonly controller: AbortController;
  handled: boolean;
  signal: 'SIGINT' | 'SIGTERM' | undefined;
  install?: () => void;
  /** What a rerun of the interrupted command does, for its error line (`interruptSignal`'s `rerun`). */
  rerun?: string;
}

let interrupt: InterruptState | undefined;

/**
 * The signal a long command watches to stop on Ctrl-C or SIGTERM. Asking for it tells the contract
 * the command winds down by itself (marks its run interrupted, closes the store), then exits 130 or
 * 143 with one error line; commands that never ask are killed by the signal at once (status 130 or
 * 143 in the shell). Outside `runCli` it never aborts. `rerun` says what running the command again
 * does, in the error line after "interrupted by SIGTERM; " (default: "rerun the same command to
 * resume"); a command whose work does not resume says so.
 */
export function interruptSignal(options: { rerun?: string } = {}): AbortSignal {
  if (interrupt === undefined) return new AbortController().signal;
  if (options.rerun !== undefined) interrupt.rerun = options.rerun;
  if (!interrupt.handled) interrupt.install?.();
  interrupt.handled = true;
  return interrupt.controller.signal;
}

/** Longest wait for a command to wind down after a signal before the process exits anyway, in ms. */
const windDownMs = 10_000;

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Arguments after the program name. @default process.argv.slice(2) */
  readonly rawArgs?: readonly string[];
  /** Program name used in messages. @default 'repute' */
  readonly name?: string;
}

/**
 * Runs a citty command tree under the contract and exits the process with the contract's code.
 *
 * @example
 * await runCli(main); // `repute run team.yaml --task 10` → exit 2, "unknown option --task (did you mean --tasks?)"
 */
export async function runCli(main: CommandDef, options: RunCliOptions = {}): Promise<void> {
  const name = options.name ?? 'repute';
  const all = [...(options.rawArgs ?? process.argv.slice(2))];
  const separator = all.indexOf('--');
  const head = separator === -1 ? all : all.slice(0, separator);
  const debug = head.includes('--debug') || process.env.REPUTE_DEBUG === '1';
  const args = [...head.filter((arg) => arg !== '--debug'), ...(separator === -1 ? [] : all.slice(separator))];
  let label = name;
  const fail = (error: unknown): never => {
    process.stderr.write(`${formatErrorLine(label, error)}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exit(exitCodeOf(error));
  };
  process.on('unhandledRejection', (reason) => fail(reason));
  process.on('uncaughtException', (error) => fail(error));
  const seenWarnings = new Set<string>();
  // The AI SDK logs its warnings (e.g. a provider that cannot enforce a JSON schema, as an LLM
  // judge asks for) with console.info/warn, i.e. partly to stdout, which is a command's output (its
  // table or --json): they go to stderr instead, one line each.
  (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = ({
    warnings,
    provider,
    model,
  }: {
    warnings: readonly unknown[];
    provider: string;
    model: string;
  }) => {
    for (const warning of warnings) {
      // Once per process: the same warning comes back with every call of the model.
      const line = `${name}: AI SDK warning (${provider} / ${model}): ${JSON.stringify(warning)}`;
      if (seenWarnings.has(line)) continue;
      seenWarnings.add(line);
      process.stderr.write(`${line}\n`);
    }
  };

  let resolved: Resolved;
  try {
    resolved = await resolveCommand(main, args, name);
  } catch (error) {
    label = error instanceof UnknownCommandError ? error.path : name;
    if (error instanceof UnknownCommandError) {
      await printUsage(error.command, error.parent, process.stderr);
      fail(error.cause);
    }
    fail(error);
    return;
  }
  label = resolved.path;
  const { command, parent, rest } = resolved;
  const helpIndex = rest.findIndex((arg) => arg === '--help' || arg === '-h');
  const dashDash = rest.indexOf('--');
  if (helpIndex !== -1 && (dashDash === -1 || helpIndex < dashDash)) {
    await printUsage(command, parent, process.stdout);
    return;
  }
  if (resolved.versionRequested) {
    const meta = await resolveValue(main.meta);
    process.stdout.write(`${meta?.version ?? ''}\n`);
    return;
  }
  if (resolved.missingSubcommand) {
    await printUsage(command, parent, process.stderr);
    fail(
      new UsageError({
        parameter: 'command',
        message: `missing command; choose one of ${resolved.missingSubcommand.join(', ')}`,
      }),
    );
  }

  // Handlers are installed only when the command asks for interruptSignal(): a command that never
  // asks keeps Node's default (killed by the signal, status 130/143 in the shell), which also
  // works while it computes without yielding to the event loop.
  const state: InterruptState = { controller: new AbortController(), handled: false, signal: undefined };
  // The interruption's error, with the command's own word on what a rerun does.
  const interrupted = (signal: 'SIGINT' | 'SIGTERM') =>
    new InterruptedError(
      state.rerun === undefined ? { signal } : { signal, message: `interrupted by ${signal}; ${state.rerun}` },
    );
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    // A second signal: stop now.
    if (state.signal !== undefined) fail(interrupted(state.signal));
    state.signal = signal;
    state.controller.abort(interrupted(signal));
    setTimeout(
      () =>
        fail(
          new InterruptedError({
            signal,
            message: `interrupted by ${signal}; the command did not stop within ${windDownMs / 1000} s`,
          }),
        ),
      windDownMs,
    ).unref();
  };
  const onSigint = () => onSignal('SIGINT');
  const onSigterm = () => onSignal('SIGTERM');
  state.install = () => {
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
  };
  interrupt = state;
  try {
    const argsDef = (await resolveValue(command.args)) ?? {};
    checkArgs(argsDef, rest);
    checkOutputs(argsDef, rest);
    await runCommand(command, { rawArgs: rest });
  } catch (error) {
    // A command that wound down says how itself (serve: what it drained); anything else reads as the signal.
    fail(state.signal === undefined || error instanceof InterruptedError ? error : interrupted(state.signal));
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
  if (state.signal !== undefined) fail(interrupted(state.signal));
}

async function resolveValue<T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof value === 'function' ? await (value as () => T | Promise<T>)() : await value;
}

async function printUsage(
  command: CommandDef,
  parent: CommandDef | undefined,
  stream: NodeJS.WriteStream,
): Promise<void> {
  const text = await renderUsage(command, parent);
  stream.write(`${colourEnabled(stream) ? text : text.replace(ansi, '')}\n\n`);
}

interface Resolved {
  readonly command: CommandDef;
  readonly parent: CommandDef | undefined;
  readonly rest: string[];
  readonly path: string;
  readonly versionRequested: boolean;
  readonly missingSubcommand: string[] | undefined;
}

class UnknownCommandError extends Error {
  constructor(
    readonly path: string,
    readonly command: CommandDef,
    readonly parent: CommandDef | undefined,
    cause: UsageError,
  ) {
    super(cause.message, { cause });
  }
}

/** Walks the subcommand tree: every level with subcommands takes its name as the first argument. */
async function resolveCommand(main: CommandDef, args: string[], name: string): Promise<Resolved> {
  let command = main;
  let parent: CommandDef | undefined;
  let rest = args;
  let path = name;
  for (;;) {
    const subCommands = await resolveValue(command.subCommands);
    if (subCommands === undefined || Object.keys(subCommands).length === 0) break;
    const first = rest[0];
    if (first === undefined || first.startsWith('-')) {
      const isTop = command === main;
      const versionRequested = isTop && rest.length === 1 && (first === '--version' || first === '-v');
      const wantsHelp = rest.includes('--help') || rest.includes('-h');
      if (first !== undefined && !versionRequested && !wantsHelp) {
        throw new UnknownCommandError(
          path,
          command,
          parent,
          unknownOption(first, ['help', ...(isTop ? ['version'] : [])]),
        );
      }
      return {
        command,
        parent,
        rest,
        path,
        versionRequested,
        missingSubcommand: versionRequested || wantsHelp ? undefined : Object.keys(subCommands),
      };
    }
    const next = subCommands[first];
    if (next === undefined) {
      const names = Object.keys(subCommands);
      const guess = closest(first, names);
      throw new UnknownCommandError(
        path,
        command,
        parent,
        new UsageError({
          parameter: 'command',
          message: `unknown command ${first}${guess ? ` (did you mean ${guess}?)` : ''}; choose one of ${names.join(', ')}`,
        }),
      );
    }
    parent = command;
    command = (await resolveValue(next)) as CommandDef;
    rest = rest.slice(1);
    path = `${path} ${first}`;
  }
  return { command, parent, rest, path, versionRequested: false, missingSubcommand: undefined };
}

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

function unknownOption(token: string, known: readonly string[]): UsageError {
  const flag = token.split('=')[0] as string;
  const guess = closest(flag.replace(/^-+/, ''), known);
  return new UsageError({
    parameter: flag,
    message: `unknown option ${flag}${guess ? ` (did you mean --${guess}?)` : ''}`,
  });
}

/**
 * Checks a command line against the command's argument definitions: every option known, every
 * value-taking option given a value once, enum values allowed, positionals neither missing nor extra.
 * Throws {@link UsageError}.
 */
export function checkArgs(argsDef: ArgsDef, rest: readonly string[]): void {
  const defs = Object.entries(argsDef) as Array<[string, ArgDef]>;
  const options = new Map<string, [string, ArgDef]>();
  for (const [key, def] of defs) {
    if (def.type === 'positional') continue;
    const aliases = (def as { alias?: string | string[] }).alias;
    for (const alias of [key, kebab(key), camel(key), ...(Array.isArray(aliases) ? aliases : aliases ? [aliases] : [])])
      options.set(alias, [key, def]);
  }
  const names = [...new Set(defs.filter(([, def]) => def.type !== 'positional').map(([key]) => kebab(key))), 'help'];
  const positionals: string[] = [];
  // The value each value-taking option got, by key (its aliases are the same option).
  const given = new Map<string, string>();
  for (let index = 0; index < rest.length; index++) {
    const token = rest[index] as string;
    if (token === '--') {
      positionals.push(...rest.slice(index + 1));
      break;
    }
    if (!token.startsWith('-') || /^-\d/.test(token)) {
      positionals.push(token);
      continue;
    }
    const long = token.startsWith('--');
    const [flag, inline] = token.includes('=')
      ? [token.slice(0, token.indexOf('=')), token.slice(token.indexOf('=') + 1)]
      : [token, undefined];
    const bare = flag.replace(/^-+/, '');
    const entry = options.get(bare);
    if (entry === undefined && long && bare.startsWith('no-')) {
      const negated = options.get(bare.slice(3));
      if (negated?.[1].type === 'boolean' && inline === undefined) continue;
    }
    if (entry === undefined || (!long && bare.length > 1)) throw unknownOption(token, names);
    const [key, def] = entry;
    if (def.type === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') {
        throw new UsageError({
          parameter: `--${kebab(key)}`,
          message: `--${kebab(key)} is a switch and takes no value, got ${JSON.stringify(inline)}; pass --${kebab(key)} or --no-${kebab(key)}`,
        });
      }
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = rest[index + 1];
      if (next === undefined || (next.startsWith('-') && !/^-\d/.test(next))) {
        throw new UsageError({
          parameter: `--${kebab(key)}`,
          message: `missing value for --${kebab(key)}; pass --${kebab(key)} ${def.valueHint ?? 'VALUE'}`,
        });
      }
      value = next;
      index++;
    }
    // An empty value is never a setting: taken as "use the default", `--out ""` ran a whole grid
    // before failing to write, and `--methods ""` ran every method.
    if (value.trim() === '') {
      throw new UsageError({
        parameter: `--${kebab(key)}`,
        message: `--${kebab(key)} got an empty value; pass --${kebab(key)} ${def.valueHint ?? 'VALUE'}, or leave the option out for its default`,
      });
    }
    // A repeated option would silently keep its last value (`--tasks 99999 --tasks 5` ran 5 tasks).
    const earlier = given.get(key);
    if (earlier !== undefined) {
      throw new UsageError({
        parameter: `--${kebab(key)}`,
        message: `--${kebab(key)} is given twice (${JSON.stringify(earlier)}, then ${JSON.stringify(value)}); pass it once`,
      });
    }
    given.set(key, value);
    if (def.type === 'enum' && def.options !== undefined && !def.options.includes(value)) {
      throw new UsageError({
        parameter: `--${kebab(key)}`,
        message: `--${kebab(key)} must be one of ${def.options.join(', ')}, got ${JSON.stringify(value)}`,
      });
    }
  }
  const positionalDefs = defs.filter(([, def]) => def.type === 'positional');
  if (positionals.length > positionalDefs.length) {
    const extra = positionals[positionalDefs.length] as string;
    throw new UsageError({
      parameter: 'arguments',
      message: `unexpected argument ${JSON.stringify(extra)}${positionalDefs.length === 0 ? '; this command takes no arguments' : `; this command takes ${positionalDefs.map(([key]) => `<${key.toUpperCase()}>`).join(' ')}`}`,
    });
  }
  positionalDefs.forEach(([key, def], index) => {
    if (positionals[index] === undefined && def.required !== false && def.default === undefined) {
      throw new UsageError({ parameter: key, message: `missing argument <${key.toUpperCase()}>; see --help` });
    }
  });
}

/** The value an option gets from the command line, else its default. */
function optionValue(key: string, def: ArgDef, rest: readonly string[]): string | undefined {
  let value: string | undefined = typeof def.default === 'string' ? def.default : undefined;
  const names = new Set([`--${key}`, `--${kebab(key)}`, `--${camel(key)}`]);
  for (let index = 0; index < rest.length; index++) {
    const token = rest[index] as string;
    if (token === '--') break;
    const flag = token.includes('=') ? token.slice(0, token.indexOf('=')) : token;
    if (!names.has(flag)) continue;
    value = token.includes('=') ? token.slice(token.indexOf('=') + 1) : rest[++index];
  }
  return value;
}

/**
 * `--out` is checked before any work: a directory option (`valueHint: 'DIR'`) must be a writable
 * directory or creatable under one; a file option must not be a directory and its folder must be
 * writable or creatable.
 */
export function checkOutputs(argsDef: ArgsDef, rest: readonly string[]): void {
  for (const [key, def] of Object.entries(argsDef) as Array<[string, ArgDef]>) {
    if (key !== 'out' || def.type !== 'string') continue;
    const value = optionValue(key, def, rest);
    if (value === undefined || value === '') continue;
    const wantsDirectory = def.valueHint === 'DIR';
    const path = resolve(value);
    const problem = outputProblem(path, wantsDirectory);
    if (problem !== undefined) {
      throw new InvalidArgumentError({
        parameter: '--out',
        value,
        message: `--out ${value}: ${problem}; pass --out <${wantsDirectory ? 'a writable directory' : 'a file in a writable directory'}>`,
      });
    }
  }
}

function statOrUndefined(path: string): ReturnType<typeof statSync> {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    // ENOTDIR and the like: treated as absent, so the walk up finds the file in the way.
    return undefined;
  }
}

function outputProblem(path: string, wantsDirectory: boolean): string | undefined {
  const stats = statOrUndefined(path);
  if (stats !== undefined) {
    if (wantsDirectory && !stats.isDirectory()) return 'exists and is not a directory';
    if (!wantsDirectory && stats.isDirectory()) return 'is a directory, expected a file';
    return writable(path);
  }
  // Not there yet: the nearest existing ancestor must be a writable directory.
  let ancestor = dirname(path);
  for (;;) {
    const found = statOrUndefined(ancestor);
    if (found !== undefined) {
      if (!found.isDirectory()) return `cannot be created: ${ancestor} is not a directory`;
      return writable(ancestor);
    }
    const up = dirname(ancestor);
    if (up === ancestor) return 'cannot be created';
    ancestor = up;
  }
}

function writable(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return `${path} is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}
