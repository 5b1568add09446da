// `repute raps --transport nats` starts child processes (a private nats-server, one node process per
// agent): a signal must stop them and remove the server's store before the CLI exits.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** Live (not zombie) processes whose parent is `parent`, with their command lines; Linux /proc. */
function childrenOf(parent: number): Array<{ pid: number; command: string[] }> {
  const found: Array<{ pid: number; command: string[] }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== parent || state === 'Z') continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      found.push({ pid: Number(entry), command });
    } catch {
      // The process ended while we read it.
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor<T>(probe: () => T | undefined, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// What a failing run left behind, removed after each test so that it cannot pile up.
let leftovers: { pids: number[]; storeDir: string | undefined } = { pids: [], storeDir: undefined };
afterEach(async () => {
  for (const pid of leftovers.pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  // Remove the store once its server is gone, or it may write there again.
  await waitFor(() => (leftovers.pids.some(alive) ? undefined : true), 3000);
  if (leftovers.storeDir !== undefined) rmSync(leftovers.storeDir, { recursive: true, force: true });
  leftovers = { pids: [], storeDir: undefined };
});

describe.skipIf(!existsSync(binary) || !existsSync('/proc/self/stat'))(
  'repute raps --transport nats on SIGTERM or SIGINT',
  () => {
    for (const { args, signal, code, children } of [
      // adversarial: nats-server and one node process per agent (5 agents).
      {
        args: ['adversarial', '--seeds', '2', '--tasks', '30'],
        signal: 'SIGTERM' as const,
        code: 143,
        children: 6,
      },
      // scaling hosts its nodes in the CLI process: nats-server only.
      { args: ['scaling', '--tasks', '30'], signal: 'SIGINT' as const, code: 130, children: 1 },
    ]) {
      it(`raps ${args.join(' ')}: ${signal} stops nats-server and the node processes, removes the store and exits ${code}`, async () => {
        const cli = spawn(
          process.execPath,
          ['--import', 'tsx', 'src/cli/run-cli.ts', 'raps', ...args, '--transport', 'nats'],
          { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        cli.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
        });
        const exited = new Promise<number | null>((resolve) => cli.once('exit', (status) => resolve(status)));
        const pid = cli.pid as number;
        leftovers = { pids: [pid], storeDir: undefined };
        const started = await waitFor(() => {
          // Counted once exec'd: a child just forked still shows the CLI's own command line.
          const found = childrenOf(pid).filter(
            (child) =>
              child.command[0]?.endsWith('nats-server') ||
              child.command.some((part) => part.endsWith('node-process.ts')),
          );
          const hasServer = found.some((child) => child.command[0]?.endsWith('nats-server'));
          return found.length >= children && hasServer ? found : undefined;
        }, 60_000);
        expect(started, `the CLI started ${children} child processes; stderr: ${stderr}`).toBeDefined();
        const pids = (started ?? []).map((child) => child.pid);
        const server = (started ?? []).find((child) => child.command[0]?.endsWith('nats-server'));
        const storeDir = server?.command[server.command.indexOf('-sd') + 1];
        leftovers = { pids: [pid, ...pids], storeDir };
        expect(storeDir).toMatch(/repute-nats-/);
        expect(existsSync(storeDir as string)).toBe(true);

        // Let the run get under way (nodes ready, rounds running) before the signal.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        cli.kill(signal);
        const status = await exited;
        // Nothing it started may outlive it (give reparented processes a moment to be reaped).
        const survivors = await waitFor(() => {
          const running = pids.filter(alive);
          return running.length === 0 ? [] : undefined;
        }, 3000);
        expect(survivors ?? pids.filter(alive)).toEqual([]);
        expect(existsSync(storeDir as string)).toBe(false);
        expect(status).toBe(code);
        expect(stderr).toMatch(
          new RegExp(
            `InterruptedError: interrupted by ${signal}; a RAPS scenario run does not resume; run the same command to start it over`,
          ),
        );
      }, 90_000);
    }
  },
);
