import { describe, expect, it, vi } from 'vitest';
import { createRng } from '../core/rng.js';
import { createDeduplicator } from './dedupe.js';
import { createInProcessBus } from './in-process-bus.js';
import { subjectMatches } from './subject.js';

const encoder = new TextEncoder();
// Waits for a condition instead of a fixed sleep: polls every ms until `check` stops throwing (fails after 5 s).
const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 5000, interval: 1 });
// One turn of the event loop: lets pending deliveries (queued with setImmediate) run.
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('createInProcessBus', () => {
  it('keeps messages for a durable subscriber that attaches later, in order, once per id', async () => {
    const bus = createInProcessBus();
    await bus.publish('raps.r.pub', encoder.encode('1'), { id: 'm1' });
    await bus.publish('raps.r.other', encoder.encode('x'), { id: 'm2' });
    await bus.publish('raps.r.pub', encoder.encode('1 again'), { id: 'm1' });
    await bus.publish('raps.r.pub', encoder.encode('3'), { id: 'm3' });
    const seen: string[] = [];
    await bus.subscribe('raps.r.pub', (message) => void seen.push(`${message.id}#${message.deliveryCount}`), {
      durable: 'd',
    });
    // Deliveries are in order, so a second m1 would show up before m3.
    await waitFor(() => expect(seen).toContain('m3#1'));
    expect(seen).toEqual(['m1#1', 'm3#1']);
    expect(bus.stats()).toMatchObject({ published: 3, duplicatePublishes: 1, delivered: 2 });
  });

  it('redelivers after a handler error and dead-letters after maxDeliver', async () => {
    const bus = createInProcessBus({ maxDeliver: 3, redeliveryDelayMs: 0 });
    const attempts: number[] = [];
    await bus.subscribe(
      's.>',
      (message) => {
        attempts.push(message.deliveryCount);
        throw new Error('boom');
      },
      { durable: 'd' },
    );
    await bus.publish('s.x', encoder.encode(''), { id: 'm' });
    await waitFor(() => expect(bus.stats().deadLettered).toBe(1));
    expect(attempts).toEqual([1, 2, 3]);
    expect(bus.stats()).toMatchObject({ handlerErrors: 3, deadLettered: 1, redelivered: 2 });
  });

  it('gives an unacknowledged message to the next subscriber of the durable after a stop', async () => {
    const bus = createInProcessBus();
    let release: () => void = () => {};
    let handling: () => void = () => {};
    const firstHandlerCalled = new Promise<void>((resolve) => (handling = resolve));
    const first = await bus.subscribe(
      's',
      () => {
        handling();
        return new Promise<void>((resolve) => (release = resolve));
      },
      { durable: 'd' },
    );
    await bus.publish('s', encoder.encode(''), { id: 'm' });
    await firstHandlerCalled;
    await first.stop();
    const seen: number[] = [];
    await bus.subscribe('s', (message) => void seen.push(message.deliveryCount), { durable: 'd' });
    await waitFor(() => expect(seen).toHaveLength(1));
    // The stopped subscriber's handler finishing late must not acknowledge or deliver anything again.
    release();
    await nextTurn();
    await nextTurn();
    expect(bus.stats()).toMatchObject({ delivered: 2, redelivered: 1 });
    expect(seen).toEqual([2]);
  });

  it('delivers duplicates under lost acks, which a deduplicator absorbs', async () => {
    const bus = createInProcessBus({ lostAckRate: 0.5, rng: createRng(7) });
    const dedupe = createDeduplicator(100);
    const handled: string[] = [];
    let deliveries = 0;
    await bus.subscribe(
      's',
      (message) => {
        deliveries++;
        if (dedupe.firstTime(message.id)) handled.push(message.id);
      },
      { durable: 'd' },
    );
    for (let index = 0; index < 20; index++) await bus.publish('s', encoder.encode(''), { id: `m${index}` });
    // A lost ack redelivers before the cursor moves on, so m19 handled means every message was.
    await waitFor(() => expect(handled).toContain('m19'));
    expect(handled).toEqual(Array.from({ length: 20 }, (_, index) => `m${index}`));
    expect(deliveries).toBeGreaterThan(20);
    expect(dedupe.duplicates).toBe(deliveries - 20);
  });

  it('deletes a durable with deleteDurable: its subscriber stops, and a new one starts at the first message', async () => {
    const bus = createInProcessBus();
    const seen: string[] = [];
    await bus.subscribe('r.x', (message) => void seen.push(message.id), { durable: 'run' });
    await bus.publish('r.x', encoder.encode('1'), { id: 'm1' });
    await waitFor(() => expect(seen).toEqual(['m1']));
    expect(await bus.deleteDurable('run')).toBe(true);
    await bus.publish('r.x', encoder.encode('2'), { id: 'm2' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(['m1']);
    expect(await bus.deleteDurable('run')).toBe(false);
    // A stop keeps the durable's position; after a delete the next subscriber gets the whole log again.
    const again: string[] = [];
    await bus.subscribe('r.x', (message) => void again.push(message.id), { durable: 'run' });
    await waitFor(() => expect(again).toEqual(['m1', 'm2']));
    await bus.close();
  });

  it('deletes its log and every durable with deleteStream, and refuses use afterwards', async () => {
    const bus = createInProcessBus();
    const seen: string[] = [];
    await bus.subscribe('r.x', (message) => void seen.push(message.id), { durable: 'run' });
    await bus.publish('r.x', encoder.encode('1'), { id: 'm1' });
    await waitFor(() => expect(seen).toEqual(['m1']));
    expect(await bus.deleteStream()).toBe(true);
    await expect(bus.publish('r.x', encoder.encode('2'), { id: 'm2' })).rejects.toThrow(
      /bus was deleted \(deleteStream\); create a new one/,
    );
    await expect(bus.subscribe('r.x', () => {}, { durable: 'run' })).rejects.toThrow(/bus was deleted/);
    await expect(bus.deleteDurable('run')).rejects.toThrow(/bus was deleted/);
    expect(await bus.deleteStream()).toBe(false);
    expect(seen).toEqual(['m1']);
    await bus.close();
  });

  it('refuses bad subjects, missing ids and use after close', async () => {
    const bus = createInProcessBus();
    await expect(bus.publish('a..b', encoder.encode(''), { id: 'x' })).rejects.toThrow(
      /subject must be a dot-separated subject/,
    );
    await expect(bus.publish('a.*', encoder.encode(''), { id: 'x' })).rejects.toThrow(/without wildcards/);
    await expect(bus.publish('a', encoder.encode(''), { id: '' })).rejects.toThrow(
      /options.id must be a non-empty string/,
    );
    await bus.close();
    await expect(bus.publish('a', encoder.encode(''), { id: 'x' })).rejects.toThrow(/bus is closed/);
  });
});

describe('subjectMatches', () => {
  it('follows the NATS wildcard rules', () => {
    expect(subjectMatches('raps.*.pub', 'raps.r1.pub')).toBe(true);
    expect(subjectMatches('raps.>', 'raps.r1.cmd.a')).toBe(true);
    expect(subjectMatches('raps.>', 'raps')).toBe(false);
    expect(subjectMatches('raps.*', 'raps.r1.pub')).toBe(false);
    expect(subjectMatches('raps.r1.pub', 'raps.r1.pub')).toBe(true);
  });
});

describe('createDeduplicator', () => {
  it('forgets the oldest ids beyond its capacity', () => {
    const dedupe = createDeduplicator(2);
    expect([
      dedupe.firstTime('a'),
      dedupe.firstTime('b'),
      dedupe.firstTime('a'),
      dedupe.firstTime('c'),
      dedupe.firstTime('a'),
    ]).toEqual([true, true, false, true, true]);
  });
});
