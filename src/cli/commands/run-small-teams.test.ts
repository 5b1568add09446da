// Issue 36: the three small live teams through `repute run` against a local endpoint whose models
// are right with fixed per-model rates. MiniRep must not lose to a plain vote on any of them.
import { afterEach, describe, expect, it } from 'vitest';
import { hashString } from '../../core/rng.js';
import {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type RecordedRequest,
} from '../../testing/openai-compatible-server.js';
import { runJson } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { writeSumTeam } from '../../testing/_test-sum-team.js';

/** Share of tasks each agent gets right; `weak`'s errors repeat `wrong`'s answer half of the time. */
const accuracy: Record<string, number> = { right: 1, good: 0.8, weak: 0.35, wrong: 0 };

function messageText(message: { content: string | Array<{ text: string }> } | undefined): string {
  return typeof message?.content === 'string'
    ? message.content
    : (message?.content ?? []).map((part) => part.text).join('');
}

/** A draw in [0, 1) fixed by its labels (the same for an agent's propose and revise on a task). */
const draw = (...labels: string[]) => hashString(labels.join('\u0000')) / 2 ** 32;

/** The reply of agent `right`/`good`/`weak`/`wrong` to `What is a + b?`: the sum, or a wrong one. */
function accuracyReply(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: string | Array<{ text: string }> }> })
    .messages;
  const system = messageText(messages.find((message) => message.role === 'system'));
  const user = messages
    .filter((message) => message.role === 'user')
    .map(messageText)
    .join('\n');
  const agent = /You are agent (\S+),/.exec(system)?.[1] ?? '?';
  const match = /What is (\d+) \+ (\d+)\?/.exec(user);
  const sum = match ? Number(match[1]) + Number(match[2]) : 0;
  const task = `${match?.[1]}+${match?.[2]}`;
  let answer = sum;
  if (draw(agent, task, 'right') >= (accuracy[agent] ?? 1)) {
    // The always-wrong answer is sum ± 7 (one side per task); other errors are sum ± 1..5. Errors fall
    // on both sides: plurality breaks ties by the smallest key, so errors always above the sum would
    // hand it the right answer in every tie.
    const shared = agent === 'wrong' || draw(agent, task, 'shared') < 0.5;
    const side = (label: string) => (draw(task, label) < 0.5 ? -1 : 1);
    answer = shared
      ? sum + 7 * side('shared-side')
      : sum + side(`${agent}-side`) * (1 + Math.floor(5 * draw(agent, task, 'offset')));
  }
  return `The sum is ${answer}.\n${JSON.stringify({ reasoning: `${match?.[1]} plus ${match?.[2]}`, answer: String(answer) })}`;
}

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('repute run: MiniRep on small teams (issue 36)', () => {
  // The 4-agent team also runs our variants, named in the team file's methods like any method.
  it.each([
    [
      '4 agents: right 100%, 80%, 35%, 0%',
      ['right', 'good', 'weak', 'wrong'],
      ['minirep-lo', 'minirep-ds', 'minirep-rt', 'minirep-es', 'minirep-ic', 'minirep-rt-ic-es'],
    ],
    [
      '3 agents: right 100%, 80%, 0%',
      ['right', 'good', 'wrong'],
      ['minirep-rt', 'minirep-es', 'minirep-ic', 'minirep-rt-ic-es'],
    ],
    [
      '3 agents: right 100%, 80%, 35%',
      ['right', 'good', 'weak'],
      ['minirep-rt', 'minirep-es', 'minirep-ic', 'minirep-rt-ic-es'],
    ],
  ])(
    '%s: minirep is at least as accurate as majority',
    async (_, agents, variants) => {
      server = await startOpenAICompatibleServer({ script: (request) => accuracyReply(request) });
      const dir = temporaryDirectory('repute-small-team-');
      const methods = ['majority', 'minirep', ...variants];
      const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks: 40, agents, methods });
      const summary = await runJson(team, '--run-id', 'small', '--reputation', 'fresh');
      expect(summary.status).toBe('completed');
      const majority = summary.methods.majority.accuracy as number;
      const miniRep = summary.methods.minirep.accuracy as number;
      // The always-right agent alone gets 100%; a plain vote loses only where the others outvote it.
      expect(majority).toBeGreaterThan(0.5);
      expect(miniRep).toBeGreaterThanOrEqual(majority);
      // MiniRep-RT (ours) keeps the paper's weights and changes only what consensus feedback scores.
      if (variants.includes('minirep-rt'))
        expect(summary.methods['minirep-rt'].accuracy as number).toBeGreaterThanOrEqual(majority);
      // MiniRep-ES (ours) shrinks history towards a plain vote while the evidence separating agents is weak.
      if (variants.includes('minirep-es'))
        expect(summary.methods['minirep-es'].accuracy as number).toBeGreaterThanOrEqual(majority);
      // MiniRep-IC (ours) merges agents that agree beyond independence into one clone group.
      if (variants.includes('minirep-ic'))
        expect(summary.methods['minirep-ic'].accuracy as number).toBeGreaterThanOrEqual(majority);
      // The three together.
      if (variants.includes('minirep-rt-ic-es'))
        expect(summary.methods['minirep-rt-ic-es'].accuracy as number).toBeGreaterThanOrEqual(majority);
    },
    120_000,
  );
});
