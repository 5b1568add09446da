import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { createReplayedAgent } from './replayed-agent.js';

const task = (id: string) => ({ id, kind: 'number' as const, prompt: `q ${id}` });

describe('createReplayedAgent', () => {
  const answers = new Map([
    ['t1', { text: 'so it is 42', answer: '42' }],
    ['t2', { text: 'no idea', answer: null }],
  ]);

  it('replays recorded answers and counts missing tasks once', async () => {
    const agent = createReplayedAgent({ identity: { id: 'a', model: 'm' }, answers });
    expect((await agent.propose({ task: task('t1') })).value).toEqual({
      agentId: 'a',
      taskId: 't1',
      round: 0,
      text: 'so it is 42',
      answer: '42',
    });
    expect((await agent.propose({ task: task('t2') })).value.answer).toBeNull();
    expect((await agent.propose({ task: task('t3') })).value.answer).toBeNull();
    await agent.propose({ task: task('t3') });
    expect(agent.missing()).toEqual(['t3']);
    const own = (await agent.propose({ task: task('t1') })).value;
    expect((await agent.revise({ task: task('t1'), round: 2, own, peers: [] })).value).toMatchObject({
      round: 2,
      answer: '42',
    });
  });

  it('rates and audits by agreement with its own recorded answer', async () => {
    const agent = createReplayedAgent({ identity: { id: 'a', model: 'm' }, answers });
    const other = { agentId: 'b', taskId: 't1', round: 0, text: '', answer: '42' };
    expect((await agent.rate({ task: task('t1'), proposal: other })).value.score).toBe(1);
    expect((await agent.rate({ task: task('t1'), proposal: { ...other, answer: '41' } })).value.score).toBe(0);
    expect(
      (
        await agent.audit({
          message: { schemaVersion: 1, id: 'm', from: 'b', round: 0, taskId: 't1', text: '', answer: '41' },
        })
      ).value.reliable,
    ).toBe(false);
  });

  it('refuses answers that are not a Map', () => {
    expect(() => createReplayedAgent({ identity: { id: 'a', model: 'm' }, answers: {} as never })).toThrow(
      InvalidArgumentError,
    );
  });
});
