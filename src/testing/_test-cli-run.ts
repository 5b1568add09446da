// Internal test helper: runs `repute run` in a child process, as a user would, and kills it once
// its store holds some finished tasks (the CLI's resume tests).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '../store/store.js';

/** The repository root, the working directory of CLI child processes. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Node arguments that start `repute run` from the sources (append the command's own arguments). */
export const runCommand = ['--import', 'tsx', 'src/cli/run-cli.ts', 'run'];

/**
 * Starts `repute run <args>`, polls the store at `dbPath` every 50 ms (at most `attempts` times)
 * until its runs hold at least `committed` task results, then kills the run with SIGKILL; resolves
 * to the signal the child exited with.
 */
export async function killRunOnceCommitted({
  args,
  dbPath,
  committed,
  attempts,
}: {
  args: readonly string[];
  dbPath: string;
  committed: number;
  attempts: number;
}): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [...runCommand, ...args], { cwd: repoRoot, stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
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
  child.kill('SIGKILL');
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
