// Issue 36: the served endpoint's default method on the three small live teams, against the
// same team served by a plain vote. Both servers ask the same scripted models the same 40 sums.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultServeMethod } from '../protocols/debate/methods.js';
import { accuracyReply } from '../testing/_test-accuracy-team.js';
import { serveSumTeam } from '../testing/_test-served-sum-team.js';
import type { TeamServiceOptions } from './team-service.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Serves `agents` with `method` (the default when undefined) and returns how many of 40 sums it decided right. */
async function servedCorrect(agents: string[], method: TeamServiceOptions['method'] | undefined): Promise<number> {
  const { client } = await serveSumTeam(closers, {
    script: (request) => accuracyReply(request),
    agents,
    ...(method === undefined ? {} : { service: { method } }),
  });
  let correct = 0;
  // The sums of `writeSumTeam`'s task file: (10 + i) + (2i + 3), asked one after another.
  for (let index = 0; index < 40; index++) {
    const [left, right] = [index + 10, 2 * index + 3];
    const completion = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: `What is ${left} + ${right}?` }],
    });
    const repute = (completion as unknown as { repute: { method: string; decision: { answer: string | null } } })
      .repute;
    expect(repute.method).toBe(method ?? defaultServeMethod);
    if (repute.decision.answer === String(left + right)) correct++;
  }
  return correct;
}

describe('the served default on the small teams of issue 36', () => {
  it.each([
    ['4 agents: right 100%, 80%, 35%, 0%', ['right', 'good', 'weak', 'wrong']],
    ['3 agents: right 100%, 80%, 0%', ['right', 'good', 'wrong']],
    ['3 agents: right 100%, 80%, 35%', ['right', 'good', 'weak']],
  ])(
    '%s: the default decides at least as many sums right as a plain vote',
    async (_, agents) => {
      const majority = await servedCorrect(agents, 'majority');
      const served = await servedCorrect(agents, undefined);
      // The always-right agent alone gets all 40; a plain vote loses only where the others outvote it.
      expect(majority).toBeGreaterThan(20);
      expect(served).toBeGreaterThanOrEqual(majority);
    },
    120_000,
  );
});
