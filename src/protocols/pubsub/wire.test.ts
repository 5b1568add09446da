import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Agent } from '../../agents/agent.js';
import { DataFormatError, ProviderError, TransportError } from '../../core/errors.js';
// The redactor a node process uses (eval/ builds it from the environment; protocols/ only takes a function).
import { createEnvRedactor } from '../../llm/env-redactor.js';
import { createInProcessBus } from '../../transport/in-process-bus.js';
import { providerFailure } from '../debate/_act.js';
import { createScriptedAgent } from './_test-agents.js';
import { startRapsNode } from './node.js';
import {
  commandId,
  decodeReport,
  encodeWire,
  providerErrorFromWire,
  providerFailureReasons,
  providerFailureToWire,
  RapsWireError,
  rapsSubjects,
  type RapsCommand,
} from './wire.js';

const fakeKey = 'sk-test-abcdefghijklmnop1234';
const keyVariable = 'REPUTE_WIRE_TEST_API_KEY';
const where = { subject: 'raps.r.report', id: 'report:c1' };
const bytes = (value: unknown) => encodeWire(value);

afterEach(() => {
  delete process.env[keyVariable];
});

/** A `failed` report of schemaVersion 2 with a well-formed provider-failure record, `changes` merged into the record. */
function failedReport(changes: Record<string, unknown> = {}, version: unknown = 2) {
  return {
    schemaVersion: version,
    kind: 'failed',
    commandId: 'c1',
    agentId: 'A',
    error: 'A failed to publish: down',
    providerFailure: {
      act: 'propose',
      provider: 'openai-compatible',
      model: 'm',
      reason: 'http',
      status: 401,
      attempts: 1,
      message: 'down',
      ...changes,
    },
  };
}

