import { describe, expect, it } from 'vitest';
import type { Task } from '../../core/task.js';
import { createInProcessBus } from '../../transport/in-process-bus.js';
import { createScriptedAgent } from './_test-agents.js';
import { deleteFinishedRapsRun, deleteRapsDurables, rapsDurables } from './raps-durables.js';
import { runRaps, type RunRapsOptions } from './run-raps.js';

const agents = () => [
  createScriptedAgent({ id: 'A', answer: '4' }),
  createScriptedAgent({ id: 'B', answer: '4' }),
  createScriptedAgent({ id: 'C', answer: '9' }),
];
const task = (id: string): Task => ({ id, kind: 'number', prompt: 'What is 2 + 2?' });

function options(taskId: string, transport: RunRapsOptions['transport']): RunRapsOptions {
  const team = agents();
  return {
    agents: team.map((agent) => agent.identity),
    hostAgents: team,
    subscriptions: { A: 'arithmetic answers', B: 'arithmetic answers', C: 'arithmetic answers' },
    tasks: [task(taskId)],
    runId: 'wire-1',
    topK: 2,
    maxRounds: 2,
    doneQuorum: 1,
    refine: false,
    witness: false,
    ...(transport === undefined ? {} : { transport }),
  };
}

describe('deleteRapsDurables', () => {
  it("deletes a run's consumers once, which runRaps itself must not do: a second runRaps on the wire run resumes them", async () => {
    const bus = createInProcessBus();
    const first = await runRaps(options('t1', bus));
    // Each task takes 2 rounds (round 1 repeats every answer: DONE), 3 publications a round.
    expect(first.rounds).toHaveLength(2);
    // As a session does after a failed task: runRaps again on the same transport and wire run.
    const second = await runRaps(options('t2', bus));
    expect(second.totals.malformed).toBe(0);
    // The coordinator's 2 consumers and one node consumer per agent (3).
    expect(rapsDurables('wire-1').publications).toBe('coordinator-pub-wire-1');
    expect(await deleteRapsDurables(bus, 'wire-1', ['A', 'B', 'C'])).toBe(5);
    expect(await deleteRapsDurables(bus, 'wire-1', ['A', 'B', 'C'])).toBe(0);
    // Why runRaps only detaches: on deleted consumers a third call starts over at the first message,
    // and the 2 tasks × 2 rounds × 3 = 12 earlier publications come back as not requested.
    const third = await runRaps(options('t3', bus));
    expect(third.totals.malformed).toBe(12);
    expect(third.decisions[0]?.answer).toBe('4');
    await bus.close();
  });

  it('deleteFinishedRapsRun deletes the consumers, then the stream: the wire run cannot be run on again', async () => {
    const bus = createInProcessBus();
    await runRaps(options('t1', bus));
    // The coordinator's 2 consumers and one per agent (3), then the bus's log.
    expect(await deleteFinishedRapsRun(bus, 'wire-1', ['A', 'B', 'C'])).toEqual({ durables: 5, stream: true });
    await expect(runRaps(options('t2', bus))).rejects.toThrow(/bus was deleted \(deleteStream\)/);
    expect(await bus.deleteStream()).toBe(false);
    await bus.close();
  });
});
