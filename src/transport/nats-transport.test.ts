import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../core/errors.js';
import { connectNatsTransport } from './nats-transport.js';
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
});
