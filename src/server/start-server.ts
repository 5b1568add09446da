import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { InvalidArgumentError } from '../core/errors.js';
import { isLoopbackHost } from './_loopback.js';
import { createApp } from './app.js';
import type { CreateAppOptions } from './context.js';

/** Options of {@link startServer}: the app's options plus where to listen. */
export interface StartServerOptions extends CreateAppOptions {
  /** TCP port; 0 picks a free one. @default 8787 */
  readonly port?: number;
  /** Interface to bind; anything but a loopback address requires `token`. @default '127.0.0.1' */
  readonly host?: string;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** The port actually bound. */
  readonly port: number;
  /** Stops listening and drops open connections (SSE streams included). */
  close(): Promise<void>;
  /**
   * Stops listening, lets the requests in flight finish for at most `deadlineMs` (event streams,
   * which never finish, are not waited for), then drops every connection left. Resolves to the
   * requests that finished and those dropped.
   */
  drain(deadlineMs: number): Promise<{ finished: number; dropped: number }>;
}

export { isLoopbackHost };

/**
 * Serves {@link createApp} on a port with the Node adapter. Safe by default: binds 127.0.0.1, and
 * refuses any other host unless a bearer token is set.
 *
 * @example
 * const server = await startServer({ store: openStore({ path: 'repute.db' }), port: 8787 });
 * console.log(`dashboard at ${server.url}/`);
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { port = 8787, host = '127.0.0.1', ...appOptions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError({
      parameter: 'port',
      value: port,
      message: `port must be an integer in [0, 65535], got ${port}; pass e.g. --port 8787`,
    });
  }
  if (!isLoopbackHost(host) && appOptions.token === undefined) {
    throw new InvalidArgumentError({
      parameter: 'host',
      value: host,
      message: `binding ${host} exposes the store beyond this machine; pass --token (or REPUTE_SERVE_TOKEN) so every request needs a bearer token, or keep --host 127.0.0.1`,
    });
  }
  const app = createApp(appOptions);
  const server = await new Promise<Server>((resolve, reject) => {
    const created = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(created as Server));
    (created as Server).once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)));
  });
  // Requests in flight, but for the dashboard's event streams (they last until the client leaves).
  let active = 0;
  let onIdle: (() => void) | undefined;
  server.on('request', (request, response) => {
    if (/\/events(\?|$)/.test(request.url ?? '')) return;
    active++;
    response.once('close', () => {
      active--;
      if (active === 0) onIdle?.();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
    drain: async (deadlineMs) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const inFlight = active;
      if (active > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => {
            onIdle = resolve;
          }),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, deadlineMs);
          }),
        ]);
        clearTimeout(timer);
      }
      const dropped = active;
      server.closeAllConnections();
      await closed;
      return { finished: inFlight - dropped, dropped };
    },
  };
}

/** A failure to listen as a typed error naming the port or host and what to do; others unchanged. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE')
    return new InvalidArgumentError({
      parameter: 'port',
      value: port,
      message: `port ${port} on ${host} is already in use; stop what listens there, or pass another --port (0 picks a free one)`,
    });
  if (error.code === 'EACCES')
    return new InvalidArgumentError({
      parameter: 'port',
      value: port,
      message: `not allowed to listen on port ${port} of ${host} (ports below 1024 need privileges); pass e.g. --port 8787`,
    });
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    return new InvalidArgumentError({
      parameter: 'host',
      value: host,
      message: `cannot listen on host ${host}: no such address on this machine; pass e.g. --host 127.0.0.1`,
    });
  return error;
}
