import { describe, expect, it } from 'vitest';
import type { Acted, Agent } from '../../agents/agent.js';
import { ProviderError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import { createTracer } from '../../core/trace.js';
import { createCircuitBreakers } from '../circuit-breaker.js';
import { gatherStep } from './gather-step.js';

const task: Task = { id: 't1', kind: 'number', prompt: 'What is 2 + 2?' };
const usage = { inputTokens: 10, outputTokens: 5, cost: 0, cached: false };

/** An agent whose proposals are settled by the test, one per call. */
function heldAgent(id: string) {
  const pending: Array<{ resolve: (value: Acted<Proposal>) => void; reject: (error: unknown) => void }> = [];
  let calls = 0;
  const agent = {
    identity: { id, model: 'held' },
    kind: 'simulated',
    propose: () =>
      new Promise<Acted<Proposal>>((resolve, reject) => {
        calls += 1;
        pending.push({ resolve, reject });
      }),
  } as unknown as Agent;
  return {
    agent,
    calls: () => calls,
    answer(answer: string | null) {
      pending
        .shift()
        ?.resolve({ value: { agentId: id, taskId: 't1', round: 0, text: `I say ${answer}`, answer }, usage });
    },
    fail() {
      pending
        .shift()
        ?.reject(new ProviderError({ provider: 'test', attempts: 1, reason: 'network', message: `${id} is down` }));
    },
  };
}

/** A deadline timer the test fires by hand. */
function manualTimer() {
  const timers: Array<{ ms: number; fire: () => void }> = [];
  return {
    wait: (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        timers.push({ ms, fire: resolve });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    fire: () => timers.shift()?.fire(),
    armed: () => timers.map((timer) => timer.ms),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('gatherStep', () => {
  it('decides at the quorum without the slow agent, and delivers its answer later', async () => {
    const [fast1, fast2, slow] = [heldAgent('fast1'), heldAgent('fast2'), heldAgent('slow')];
    let time = 1000;
    const gathering = gatherStep({
      agents: [fast1.agent, fast2.agent, slow.agent],
      task,
      tracer: createTracer(),
      quorum: 2,
      now: () => time,
    });
    await tick();
    fast2.answer('4');
    time = 1040;
    fast1.answer('4');
    const round = await gathering;
    expect(round.endedBy).toBe('quorum');
    expect(round.proposals.map((proposal) => proposal.agentId)).toEqual(['fast1', 'fast2']);
    expect(round.skipped).toEqual([{ agentId: 'slow', reason: 'quorum', waitedMs: 40 }]);
    slow.answer('5');
    const late = await round.late;
    expect(late.proposals).toEqual([{ agentId: 'slow', taskId: 't1', round: 0, text: 'I say 5', answer: '5' }]);
    expect(late.usage).toHaveLength(1);
  });

  it('a reply without an answer does not count towards the quorum', async () => {
    const [a, b, c] = [heldAgent('a'), heldAgent('b'), heldAgent('c')];
    const gathering = gatherStep({ agents: [a.agent, b.agent, c.agent], task, tracer: createTracer(), quorum: 2 });
    let done = false;
    void gathering.then(() => {
      done = true;
    });
    await tick();
    a.answer(null);
    b.answer('4');
    await tick();
    expect(done).toBe(false);
    c.answer('4');
    expect((await gathering).endedBy).toBe('all');
  });

  it('decides at the deadline with what it has; the timer is armed with deadlineMs', async () => {
    const [a, b] = [heldAgent('a'), heldAgent('b')];
    const timer = manualTimer();
    const gathering = gatherStep({
      agents: [a.agent, b.agent],
      task,
      tracer: createTracer(),
      deadlineMs: 2000,
      wait: timer.wait,
    });
    await tick();
    expect(timer.armed()).toEqual([2000]);
    a.answer('4');
    await tick();
    timer.fire();
    const round = await gathering;
    expect(round.endedBy).toBe('deadline');
    expect(round.skipped).toMatchObject([{ agentId: 'b', reason: 'deadline' }]);
    b.fail();
    const late = await round.late;
    expect(late.failures).toMatchObject([{ agentId: 'b', kind: 'provider' }]);
  });

  it('without quorum or deadline, waits for every agent (the old Propose round)', async () => {
    const [a, b] = [heldAgent('a'), heldAgent('b')];
    const gathering = gatherStep({ agents: [a.agent, b.agent], task, tracer: createTracer() });
    await tick();
    b.answer('4');
    a.fail();
    const round = await gathering;
    expect(round.endedBy).toBe('all');
    expect(round.skipped).toEqual([]);
    expect(round.failures).toMatchObject([{ agentId: 'a' }]);
    expect((await round.late).proposals).toEqual([]);
  });

  it('an agent failing 2 times in a row is not called while its circuit is open, then probed', async () => {
    let time = 0;
    const breakers = createCircuitBreakers({ now: () => time, failureThreshold: 2, cooldownMs: 5000 });
    const [good, dead] = [heldAgent('good'), heldAgent('dead')];
    const request = async () => {
      const gathering = gatherStep({ agents: [good.agent, dead.agent], task, tracer: createTracer(), breakers });
      await tick();
      good.answer('4');
      dead.fail();
      return gathering;
    };
    await request();
    time = 10;
    await request();
    expect(dead.calls()).toBe(2);
    time = 20;
    const skipping = gatherStep({ agents: [good.agent, dead.agent], task, tracer: createTracer(), breakers });
    await tick();
    good.answer('4');
    const round = await skipping;
    expect(dead.calls()).toBe(2);
    // Opened at t = 10 by the second failure: next probe at 10 + 5000.
    expect(round.skipped).toEqual([{ agentId: 'dead', reason: 'circuit-open', failures: 2, retryAt: 5010 }]);
    expect(round.proposals.map((proposal) => proposal.agentId)).toEqual(['good']);
    time = 5010;
    const probing = gatherStep({ agents: [good.agent, dead.agent], task, tracer: createTracer(), breakers });
    await tick();
    expect(dead.calls()).toBe(3);
    good.answer('4');
    dead.answer('4');
    await probing;
    expect(breakers.state('dead')).toEqual({ status: 'closed', failures: 0 });
  });

  it('the caller aborting while it gathers rejects; after the round, late calls are not aborted', async () => {
    const [a, b] = [heldAgent('a'), heldAgent('b')];
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const watching = {
      ...a.agent,
      propose: (request: { signal: AbortSignal }) => {
        signals.push(request.signal);
        return a.agent.propose(request as never);
      },
    } as Agent;
    const round = gatherStep({
      agents: [watching, b.agent],
      task,
      tracer: createTracer(),
      quorum: 1,
      signal: controller.signal,
    });
    await tick();
    b.answer('4');
    await round;
    controller.abort(new Error('client gone'));
    expect(signals[0]?.aborted).toBe(false);

    const [c] = [heldAgent('c')];
    const second = new AbortController();
    const gathering = gatherStep({ agents: [c.agent], task, tracer: createTracer(), signal: second.signal });
    await tick();
    second.abort(new Error('client gone'));
    c.answer('4');
    await expect(gathering).rejects.toThrow('client gone');
  });

  it('refuses a quorum of 0 and a deadline of 0, naming the field', async () => {
    await expect(gatherStep({ agents: [], task, tracer: createTracer(), quorum: 0 })).rejects.toThrow(
      /quorum must be an integer ≥ 1/,
    );
    await expect(gatherStep({ agents: [], task, tracer: createTracer(), deadlineMs: 0 })).rejects.toThrow(
      /deadlineMs must be a number of milliseconds > 0, got 0/,
    );
  });
});
