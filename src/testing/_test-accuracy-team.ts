// Internal test helper: the issue 36 small teams' scripted models for the local OpenAI-compatible
// server. Agents `right`, `good`, `weak` and `wrong` answer `What is a + b?` right 100 %, 80 %, 35 % and
// 0 % of the time; shared by `repute run`'s and the served endpoint's small-team tests.
import { hashString } from '../core/rng.js';
import type { RecordedRequest } from './openai-compatible-server.js';
import { readSumRequest } from './_test-sum-team.js';

/** Share of tasks each agent gets right; `weak`'s errors repeat `wrong`'s answer half of the time. */
const accuracy: Record<string, number> = { right: 1, good: 0.8, weak: 0.35, wrong: 0 };

/** A draw in [0, 1) fixed by its labels (the same for an agent's propose and revise on a task). */
const draw = (...labels: string[]) => hashString(labels.join('\u0000')) / 2 ** 32;

/** The reply of agent `right`/`good`/`weak`/`wrong` to `What is a + b?`: the sum, or a wrong one. */
export function accuracyReply(request: RecordedRequest): string {
  const { agent, match, sum } = readSumRequest(request);
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
