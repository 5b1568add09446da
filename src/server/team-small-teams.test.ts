// Issue 36: the served endpoint's default method on the three small live teams, against the
// same team served by a plain vote. Both servers ask the same scripted models the same 40 sums.
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveTeam } from '../cli/commands/_live-team.js';
import { readTeamFile } from '../cli/commands/_team-file.js';
import { defaultServeMethod } from '../protocols/debate/methods.js';
import { openStore } from '../store/store.js';
import { accuracyReply } from '../testing/_test-accuracy-team.js';
import { startOpenAICompatibleServer } from '../testing/openai-compatible-server.js';
import { writeSumTeam } from '../testing/_test-sum-team.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';
import { startServer } from './start-server.js';
import { createTeamService, type TeamServiceOptions } from './team-service.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Serves `agents` with `method` (the default when undefined) and returns how many of 40 sums it decided right. */
async function servedCorrect(agents: string[], method: TeamServiceOptions['method'] | undefined): Promise<number> {
  const provider = await startOpenAICompatibleServer({ script: (request) => accuracyReply(request) });
  closers.push(() => provider.close());
  const dir = temporaryDirectory('repute-served-small-');
  const file = readTeamFile(writeSumTeam(dir, { baseURL: provider.baseURL, tasks: 1, agents }));
  const store = openStore({ path: join(dir, 'repute.db') });
  closers.push(() => store.close());
  let counter = 0;
  const team = createTeamService({
    name: file.name,
    agents: createLiveTeam(file, store, 'serve'),
    store,
    kind: 'number',
    runId: 'serve',
    generateId: () => `chat-${++counter}`,
    ...(method === undefined ? {} : { method }),
  });
  closers.push(() => team.idle());
  const server = await startServer({ store, team, port: 0 });
  closers.push(() => server.close());
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  let correct = 0;
  // The sums of `writeSumTeam`'s task file: (10 + i) + (2i + 3), asked one after another.
  for (let index = 0; index < 40; index++) {
    const [left, right] = [index + 10, 2 * index + 3];
    const completion = await client.chat.completions.create({
      model: `team:${file.name}`,
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
