import { describe, expect, it, vi } from 'vitest';
import { createInProcessBus } from '../../transport/in-process-bus.js';
import { createScriptedAgent } from './_test-agents.js';
import { startRapsNode } from './node.js';
import { commandId, encodeWire, rapsSubjects, type RapsCommand } from './wire.js';

// Waits for a condition instead of a fixed sleep: polls every ms until `check` stops throwing (fails after 5 s).
const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 5000, interval: 1 });

/** The `deliver` command of run r that hands agent A the publication of `from` on task t (answer 9). */
function deliverToA(from: string): RapsCommand {
  const message = {
    schemaVersion: 1 as const,
    id: `t:0:${from}`,
    from,
    round: 0,
    taskId: 't',
    text: 'nine',
    answer: '9',
  };
  return {
    schemaVersion: 1,
    kind: 'deliver',
    id: commandId('r', 't', 0, 'deliver', 'A', message.id),
    runId: 'r',
    agentId: 'A',
    round: 0,
    task: null,
    message,
  };
}

describe('startRapsNode', () => {
  it('audits each delivered publication once even when the command is redelivered, and re-sends its report', async () => {
    const bus = createInProcessBus();
    const agent = createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'] });
    const node = await startRapsNode({ transport: bus, runId: 'r', agent });
    const subjects = rapsSubjects('r');
    const reports: string[] = [];
    await bus.subscribe(subjects.reports, (message) => void reports.push(new TextDecoder().decode(message.data)), {
      durable: 'test',
    });
    const command = deliverToA('C');
    // The same command twice under different transport ids (a coordinator retry).
    await bus.publish(subjects.commands('A'), encodeWire(command), { id: 'first' });
    await bus.publish(subjects.commands('A'), encodeWire(command), { id: 'second' });
    // Done when the duplicate's re-sent report reached the bus (stored once) and the first report was delivered.
    await waitFor(() => {
      expect(bus.stats().duplicatePublishes).toBe(1);
      expect(reports.length).toBeGreaterThan(0);
    });
    expect(agent.audited).toEqual(['t:0:C']);
    expect(node.stats).toMatchObject({ handled: 1, duplicates: 1 });
    expect(reports).toHaveLength(1); // the re-sent report has the same id and is stored once
    expect(JSON.parse(reports[0]!)).toMatchObject({ kind: 'audited', agentId: 'A', subject: 'C', reliable: false });
    await node.stop();
  });

  it('a stopped node leaves its inbox where it was, so the next one resumes; after leave() the next starts over', async () => {
    const bus = createInProcessBus();
    const subjects = rapsSubjects('r');
    const deliver = async (from: string) => {
      const command = deliverToA(from);
      await bus.publish(subjects.commands('A'), encodeWire(command), { id: command.id });
    };
    const first = createScriptedAgent({ id: 'A', answer: '4' });
    const firstNode = await startRapsNode({ transport: bus, runId: 'r', agent: first });
    await deliver('B');
    await waitFor(() => expect(first.audited).toEqual(['t:0:B']));
    await firstNode.stop();
    // A command that arrives while no node of A runs waits in its inbox.
    await deliver('C');
    // A restarted node (an orchestrator's SIGTERM and restart) resumes: C only, B is not audited again.
    const second = createScriptedAgent({ id: 'A', answer: '4' });
    const secondNode = await startRapsNode({ transport: bus, runId: 'r', agent: second });
    await waitFor(() => expect(second.audited).toEqual(['t:0:C']));
    expect(secondNode.stats).toMatchObject({ handled: 1 });
    // leave() deletes the inbox's consumer: a node of A after it starts at the first command.
    await secondNode.stop();
    expect(await secondNode.leave()).toBe(true);
    expect(await secondNode.leave()).toBe(false);
    const third = createScriptedAgent({ id: 'A', answer: '4' });
    const thirdNode = await startRapsNode({ transport: bus, runId: 'r', agent: third });
    await waitFor(() => expect(third.audited).toEqual(['t:0:B', 't:0:C']));
    await thirdNode.stop();
  });

  it('counts a malformed or misaddressed command, reports it and keeps serving', async () => {
    const bus = createInProcessBus();
    const errors: string[] = [];
    const agent = createScriptedAgent({ id: 'A', answer: '4' });
    const node = await startRapsNode({
      transport: bus,
      runId: 'r',
      agent,
      onError: (error) => errors.push(error.message),
    });
    const subjects = rapsSubjects('r');
    await bus.publish(subjects.commands('A'), new TextEncoder().encode('[]'), { id: 'bad-1' });
    await bus.publish(
      subjects.commands('A'),
      encodeWire({
        schemaVersion: 1,
        kind: 'refine',
        id: 'c',
        runId: 'r',
        agentId: 'B',
        round: 0,
        current: 'x',
        received: [],
      }),
      { id: 'bad-2' },
    );
    await bus.publish(
      subjects.commands('A'),
      encodeWire({
        schemaVersion: 1,
        kind: 'refine',
        id: 'c2',
        runId: 'r',
        agentId: 'A',
        round: 0,
        current: 'x',
        received: [],
      }),
      { id: 'good' },
    );
    await waitFor(() => expect(node.stats.malformed + node.stats.handled).toBe(3));
    expect(node.stats).toMatchObject({ malformed: 2, handled: 1 });
    expect(errors[0]).toMatch(/raps.r.cmd.A: message bad-1 rejected: field \(root\)/);
    expect(errors[1]).toMatch(/addressed to B in run r, not A in r/);
    await node.stop();
  });
});
