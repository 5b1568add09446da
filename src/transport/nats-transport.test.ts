import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, TransportError } from '../core/errors.js';
import { connectNatsTransport, defaultInactiveThresholdMs } from './nats-transport.js';
import { startNatsServer, type NatsServerProcess } from './nats-server.js';

const binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const encoder = new TextEncoder();
const waitFor = async (condition: () => boolean, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe.skipIf(!existsSync(binary))('connectNatsTransport (JetStream on a local nats-server)', () => {
  let server: NatsServerProcess;
  beforeAll(async () => {
    server = await startNatsServer({ binary });
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('stores a re-published id once, redelivers after a handler error and survives a server restart', async () => {
    const transport = await connectNatsTransport({
      servers: server.url,
      stream: 'T1',
      subjects: ['t1.>'],
      ackWaitMs: 500,
    });
    const seen: string[] = [];
    let failOnce = true;
    await transport.subscribe(
      't1.pub',
      (message) => {
        if (message.id === 'm2' && failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
        seen.push(`${message.id}#${message.deliveryCount}`);
      },
      { durable: 'reader' },
    );
    await transport.publish('t1.pub', encoder.encode('a'), { id: 'm1' });
    await transport.publish('t1.pub', encoder.encode('a again'), { id: 'm1' });
    await transport.publish('t1.pub', encoder.encode('b'), { id: 'm2' });
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual(['m1#1', 'm2#2']);
    expect(transport.stats()).toMatchObject({ published: 2, duplicatePublishes: 1, handlerErrors: 1 });

    const restart = server.restart();
    // Published while the server is going down and coming back: retried until accepted.
    const publishing = transport.publish('t1.pub', encoder.encode('c'), { id: 'm3' });
    await restart;
    await publishing;
    await waitFor(() => seen.length === 3);
    expect(seen[2]).toBe('m3#1');
    await transport.close();
  }, 60_000);

  it('gives messages published while a durable subscriber was away to its next subscriber', async () => {
    const transport = await connectNatsTransport({ servers: server.url, stream: 'T2', subjects: ['t2.>'] });
    const first: string[] = [];
    const subscription = await transport.subscribe('t2.x', (message) => void first.push(message.id), {
      durable: 'worker',
    });
    await transport.publish('t2.x', encoder.encode(''), { id: 'a' });
    await waitFor(() => first.length === 1);
    await subscription.stop();
    await transport.publish('t2.x', encoder.encode(''), { id: 'b' });
    const second: string[] = [];
    await transport.subscribe('t2.x', (message) => void second.push(message.id), { durable: 'worker' });
    await waitFor(() => second.length === 1);
    expect(second).toEqual(['b']);
    await transport.close();
  }, 60_000);

  it('fails with a clear TransportError when no server answers', async () => {
    const error = await connectNatsTransport({
      servers: 'nats://127.0.0.1:1',
      stream: 'T3',
      subjects: ['t3.>'],
      publishTimeoutMs: 300,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/nats-server/);
  }, 30_000);
  it('refuses a payload over the server max_payload at once, naming its size, instead of retrying', async () => {
    const transport = await connectNatsTransport({
      servers: server.url,
      stream: 'T4',
      subjects: ['t4.>'],
      publishTimeoutMs: 20_000,
    });
    // nats-server's default max_payload is 1 MiB = 1048576 bytes; 2000000 bytes are over it.
    const started = Date.now();
    const error = await transport
      .publish('t4.x', new Uint8Array(2_000_000), { id: 'big' })
      .catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ parameter: 'data', value: '2000000 bytes' });
    expect((error as Error).message).toMatch(/2000000 bytes, over the server's max_payload of 1048576 bytes/);
    // Like the in-process bus, a payload that is not bytes is refused rather than stored as text.
    await expect(transport.publish('t4.x', 'text' as unknown as Uint8Array, { id: 'text' })).rejects.toThrow(
      /data must be a Uint8Array, got string/,
    );
    await transport.close();
  }, 30_000);

  it('keeps the user and password of a server URL out of its connection error', async () => {
    const error = await connectNatsTransport({
      servers: 'nats://alice:s3cret@127.0.0.1:1',
      stream: 'T5',
      subjects: ['t5.>'],
      publishTimeoutMs: 300,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toContain('nats://***@127.0.0.1:1');
    expect((error as Error).message).not.toMatch(/s3cret|alice/);
  }, 30_000);

  it('refuses to move a durable to another subject, and a second subscriber on an attached durable, as the in-process bus does', async () => {
    const transport = await connectNatsTransport({ servers: server.url, stream: 'T6', subjects: ['t6.>'] });
    const first = await transport.subscribe('t6.one', () => undefined, { durable: 'd' });
    await expect(transport.subscribe('t6.one', () => undefined, { durable: 'd' })).rejects.toThrow(
      /already has an attached subscriber/,
    );
    await first.stop();
    const received: string[] = [];
    const moved = await transport
      .subscribe('t6.two', (message) => void received.push(message.subject), { durable: 'd' })
      .catch((caught: unknown) => caught);
    expect(moved).toBeInstanceOf(InvalidArgumentError);
    expect((moved as Error).message).toMatch(/already follows "t6\.one"; use another durable name for "t6\.two"/);
    await transport.publish('t6.one', encoder.encode(''), { id: 'x' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toEqual([]);
    await transport.close();
  }, 30_000);

  it('refuses an existing stream that does not capture the requested subjects', async () => {
    const original = await connectNatsTransport({ servers: server.url, stream: 'T7', subjects: ['t7.a.>'] });
    await original.close();
    const error = await connectNatsTransport({
      servers: server.url,
      stream: 'T7',
      subjects: ['t7.b.>'],
      publishTimeoutMs: 2000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(
      /stream T7 already exists and captures \["t7\.a\.>"\], not \["t7\.b\.>"\]/,
    );
  }, 30_000);

  it('gives a handler slower than ackWaitMs each message once, as the in-process bus does', async () => {
    const transport = await connectNatsTransport({
      servers: server.url,
      stream: 'T8',
      subjects: ['t8.>'],
      ackWaitMs: 300,
      maxDeliver: 3,
    });
    // Each handler call takes 500 ms > ackWaitMs = 300 ms; 4 messages take about 2 s one after another.
    const calls: string[] = [];
    await transport.subscribe(
      't8.x',
      async (message) => {
        calls.push(`${message.id}#${message.deliveryCount}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      },
      { durable: 'slow' },
    );
    for (const id of ['m0', 'm1', 'm2', 'm3']) await transport.publish('t8.x', encoder.encode(''), { id });
    await waitFor(() => calls.length >= 4);
    // Long enough for any ack timeout of the last message to come back as a redelivery.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(calls).toEqual(['m0#1', 'm1#1', 'm2#1', 'm3#1']);
    expect(transport.stats()).toMatchObject({ delivered: 4, redelivered: 0, deadLettered: 0 });
    await transport.close();
  }, 30_000);

  it('stops within stopTimeoutMs of a hung handler, and its message goes to the next subscriber', async () => {
    const settings = { servers: server.url, stream: 'T9', subjects: ['t9.>'], ackWaitMs: 300, stopTimeoutMs: 400 };
    const first = await connectNatsTransport(settings);
    let started = false;
    const subscription = await first.subscribe(
      't9.x',
      async () => {
        started = true;
        await new Promise(() => {});
      },
      { durable: 'stuck' },
    );
    await first.publish('t9.x', encoder.encode(''), { id: 'h' });
    await waitFor(() => started);
    const stopping = Date.now();
    await subscription.stop();
    // stopTimeoutMs = 400; before the fix stop() waited for the handler, i.e. forever.
    expect(Date.now() - stopping).toBeLessThan(3000);
    const next: string[] = [];
    const second = await connectNatsTransport(settings);
    await second.subscribe('t9.x', (message) => void next.push(`${message.id}#${message.deliveryCount}`), {
      durable: 'stuck',
    });
    // The stopped subscriber's heartbeat no longer keeps the message: redelivered after ackWaitMs.
    await waitFor(() => next.length === 1);
    expect(next).toEqual(['h#2']);
    await first.close();
    await second.close();
  }, 30_000);

  it('waits for a handler that finishes within stopTimeoutMs and acknowledges its message', async () => {
    const settings = { servers: server.url, stream: 'T10', subjects: ['t10.>'], ackWaitMs: 300, stopTimeoutMs: 5000 };
    const first = await connectNatsTransport(settings);
    let started = false;
    let finished = false;
    const subscription = await first.subscribe(
      't10.x',
      async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 600));
        finished = true;
      },
      { durable: 'slow-stop' },
    );
    await first.publish('t10.x', encoder.encode(''), { id: 's' });
    await waitFor(() => started);
    await subscription.stop();
    expect(finished).toBe(true);
    const next: string[] = [];
    const second = await connectNatsTransport(settings);
    await second.subscribe('t10.x', (message) => void next.push(message.id), { durable: 'slow-stop' });
    // Long enough for an unacknowledged message to come back (ackWaitMs 300).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(next).toEqual([]);
    await first.close();
    await second.close();
  }, 30_000);

  it('refuses a negative stopTimeoutMs, naming it', async () => {
    await expect(
      connectNatsTransport({ servers: server.url, stream: 'T11', subjects: ['t11.>'], stopTimeoutMs: -1 }),
    ).rejects.toThrow(/options\.stopTimeoutMs/);
  });

  it('with work-queue retention, shares one durable between two connections and removes each message once acknowledged', async () => {
    const workers = await Promise.all(
      [0, 1].map(() =>
        connectNatsTransport({ servers: server.url, stream: 'T12', subjects: ['t12.>'], retention: 'workqueue' }),
      ),
    );
    const handled: string[] = [];
    for (const worker of workers)
      await worker.subscribe('t12.tasks', (message) => void handled.push(message.id), { durable: 'queue' });
    for (let index = 0; index < 6; index++)
      await workers[0]?.publish('t12.tasks', encoder.encode(`task ${index}`), { id: `task-${index}` });
    await waitFor(() => handled.length >= 6);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Each of the 6 handled once across both connections.
    expect([...handled].sort()).toEqual(['task-0', 'task-1', 'task-2', 'task-3', 'task-4', 'task-5']);
    const nats = await import('nats');
    const connection = await nats.connect({ servers: server.url });
    const info = await (await connection.jetstreamManager()).streams.info('T12');
    await connection.close();
    // A limits stream keeps all 6 after delivery; a work queue none once they are acknowledged.
    expect(info.config.retention).toBe('workqueue');
    expect(info.state.messages).toBe(0);
    for (const worker of workers) await worker.close();
  });

  /** The consumer's info on the server, or undefined once it does not exist. */
  const consumerInfo = async (stream: string, name: string) => {
    const nats = await import('nats');
    const connection = await nats.connect({ servers: server.url });
    try {
      return await (await connection.jetstreamManager()).consumers.info(stream, name).catch(() => undefined);
    } finally {
      await connection.close();
    }
  };

  it('deletes a durable with deleteDurable (stopping its subscriber), and sets the inactive threshold on every consumer', async () => {
    const transport = await connectNatsTransport({ servers: server.url, stream: 'T14', subjects: ['t14.>'] });
    const seen: string[] = [];
    await transport.subscribe('t14.x', (message) => void seen.push(message.id), { durable: 'run-14' });
    await transport.publish('t14.x', encoder.encode(''), { id: 'before' });
    await waitFor(() => seen.length === 1);
    // 1 hour = 3,600,000 ms = 3.6e12 ns, as JetStream stores it.
    expect(defaultInactiveThresholdMs).toBe(3_600_000);
    expect((await consumerInfo('T14', 'run-14'))?.config.inactive_threshold).toBe(3_600_000 * 1_000_000);
    expect(await transport.deleteDurable('run-14')).toBe(true);
    expect(await consumerInfo('T14', 'run-14')).toBeUndefined();
    // Its subscriber was stopped first: a message published now reaches nobody.
    await transport.publish('t14.x', encoder.encode(''), { id: 'after' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).toEqual(['before']);
    expect(await transport.deleteDurable('run-14')).toBe(false);
    // Re-created later, it is a new consumer at the first message the stream holds (limits: both).
    const again: string[] = [];
    await transport.subscribe('t14.x', (message) => void again.push(message.id), { durable: 'run-14' });
    await waitFor(() => again.length === 2);
    expect(again).toEqual(['before', 'after']);
    await transport.close();
    // close() detaches without deleting: a restarted process resumes this durable.
    expect(await consumerInfo('T14', 'run-14')).toBeDefined();
  }, 30_000);

  it("expires a SIGKILLed process's consumer after inactiveThresholdMs, and keeps a live one whose handler outlasts it", async () => {
    const module = pathToFileURL(join(process.cwd(), 'src/transport/nats-transport.ts')).href;
    // The crashed process: subscribes under `crashed` with a 1 s threshold, then is killed mid-handler.
    const script = `const { connectNatsTransport } = await import(${JSON.stringify(module)});
const transport = await connectNatsTransport({ servers: ${JSON.stringify(server.url)}, stream: 'T15', subjects: ['t15.>'], inactiveThresholdMs: 1000 });
await transport.subscribe('t15.crashed', () => { console.log('handling'); return new Promise(() => {}); }, { durable: 'crashed' });
console.log('ready');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    await waitFor(() => stdout.includes('ready'), 20_000);
    const transport = await connectNatsTransport({
      servers: server.url,
      stream: 'T15',
      subjects: ['t15.>'],
      inactiveThresholdMs: 1000,
      ackWaitMs: 300,
    });
    // A live subscriber whose handler takes 3 s, three thresholds: its client keeps pulling meanwhile.
    const handled: string[] = [];
    await transport.subscribe(
      't15.live',
      async (message) => {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        handled.push(message.id);
      },
      { durable: 'live' },
    );
    await transport.publish('t15.crashed', encoder.encode(''), { id: 'c1' });
    await transport.publish('t15.live', encoder.encode(''), { id: 'l1' });
    await waitFor(() => stdout.includes('handling'));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // 1000 ms = 1e9 ns on the consumer the killed process created.
    expect((await consumerInfo('T15', 'crashed'))?.config.inactive_threshold).toBe(1_000_000_000);
    const killedAt = Date.now();
    let gone = false;
    while (!gone && Date.now() - killedAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      gone = (await consumerInfo('T15', 'crashed')) === undefined;
    }
    expect(gone).toBe(true);
    await waitFor(() => handled.length === 1);
    expect(handled).toEqual(['l1']);
    expect(await consumerInfo('T15', 'live')).toBeDefined();
    expect(await transport.deleteDurable('live')).toBe(true);
    await transport.close();
  }, 40_000);

  it('deletes its stream with deleteStream (its messages and every consumer on it), and refuses to publish to it afterwards', async () => {
    const transport = await connectNatsTransport({ servers: server.url, stream: 'T17', subjects: ['t17.>'] });
    const other = await connectNatsTransport({ servers: server.url, stream: 'T17', subjects: ['t17.>'] });
    const seen: string[] = [];
    await transport.subscribe('t17.x', (message) => void seen.push(message.id), { durable: 'here' });
    // A consumer another connection (another process of the run) created and detached from.
    await (await other.subscribe('t17.x', () => {}, { durable: 'there' })).stop();
    await transport.publish('t17.x', encoder.encode(''), { id: 'm1' });
    await waitFor(() => seen.length === 1);
    const nats = await import('nats');
    const connection = await nats.connect({ servers: server.url });
    const manager = await connection.jetstreamManager();
    const streamNames = async () => (await manager.streams.list().next()).map((info) => info.config.name);
    expect(await streamNames()).toContain('T17');
    expect(await transport.deleteStream()).toBe(true);
    expect(await streamNames()).not.toContain('T17');
    expect(await consumerInfo('T17', 'here')).toBeUndefined();
    expect(await consumerInfo('T17', 'there')).toBeUndefined();
    await expect(transport.publish('t17.x', encoder.encode(''), { id: 'm2' })).rejects.toThrow(
      /JetStream stream T17 was deleted \(deleteStream\); connect a new transport/,
    );
    await expect(transport.deleteDurable('here')).rejects.toThrow(TransportError);
    // Deleted once: a second call, here or from the other connection, finds no stream.
    expect(await transport.deleteStream()).toBe(false);
    expect(await other.deleteStream()).toBe(false);
    await connection.close();
    await transport.close();
    await other.close();
  }, 30_000);

  it('refuses an inactiveThresholdMs under 1000, naming it', async () => {
    await expect(
      connectNatsTransport({ servers: server.url, stream: 'T16', subjects: ['t16.>'], inactiveThresholdMs: 10 }),
    ).rejects.toThrow(/options\.inactiveThresholdMs/);
  });

  it('refuses an unknown retention, naming it', async () => {
    await expect(
      connectNatsTransport({
        servers: server.url,
        stream: 'T13',
        subjects: ['t13.>'],
        retention: 'interest' as unknown as 'workqueue',
      }),
    ).rejects.toThrow(/options\.retention must be 'limits' or 'workqueue'/);
  });
});
