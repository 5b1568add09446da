// A Node script started as its own process (a RAPS agent node talking over NATS): resolved from its
// compiled .js or, when run from source, its .ts next to the caller; "ready" once it prints `ready <id>`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TransportError } from '../core/errors.js';

/** A started script process. */
export interface NodeScriptProcess {
  readonly child: ChildProcess;
  /** Resolves when the script printed `ready <agentId>`; rejects (TransportError) if it exits first. */
  readonly ready: Promise<void>;
  /** SIGTERM (unless it has exited) and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL (unless it has exited) and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts the first existing of `scripts` (compiled .js first, then .ts through tsx when the current
 * process does not already load it) with `args`, and watches its stdout for `ready <agentId>`. A script
 * that exits before it is ready rejects `ready` with its exit code and the tail of its stderr.
 *
 * @example
 * const node = startNodeScript({ scripts: [new URL('./node.js', import.meta.url), new URL('./node.ts', import.meta.url)], args, agentId: 'a1', role: 'agent process' });
 * await node.ready;
 * await node.stop();
 */
export function startNodeScript({
  scripts,
  args,
  agentId,
  role,
  onStderr,
}: {
  /** Candidate script locations in order of preference. */
  scripts: readonly URL[];
  args: readonly string[];
  agentId: string;
  /** How errors name the process, e.g. `'agent process'`. */
  role: string;
  /** Called with every chunk the script writes to stderr. */
  onStderr?: ((text: string) => void) | undefined;
}): NodeScriptProcess {
  const candidates = scripts.map((url) => fileURLToPath(url));
  const script = candidates.find((path) => existsSync(path));
  if (script === undefined)
    throw new TransportError(`cannot find the ${role} script (${candidates.join(' or ')}); reinstall the package`);
  const execArgv =
    script.endsWith('.ts') && !process.execArgv.some((flag) => flag.includes('tsx'))
      ? ['--import', 'tsx']
      : process.execArgv;
  const child = spawn(process.execPath, [...execArgv, script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderr += text;
    onStderr?.(text);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(`ready ${agentId}`)) resolve();
    });
    child.once('exit', (code) =>
      reject(
        new TransportError(
          `${role} for ${agentId} exited with code ${code} before it was ready: ${stderr.slice(-800)}`,
        ),
      ),
    );
  });
  ready.catch(() => {});
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { child, ready, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}