describe('RAPS wire: provider-failure record of a failed report', () => {
  it('a node reports its model call that failed as a redacted provider-failure record the coordinator decodes back', async () => {
    process.env[keyVariable] = fakeKey;
    // A provider message that quotes a key the retry middleware did not know (another agent's variable).
    const thrown = new ProviderError({
      provider: 'openai-compatible',
      status: 429,
      attempts: 3,
      reason: 'http',
      message: `openai-compatible model "toy" failed after 3 attempts (last: HTTP 429: quota of ${fakeKey} used up); wait and rerun`,
    });
    const scripted = createScriptedAgent({ id: 'A', answer: '4' });
    const agent: Agent = {
      ...scripted,
      propose: async () => {
        throw thrown;
      },
    };
    const bus = createInProcessBus();
    const node = await startRapsNode({
      transport: bus,
      runId: 'r',
      agent,
      redact: createEnvRedactor([keyVariable]),
    });
    const subjects = rapsSubjects('r');
    const raw: Array<{ data: Uint8Array; id: string; subject: string }> = [];
    await bus.subscribe(subjects.reports, (message) => void raw.push(message), { durable: 'test' });
    const command: RapsCommand = {
      schemaVersion: 1,
      kind: 'publish',
      id: commandId('r', 't', 0, 'publish', 'A'),
      runId: 'r',
      agentId: 'A',
      round: 0,
      task: { id: 't', kind: 'number', prompt: '2 + 2?' },
      own: null,
      received: [],
    };
    await bus.publish(subjects.commands('A'), encodeWire(command), { id: 'c' });
    await vi.waitFor(() => expect(raw).toHaveLength(1), { timeout: 5000, interval: 1 });
    const delivered = raw[0] as { data: Uint8Array; id: string; subject: string };

    // The key is gone from the bytes on the wire, replaced where it stood.
    const text = new TextDecoder().decode(delivered.data);
    expect(text).not.toContain(fakeKey);
    expect(text).not.toContain('sk-test-');
    const redactedMessage =
      'openai-compatible model "toy" failed after 3 attempts (last: HTTP 429: quota of [redacted] used up); wait and rerun';
    const report = decodeReport(delivered.data, { subject: delivered.subject, id: delivered.id });
    // Round 0 publication = a proposal; the model is the agent's (scripted agents are `model-<id>`).
    expect(report).toEqual({
      schemaVersion: 2,
      kind: 'failed',
      commandId: command.id,
      agentId: 'A',
      error: `A failed to publish: ${redactedMessage}`,
      providerFailure: {
        act: 'propose',
        provider: 'openai-compatible',
        model: 'model-A',
        reason: 'http',
        status: 429,
        attempts: 3,
        message: redactedMessage,
      },
    });
    expect(node.stats).toMatchObject({ failures: 1, providerFailures: 1 });

    // The coordinator's task failure record is the one the in-process path builds from the error itself.
    if (report.kind !== 'failed' || report.providerFailure === undefined)
      throw new Error('expected a provider failure');
    expect(providerFailure('A', report.providerFailure.act, 0, providerErrorFromWire(report.providerFailure))).toEqual({
      agentId: 'A',
      act: 'propose',
      round: 0,
      message: redactedMessage,
      kind: 'provider',
      status: 429,
      reason: 'http',
    });
    await node.stop();
  });

  it("an agent's own failure carries no provider-failure record", async () => {
    const scripted = createScriptedAgent({ id: 'A', answer: '4' });
    const agent: Agent = {
      ...scripted,
      refineSubscription: async () => {
        throw new Error('unusable reply');
      },
    };
    const bus = createInProcessBus();
    const node = await startRapsNode({ transport: bus, runId: 'r', agent });
    const subjects = rapsSubjects('r');
    const raw: Uint8Array[] = [];
    await bus.subscribe(subjects.reports, (message) => void raw.push(message.data), { durable: 'test' });
    const command: RapsCommand = {
      schemaVersion: 1,
      kind: 'refine',
      id: 'c2',
      runId: 'r',
      agentId: 'A',
      round: 0,
      current: 'x',
      received: [],
    };
    await bus.publish(subjects.commands('A'), encodeWire(command), { id: 'c2' });
    await vi.waitFor(() => expect(raw).toHaveLength(1), { timeout: 5000, interval: 1 });
    expect(decodeReport(raw[0] as Uint8Array, where)).toEqual({
      schemaVersion: 2,
      kind: 'failed',
      commandId: 'c2',
      agentId: 'A',
      error: 'A failed to refine: unusable reply',
    });
    expect(node.stats).toMatchObject({ failures: 1, providerFailures: 0 });
    await node.stop();
  });

  it('refuses a malformed provider-failure record with a TransportError naming the field and its value', () => {
    const decode = (value: unknown) => () => decodeReport(bytes(value), where);
    const cases: Array<[Record<string, unknown>, string, unknown]> = [
      [{ reason: 'quota' }, 'providerFailure.reason', 'quota'],
      [{ attempts: 0 }, 'providerFailure.attempts', 0],
      [{ status: 'HTTP 401' }, 'providerFailure.status', 'HTTP 401'],
      [{ act: 'vote' }, 'providerFailure.act', 'vote'],
      [{ provider: undefined }, 'providerFailure.provider', undefined],
      [{ extra: true }, 'providerFailure', failedReport({ extra: true }).providerFailure],
    ];
    for (const [changes, field, value] of cases) {
      let caught: unknown;
      try {
        decode(failedReport(changes))();
      } catch (error) {
        caught = error;
      }
      expect(caught, field).toBeInstanceOf(RapsWireError);
      expect(caught, field).toBeInstanceOf(TransportError);
      expect(caught).toMatchObject({ code: 'transport', field, value, subject: where.subject, id: where.id });
      expect((caught as Error).message).toContain(`field ${field} is`);
      expect((caught as Error).message).toContain('from agent "A"');
    }
    expect(decode({ ...failedReport(), providerFailure: 'HTTP 401' })).toThrow(
      /field providerFailure is "HTTP 401" \(.*\); the coordinator cannot tell whether that task's model call failed/,
    );
  });

  it('every ProviderError a model call can throw decodes at the coordinator, whatever its reason and HTTP status', () => {
    // Node's HTTP client passes any three-digit status on (a proxy's 999, a 6xx); other values
    // cannot come from HTTP and stay in the message only.
    const statuses: Array<[number | undefined, number | undefined]> = [
      [undefined, undefined],
      [200, 200],
      [401, 401],
      [599, 599],
      [600, 600],
      [999, 999],
      [0, undefined],
      [1000, undefined],
    ];
    for (const reason of providerFailureReasons)
      for (const [status, sent] of statuses) {
        const error = new ProviderError({
          provider: 'openai-compatible',
          attempts: 2,
          reason,
          message: `failed (${reason}, ${status})`,
          ...(status === undefined ? {} : { status }),
        });
        const providerFailure = providerFailureToWire(error, { act: 'audit', model: 'm', redact: (text) => text });
        const report = decodeReport(
          bytes({ schemaVersion: 2, kind: 'failed', commandId: 'c1', agentId: 'A', error: 'x', providerFailure }),
          where,
        );
        if (report.kind !== 'failed' || report.providerFailure === undefined) throw new Error('expected a record');
        const rebuilt = providerErrorFromWire(report.providerFailure);
        expect(
          { reason: rebuilt.reason, status: rebuilt.status, attempts: rebuilt.attempts },
          `${reason} ${status}`,
        ).toEqual({
          reason,
          status: sent,
          attempts: 2,
        });
        expect(rebuilt.message).toBe(`failed (${reason}, ${status})`);
      }
  });

  it('refuses a report of the older schema version 1 with a TransportError that says to run one build', () => {
    let caught: unknown;
    try {
      decodeReport(bytes({ schemaVersion: 1, kind: 'failed', commandId: 'c1', agentId: 'A', error: 'down' }), where);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RapsWireError);
    expect(caught).toMatchObject({ code: 'transport', field: 'schemaVersion', value: 1 });
    expect((caught as Error).message).toMatch(
      /report report:c1 on raps\.r\.report has schemaVersion 1, but this coordinator reads RAPS reports of schemaVersion 2 only .* start the coordinator and every agent process from the same build/,
    );
  });

  it('leaves other malformed reports to the ordinary DataFormatError (counted and dropped)', () => {
    const decode = () => decodeReport(bytes({ schemaVersion: 2, kind: 'audited', commandId: 'c' }), where);
    expect(decode).toThrow(DataFormatError);
    expect(decode).toThrow(/message report:c1 rejected: field/);
    expect(() => decodeReport(new TextEncoder().encode('{nope'), where)).toThrow(DataFormatError);
    // A version no build has sent is junk on the subject, not another build: dropped, the run goes on.
    const junk = () => decodeReport(bytes({ schemaVersion: 7, kind: 'audited' }), where);
    expect(junk).toThrow(DataFormatError);
    expect(junk).not.toThrow(RapsWireError);
  });
});
