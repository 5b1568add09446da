// Internal test helper: a deterministic scripted "model" for the local OpenAI-compatible server
// that solves `What is a + b?` tasks (agent `weak` answers a + b + 1), and a team file + task file
// using it. Shared by the dashboard's browser test and the server's team-endpoint tests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from './openai-compatible-server.js';

function text(message: { content: string | Array<{ text: string }> } | undefined): string {
  return typeof message?.content === 'string'
    ? message.content
    : (message?.content ?? []).map((part) => part.text).join('');
}

/**
 * What a scripted sum model reads from a chat request: the agent (`You are agent <id>,` in the system
 * prompt), the user turns' text, the `What is a + b?` match (absent when the prompt has none) and a + b.
 */
export function readSumRequest(request: RecordedRequest): {
  agent: string;
  user: string;
  match: RegExpExecArray | null;
  sum: number;
} {
  const messages = (request.body as { messages: Array<{ role: string; content: string | Array<{ text: string }> }> })
    .messages;
  const system = text(messages.find((message) => message.role === 'system'));
  const user = messages
    .filter((message) => message.role === 'user')
    .map(text)
    .join('\n');
  const agent = /You are agent (\S+),/.exec(system)?.[1] ?? '?';
  const match = /What is (\d+) \+ (\d+)\?/.exec(user);
  return { agent, user, match, sum: match ? Number(match[1]) + Number(match[2]) : 0 };
}

/**
 * Reply of agent `You are agent <id>,` to a propose/revise prompt (JSON answer) or a rating prompt
 * (0.9 for the right sum, else 0.1). Agent `weak` is always off by one; agents whose id starts
 * with `down` fail with HTTP 500 when `failDown` is set.
 */
export function sumReply(request: RecordedRequest): string {
  const { agent, user, match, sum } = readSumRequest(request);
  if (user.includes('"score"')) {
    const proposed = /proposed the answer (\S+) with/.exec(user)?.[1];
    return JSON.stringify({ score: proposed === String(sum) ? 0.9 : 0.1, reason: 'checked the sum' });
  }
  const answer = agent === 'weak' ? sum + 1 : sum;
  return `The sum of ${match?.[1]} and ${match?.[2]} is ${answer}.\n${JSON.stringify({ reasoning: `${match?.[1]} plus ${match?.[2]}`, answer: String(answer) })}`;
}

/**
 * Writes `tasks.jsonl` (n sums with references) and `team.yaml` into `dir`; returns the team file path.
 * `extra` goes into the team's top level, `agentExtra` into every agent; the cache is off unless `cache`;
 * the debate has `rounds` rounds after Propose (1 unless given).
 */
export function writeSumTeam(
  dir: string,
  {
    baseURL,
    tasks,
    agents = ['alpha', 'beta-1', 'beta-2', 'weak'],
    methods = ['majority', 'minirep'],
    extra = '',
    agentExtra = '',
    cache = false,
    rounds = 1,
    maxRetries = 0,
  }: {
    baseURL: string;
    tasks: number;
    agents?: readonly string[];
    methods?: readonly string[];
    extra?: string;
    agentExtra?: string;
    cache?: boolean;
    /** Debate rounds after Propose. @default 1 */
    rounds?: number;
    /** Retries of a failed call. @default 0 */
    maxRetries?: number;
  },
): string {
  const lines = Array.from({ length: tasks }, (_, index) =>
    JSON.stringify({
      id: `t${index + 1}`,
      prompt: `What is ${index + 10} + ${2 * index + 3}?`,
      kind: 'number',
      reference: String(3 * index + 13),
    }),
  );
  writeFileSync(join(dir, 'tasks.jsonl'), `${lines.join('\n')}\n`);
  const members = agents
    .map(
      (id) =>
        `  - id: ${id}\n    provider: openai-compatible\n    model: ${id.startsWith('beta') ? 'beta-model' : `${id}-model`}\n    baseURL: ${baseURL}\n    price: { inputPerMillion: 1, outputPerMillion: 2 }${agentExtra}`,
    )
    .join('\n');
  const file = join(dir, 'team.yaml');
  writeFileSync(
    file,
    `name: sum-team\nstore: repute.db\ntasks: tasks.jsonl\n${cache ? '' : 'cache: off\n'}protocol: { type: debate, rounds: ${rounds} }\nmethods: [${methods.join(', ')}]\nmaxRetries: ${maxRetries}\n${extra}agents:\n${members}\n`,
  );
  return file;
}
