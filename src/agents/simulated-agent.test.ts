import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { ReferencedTask } from '../core/task.js';
import { createSimulatedAgent, peerPlurality, simulatedAccuracy, type SimulatedProfile } from './simulated-agent.js';
import { createSimulationWorld } from './simulation-world.js';

function makeTasks(count: number, difficulty = 0.5): ReferencedTask[] {
  return Array.from({ length: count }, (_, index) => ({
    task: { id: `t${index}`, kind: 'number' as const, prompt: `What is ${index} + 100?`, difficulty },
    reference: String(index + 100),
  }));
}

describe('simulatedAccuracy', () => {
  it('is the skill at difficulty 0.5 and logistic around it', () => {
    expect(simulatedAccuracy({ skill: 0.7 }, 0.5)).toBeCloseTo(0.7, 12);
    // logit(0.7) = ln(0.7/0.3) = 0.847298; at d = 1 with slope 4: σ(0.847298 − 2) = 1 / (1 + e^1.152702)
    // e^1.152702 = 3.166667 (= 0.3/0.7 · e^2 = 0.428571 · 7.389056), so 1 / 4.166667 = 0.240000
    expect(simulatedAccuracy({ skill: 0.7, slope: 4 }, 1)).toBeCloseTo(0.24, 5);
    // Default slope 6: σ(0.847298 − 3) = 1 / (1 + e^2.152702) = 1 / (1 + 0.428571 · e^3 = 8.608167) = 0.104078
    expect(simulatedAccuracy({ skill: 0.7 }, 1)).toBeCloseTo(0.104078, 5);
    expect(simulatedAccuracy({ skill: 0.7, slope: 0 }, 1)).toBeCloseTo(0.7, 12);
  });

  it('never increases with difficulty', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (skill, a, b) => {
          const [easy, hard] = a <= b ? [a, b] : [b, a];
          expect(simulatedAccuracy({ skill }, hard)).toBeLessThanOrEqual(simulatedAccuracy({ skill }, easy) + 1e-12);
        },
      ),
    );
  });
});

