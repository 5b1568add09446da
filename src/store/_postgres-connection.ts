// Internal: one PostgreSQL connection behind the store's synchronous interface. The `Store` methods
// are synchronous (better-sqlite3 set that contract, and every protocol, the CLI and the server call
// them so); `pg` is asynchronous. A worker thread owns the `pg.Client`; each query is posted to it and
// the calling thread blocks on a shared flag (`Atomics.wait`) until the reply is there, then reads
// it with `receiveMessageOnPort`. One connection, one query at a time, exactly like the SQLite store:
// a `BEGIN` ... `COMMIT` sent through it is one transaction. The worker is unref'd, so an open store
// never keeps a finished process alive.
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { StoreError } from '../core/errors.js';

/** An error PostgreSQL (or the connection to it) reported for one query; `code` is its SQLSTATE, e.g. `23505`. */
export class PostgresQueryError extends Error {
  /** SQLSTATE (`23505` unique violation, `40P01` deadlock, ...), or `connection` when the server could not be reached. */
  readonly code: string;
  /** Name of the violated constraint, when there is one. */
  readonly constraint: string | undefined;
  constructor(input: { message: string; code: string; constraint?: string | undefined }) {
    super(input.message);
    this.name = new.target.name;
    this.code = input.code;
    this.constraint = input.constraint;
  }
}

/** Rows and affected row count of one query. */
export interface PostgresResult {
  readonly rows: Record<string, unknown>[];
  readonly rowCount: number;
}

/** A synchronous PostgreSQL connection (see the module comment). */
export interface PostgresConnection {
  /**
   * Runs one statement with `$1`-style parameters (several `;`-separated statements when there are
   * none); `name` prepares it once on the server and reuses the plan. Throws {@link PostgresQueryError}.
   */
  query(sql: string, params?: readonly unknown[], name?: string): PostgresResult;
  /** Ends the connection and its worker; further queries throw. */
  close(): void;
}

// The worker is CommonJS evaluated from this string, so it runs the same from src/ (vitest) and
// dist/ (the CLI); `pg` is required by the absolute path resolved here. BIGINT and NUMERIC come
// back as JS numbers: the store keeps millisecond times, counts and sums well inside 2^53.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
let lost;
const client = new pg.Client({ connectionString: workerData.url, application_name: 'repute' });
client.on('error', (error) => { lost = error; });
const ready = client.connect().catch((error) => { lost = error; });
function reply(message) {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
function failure(error, connection) {
  return { error: { message: String(error && error.message || error), code: connection ? 'connection' : String(error && error.code || 'unknown'), constraint: error && error.constraint } };
}
port.on('message', async (message) => {
  await ready;
  if (message.close) {
    try { await client.end(); } catch {}
    reply({ rows: [], rowCount: 0 });
    port.close();
    return;
  }
  if (lost) return reply(failure(lost, true));
  try {
    const result = await client.query(
      message.name ? { name: message.name, text: message.sql, values: message.params } : message.sql,
      message.name ? undefined : message.params,
    );
    reply({ rows: result.rows, rowCount: result.rowCount ?? 0 });
  } catch (error) {
    reply(failure(error, lost !== undefined || error.code === undefined));
  }
});
`;

/** How long a reply the worker has signalled may take to become readable on the port. */
const REPLY_GRACE_MS = 1_000;

/**
 * Opens one connection to `url` in a worker thread. `timeoutMs` bounds how long one query may block
 * the caller (a lock wait included) before it fails with a `StoreError`.
 */
export function connectPostgres(input: { url: string; label: string; timeoutMs: number }): PostgresConnection {
  const { url, label, timeoutMs } = input;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const pgPath = createRequire(import.meta.url).resolve('pg');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { url, pgPath, flag: flag.buffer, port: port2 },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  let closed = false;
  const pause = new Int32Array(new SharedArrayBuffer(4));

  type Reply =
    | { rows: Record<string, unknown>[]; rowCount: number; error?: undefined }
    | { error: { message: string; code: string; constraint?: string } };
  // The worker posts its reply before it raises the flag, so the reply is normally there at once;
  // under heavy load it was seen to lag the flag (a replica then read every later reply one query
  // late). Wait for it a short while rather than read nothing.
  const receiveReply = (): Reply | undefined => {
    const deadline = Date.now() + REPLY_GRACE_MS;
    for (;;) {
      const received = receiveMessageOnPort(port1)?.message as Reply | undefined;
      if (received !== undefined || Date.now() >= deadline) return received;
      Atomics.wait(pause, 0, 0, 1);
    }
  };
  const send = (message: object): PostgresResult => {
    Atomics.store(flag, 0, 0);
    port1.postMessage(message);
    if (Atomics.wait(flag, 0, 0, timeoutMs) === 'timed-out') {
      // The reply may still come; this connection can no longer tell it from the next one's.
      closed = true;
      void worker.terminate();
      throw new StoreError(
        `store ${label}: a query got no reply within ${timeoutMs} ms (the server is unreachable or a lock is held that long); the connection is closed: check the server, then open the store again`,
      );
    }
    const received = receiveReply();
    if (received === undefined) {
      // A reply that arrives later would be read as the next query's: this connection is unusable.
      closed = true;
      void worker.terminate();
      throw new StoreError(
        `store ${label}: the connection worker signalled a reply but none arrived within ${REPLY_GRACE_MS} ms; the connection is closed: open the store again`,
      );
    }
    if (received.error !== undefined) throw new PostgresQueryError(received.error);
    return received;
  };

  return {
    query(sql, params = [], name) {
      if (closed) throw new StoreError(`store ${label}: the connection is closed; open the store again`);
      return send({ sql, params, name });
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        send({ close: true });
      } finally {
        port1.close();
        void worker.terminate();
      }
    },
  };
}
