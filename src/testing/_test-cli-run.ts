// Internal test helper: runs `repute run` in a child process, as a user would: to the end (its JSON
// summary, or its exit code and output), or until its store holds some finished tasks, then kills it
// (the CLI's resume tests).
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openStore } from '../store/store.js';

/** The repository root, the working directory of CLI child processes. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Node arguments that start `repute run` from the sources (append the command's own arguments). */
export const runCommand = ['--import', 'tsx', 'src/cli/run-cli.ts', 'run'];

const execute = promisify(execFile);

/** Runs `repute run <args> --json` to the end and parses the summary it prints; rejects when it exits non-zero. */
export async function runJson(...args: string[]) {
  const { stdout } = await execute(process.execPath, [...runCommand, ...args, '--json'], { cwd: repoRoot });
  return JSON.parse(stdout);
}

/** Runs `repute run <args>` to the end and resolves to its exit code and output, whether it failed or not. */
export function runToExit(
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return execute(process.execPath, [...runCommand, ...args], {
    cwd: repoRoot,
    ...(env === undefined ? {} : { env }),
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

/**
 * Starts `repute run <args>`, polls the store at `dbPath` every 50 ms (at most `attempts` times)
 * until its runs hold at least `committed` task results, then sends the run `signal`; resolves to
 * the signal the child was ended by, or its exit code when it exited itself (143 after SIGTERM).
 */
export async function killRunOnceCommitted({
  args,
  dbPath,
  committed,
  attempts,
  signal = 'SIGKILL',
}: {
  args: readonly string[];
  dbPath: string;
  committed: number;
  attempts: number;
  /** @default 'SIGKILL' */
  signal?: NodeJS.Signals;
}): Promise<NodeJS.Signals | number | null> {
  const child = spawn(process.execPath, [...runCommand, ...args], { cwd: repoRoot, stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, endedBy) => resolve(endedBy ?? code)),
  );
  for (let attempt = 0; attempt < attempts; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    let done = 0;
    try {
      const store = openStore({ path: dbPath, readonly: true });
      done = store.listRuns().reduce((sum, record) => sum + store.taskResults(record.id).length, 0);
      store.close();
    } catch {
      // the child has not created the database yet
    }
    if (done >= committed) break;
  }
  child.kill(signal);
  return exited;
}

/** A JSON value with every `key` field removed at any depth (to compare records apart from it). */
export function withoutKey(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutKey(item, key));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => name !== key)
      .map(([name, item]) => [name, withoutKey(item, key)]),
  );
}