describe('createSimulatedAgent', () => {
  const tasks = makeTasks(2000);
  const world = createSimulationWorld({ tasks, seed: 11 });
  /** Agent `id` of `model` with `profile` in the shared world, seeded with `seed`. */
  const simulated = (id: string, model: string, profile: SimulatedProfile, seed: number, latencyMs?: number) =>
    createSimulatedAgent({
      identity: { id, model },
      profile,
      world,
      seed,
      ...(latencyMs === undefined ? {} : { latencyMs }),
    });

  it('answers right at about its accuracy and never right when it fails to parse', async () => {
    const agent = simulated('a', 'm', { skill: 0.7, parseFailureRate: 0.05 }, 3);
    let correct = 0;
    let unparsed = 0;
    for (const { task } of tasks) {
      const { value, usage } = await agent.propose({ task });
      expect(usage).toEqual({ inputTokens: 0, outputTokens: 0, cost: 0, cached: false });
      if (value.answer === null) unparsed++;
      else if (world.isCorrect(task.id, value.answer)) correct++;
    }
    // Expected correct rate (1 − 0.05) · 0.7 = 0.665; sd of the mean over 2000 = sqrt(0.665·0.335/2000) = 0.0106.
    expect(Math.abs(correct / 2000 - 0.665)).toBeLessThan(0.045);
    // Parse failures 0.05, sd 0.0049.
    expect(Math.abs(unparsed / 2000 - 0.05)).toBeLessThan(0.02);
  });

  it('gives the same answers whatever the call order', async () => {
    const make = () => simulated('a', 'm', { skill: 0.5 }, 9);
    const forward = await Promise.all(tasks.slice(0, 50).map(({ task }) => make().propose({ task })));
    const agent = make();
    const backward: string[] = [];
    for (const { task } of tasks.slice(0, 50).reverse())
      backward.unshift(JSON.stringify((await agent.propose({ task })).value));
    expect(forward.map((acted) => JSON.stringify(acted.value))).toEqual(backward);
  });

  it('makes clones share mistakes far more often than agents of different models', async () => {
    const profile = { skill: 0.4, parseFailureRate: 0, cloneCorrelation: 0.8 };
    const clone1 = simulated('c1', 'same', profile, 5);
    const clone2 = simulated('c2', 'same', profile, 5);
    const other = simulated('o1', 'other', profile, 5);
    let cloneAgree = 0;
    let crossAgree = 0;
    for (const { task } of tasks) {
      const [a, b, c] = await Promise.all([
        clone1.propose({ task }),
        clone2.propose({ task }),
        other.propose({ task }),
      ]);
      if (a.value.answer === b.value.answer) cloneAgree++;
      if (a.value.answer === c.value.answer) crossAgree++;
    }
    // With correlation 0.8 both clones use the shared draw of an act with probability 0.64, so their
    // agreement is at least 0.64 · 0.64 ≈ 0.41 (correctness and wrong answer both shared), while
    // agents of different models agree about 0.4² + 0.6² · P(wrong answers collide) ≈ 0.2.
    expect(cloneAgree / 2000).toBeGreaterThan(crossAgree / 2000 + 0.15);
  });

  it('makes payload adversaries push one shared wrong answer with a false agreement claim', async () => {
    const profile = { skill: 0.9, adversary: { strategy: 'payload' as const } };
    const x = simulated('x', 'mx', profile, 1);
    const y = simulated('y', 'my', profile, 2);
    for (const { task } of tasks.slice(0, 200)) {
      const [a, b] = await Promise.all([x.propose({ task }), y.propose({ task })]);
      expect(a.value.answer).toBe(b.value.answer);
      expect(world.isCorrect(task.id, a.value.answer)).toBe(false);
      expect(a.value.text).toContain('All other agents agree');
    }
  });

  it('lets a flip adversary propose honestly and switch to the payload when debating', async () => {
    const agent = simulated(
      'f',
      'mf',
      { skill: 0.99, slope: 0, parseFailureRate: 0, adversary: { strategy: 'flip' } },
      1,
    );
    const task = tasks[0]!.task;
    const first = (await agent.propose({ task })).value;
    expect(first.answer).toBe('100');
    const second = (await agent.revise({ task, round: 1, own: first, peers: [] })).value;
    expect(second.answer).toBe(world.payload(task.id));
  });

  it('switches to the peer plurality with probability conformity', async () => {
    const follower = simulated('f', 'm', { skill: 0.5, conformity: 1 }, 4);
    const stubborn = simulated('s', 'm', { skill: 0.5, conformity: 0 }, 4);
    const task = tasks[1]!.task;
    const own: Proposal = { agentId: 'f', taskId: task.id, round: 0, text: '', answer: '7' };
    const peers: Proposal[] = ['9', '9', '8', null].map((answer, index) => ({
      agentId: `p${index}`,
      taskId: task.id,
      round: 0,
      text: '',
      answer,
    }));
    expect((await follower.revise({ task, round: 1, own, peers })).value.answer).toBe('9');
    expect((await stubborn.revise({ task, round: 1, own, peers })).value.answer).toBe('7');
  });

  it('rates truthfully at judge accuracy 1 and adversaries rate only their coalition up', async () => {
    const judge = simulated('j', 'm', { skill: 0.5, judgeAccuracy: 1 }, 4);
    const adversary = simulated('x', 'mx', { skill: 0.5, adversary: { strategy: 'payload' } }, 4);
    const task = tasks[2]!.task;
    const right: Proposal = { agentId: 'p', taskId: task.id, round: 0, text: '', answer: '102' };
    const payload: Proposal = { ...right, answer: world.payload(task.id) };
    expect((await judge.rate({ task, proposal: right })).value.score).toBeGreaterThanOrEqual(0.8);
    expect((await judge.rate({ task, proposal: payload })).value.score).toBeLessThanOrEqual(0.2);
    expect((await adversary.rate({ task, proposal: right })).value.score).toBe(0);
    expect((await adversary.rate({ task, proposal: payload })).value.score).toBe(1);
    const audit = await judge.audit({
      message: { schemaVersion: 1, id: 'm1', from: 'x', round: 0, taskId: task.id, text: 'it is 5', answer: '5' },
    });
    expect(audit.value.reliable).toBe(false);
  });

  it('returns null, never throws, at a parse-failure rate of 1', async () => {
    const agent = simulated('a', 'm', { skill: 0.9, parseFailureRate: 1 }, 1);
    expect((await agent.propose({ task: tasks[0]!.task })).value.answer).toBeNull();
  });

  it('refuses bad profiles with the field named', () => {
    expect(() => simulated('a', 'm', { skill: 1.2 }, 1)).toThrow(InvalidArgumentError);
    expect(() => simulated('a', 'm', { skill: 0.5, conformity: -1 }, 1)).toThrow(/profile\.conformity/);
  });

  it('waits its latency and stops when aborted', async () => {
    const agent = simulated('a', 'm', { skill: 0.5 }, 1, 5_000);
    const controller = new AbortController();
    const pending = agent.propose({ task: tasks[0]!.task, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('peerPlurality', () => {
  it('picks the most common answer and breaks ties by the smallest key', () => {
    const make = (answer: string | null): Proposal => ({ agentId: 'p', taskId: 't', round: 0, text: '', answer });
    expect(peerPlurality([make('2'), make('1'), make('2')])).toBe('2');
    expect(peerPlurality([make('b'), make('a')])).toBe('a');
    expect(peerPlurality([make(null)])).toBeNull();
  });
});
