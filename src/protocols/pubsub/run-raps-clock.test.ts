import { describe, expect, it } from 'vitest';
import { TransportError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import { createInProcessBus } from '../../transport/in-process-bus.js';
import { createScriptedAgent } from './_test-agents.js';
import { runRaps } from './run-raps.js';

const task: Task = { id: 't1', kind: 'number', prompt: 'What is 2 + 2?' };

describe('runRaps reply deadlines', () => {
  it('measures replyTimeoutMs on the injected clock, not on wall time', async () => {
    // No node hosts any agent, so no command is ever answered. The clock moves 30 s per reading: the deadline
    // (reading k + 60 s) has passed two readings later, a few hundred wall-clock ms in; on Date.now this run
    // would wait the full 60 s and the test would time out.
    let readings = 0;
    const now = () => ++readings * 30_000;
    const agents = ['A', 'B'].map((id) => createScriptedAgent({ id, answer: '4' }));
    const started = performance.now();
    const running = runRaps({
      agents: agents.map((agent) => agent.identity),
      hostAgents: [],
      subscriptions: { A: 'arithmetic answers', B: 'arithmetic answers' },
      tasks: [task],
      transport: createInProcessBus(),
      replyTimeoutMs: 60_000,
      now,
    });
    await expect(running).rejects.toThrow(TransportError);
    await expect(running).rejects.toThrow(/no reply within 60000 ms to 2 command\(s\)/);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(readings).toBeGreaterThanOrEqual(3);
  });
});
