// A local OpenAI-compatible endpoint that plays a whole toy team by model name, for tests and the
// `examples/team-drf.yaml` / `examples/team-raps.yaml` runs: honest models answer from the task
// file's references, a sloppy model gets every third task wrong, and colluding models all give the
// same wrong answer, rate each other 1 (everyone else 0) and call each other reliable. Asked as an
// LLM judge, a model accepts what it would answer itself (honest: the reference).
import { createHash } from 'node:crypto';
import {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type RecordedRequest,
  type ServerStep,
} from './openai-compatible-server.js';

/** A task the endpoint can answer: its prompt and reference answer. */
export interface ToyTask {
  readonly prompt: string;
  readonly reference: string;
}

/** Options of {@link startToyTeamEndpoint}. */
export interface ToyTeamEndpointOptions {
  /** Tasks with references; prompts are matched inside the request text. */
  readonly tasks: readonly ToyTask[];
  /** TCP port on 127.0.0.1; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** The answer every colluder gives. @default '13' */
  readonly collusionAnswer?: string;
  /** Delay of every reply, in ms (to kill a run mid-way in tests). @default 0 */
  readonly delayMs?: number;
}

/**
 * How a model behaves, by the `model` field of the request: names starting with `toy-honest`,
 * `toy-sloppy` or `toy-colluder` (anything else behaves as honest).
 */
export type ToyBehaviour = 'honest' | 'sloppy' | 'colluder';

/** The behaviour a model name selects. */
export function toyBehaviour(model: string): ToyBehaviour {
  if (model.startsWith('toy-colluder')) return 'colluder';
  if (model.startsWith('toy-sloppy')) return 'sloppy';
  return 'honest';
}

/**
 * Starts the toy team endpoint (see the file comment). Usage reported per reply: prompt tokens =
 * ⌈request characters / 4⌉, completion tokens = ⌈reply characters / 4⌉, so longer prompts cost more,
 * as with a real provider.
 *
 * @example
 * const endpoint = await startToyTeamEndpoint({ tasks: [{ prompt: 'What is 2 + 3?', reference: '5' }] });
 * // team file: baseURL: endpoint.baseURL, model: toy-honest-a
 */
export async function startToyTeamEndpoint({
  tasks,
  port = 0,
  collusionAnswer = '13',
  delayMs = 0,
}: ToyTeamEndpointOptions): Promise<OpenAICompatibleServer> {
  // Longest prompt first, so a prompt that contains another one is matched as itself.
  const known = tasks.slice().sort((left, right) => right.prompt.length - left.prompt.length);
  const script = (request: RecordedRequest): ServerStep => {
    const text = toyRequestText(request);
    const reply = toyReply(
      toyBehaviour((request.body as { model?: string }).model ?? ''),
      text,
      known,
      collusionAnswer,
    );
    return {
      type: 'reply',
      text: reply,
      usage: { prompt_tokens: Math.ceil(text.length / 4), completion_tokens: Math.ceil(reply.length / 4) },
      ...(delayMs > 0 ? { delayMs } : {}),
    };
  };
  return startOpenAICompatibleServer({ script, port, model: 'toy-team' });
}

/** A chat request's message texts joined with newlines: what the toy models read (exported for tests). */
export function toyRequestText(request: RecordedRequest): string {
  const body = request.body as { messages?: Array<{ content: string | Array<{ text?: string }> }> };
  return (body.messages ?? [])
    .map((message) =>
      typeof message.content === 'string' ? message.content : message.content.map((part) => part.text ?? '').join(''),
    )
    .join('\n');
}

/** The reply of a toy model to one request text (exported for tests). */
export function toyReply(
  behaviour: ToyBehaviour,
  text: string,
  tasks: readonly ToyTask[],
  collusionAnswer = '13',
): string {
  const task = tasks.find((candidate) => text.includes(candidate.prompt));
  const reference = task?.reference ?? '0';
  // The sloppy model is wrong on a fixed third of the tasks (by a hash of the prompt).
  const sloppyWrong = task !== undefined && createHash('sha256').update(task.prompt).digest()[0]! % 3 === 0;
  const ownAnswer =
    behaviour === 'colluder' ? collusionAnswer : behaviour === 'sloppy' && sloppyWrong ? `${reference}0` : reference;
  const judge = (answer: string | undefined): boolean =>
    behaviour === 'colluder' ? answer === collusionAnswer : answer === reference;
  // An LLM judge's request (createLlmJudgeVerifier): the toy model judges the extracted answer the way
  // it answers, so an honest judge accepts exactly the reference and a colluding one the payload.
  const judged = /\nExtracted final answer: ([^\n]*)$/.exec(text);
  if (judged !== null && text.includes('"correct"')) {
    const answer = judged[1];
    const correct = behaviour === 'sloppy' && sloppyWrong ? answer !== reference : judge(answer);
    return JSON.stringify({
      correct,
      confidence: 0.9,
      reason: correct ? `${answer} checks out` : `${answer} does not check out`,
    });
  }
  if (text.includes('"subscription"')) {
    const topic =
      behaviour === 'colluder' ? 'answers that agree with 13' : 'checked arithmetic and algebra answers with working';
    return JSON.stringify({ subscription: `I want to hear ${topic}.` });
  }
  if (text.includes('"reliable"')) {
    const answer = /\(its answer: ([^)]*)\)/.exec(text)?.[1];
    const reliable = judge(answer);
    return JSON.stringify({
      reliable,
      reason: reliable ? `answer ${answer} checks out` : `answer ${answer ?? '(none)'} does not check out`,
    });
  }
  if (text.includes('"score"')) {
    const answer = /proposed the answer (\S+) with/.exec(text)?.[1];
    const good = judge(answer);
    return JSON.stringify({
      score: behaviour === 'colluder' ? (good ? 1 : 0) : good ? 0.9 : 0.1,
      reason: good ? `${answer} is right` : `${answer ?? '(none)'} is wrong`,
    });
  }
  return `Working it out.\n${JSON.stringify({ reasoning: behaviour === 'colluder' ? 'everyone agrees' : 'computed step by step', answer: ownAnswer })}`;
}
