import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransportError } from '../core/errors.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';

/** A nats-server child process started by {@link startNatsServer}. */
export interface NatsServerProcess {
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** JetStream store directory. */
  readonly storeDir: string;
  /** Stops the server (SIGTERM, then SIGKILL after 3 s); the store directory is kept. */
  stop(): Promise<void>;
  /** Stops and starts the server again on the same port and store (streams and consumers survive). */
  restart(): Promise<void>;
  /** Stops the server and deletes the store directory. */
  dispose(): Promise<void>;
}

/** Options of {@link startNatsServer}. */
export interface StartNatsServerOptions {
  /** Path of the nats-server binary. @default process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server' */
  binary?: string;
  /** Port; 0 picks a free one. @default 0 */
  port?: number;
  /** JetStream store directory. @default a new temporary directory */
  storeDir?: string;
}

/** Finds a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new TransportError('no free port')),
      );
    });
  });
}

const knownNatsServerOptions = defineOptionKeys<StartNatsServerOptions>()(['binary', 'port', 'storeDir']);

/**
 * Starts `nats-server -js -sd <dir> -a 127.0.0.1 -p <port>` as a child process and waits until it
 * accepts connections (tests, `repute raps --transport nats` without `--nats-url`).
 *
 * @example
 * const server = await startNatsServer();
 * const transport = await connectNatsTransport({ servers: server.url, stream: 'S', subjects: ['raps.>'] });
 */
export async function startNatsServer(options: StartNatsServerOptions = {}): Promise<NatsServerProcess> {
  assertKnownOptions('options', options, knownNatsServerOptions, 'startNatsServer');
  const binary = options.binary ?? process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
  const port = options.port && options.port > 0 ? options.port : await freePort();
  const storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'repute-nats-'));
  let child: ChildProcess | null = null;

  const launch = async (): Promise<void> => {
    const started = spawn(binary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () =>
          reject(new TransportError(`nats-server did not start within 10 s on port ${port}: ${output.slice(-500)}`)),
        10_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout?.on('data', onData);
      started.stderr?.on('data', onData);
      started.once('error', (error) => {
        clearTimeout(timer);
        reject(
          new TransportError(`cannot start ${binary}: ${error.message}; install nats-server or set NATS_SERVER_BIN`, {
            cause: error,
          }),
        );
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new TransportError(`nats-server exited with code ${code} before it was ready: ${output.slice(-500)}`));
      });
    });
  };

  const stop = async (): Promise<void> => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => running.kill('SIGKILL'), 3000);
      running.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      running.kill('SIGTERM');
    });
  };

  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop,
    async restart() {
      await stop();
      await launch();
    },
    async dispose() {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
