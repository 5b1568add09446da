import type { AgentIdentity } from '../core/agent-identity.js';
import type { AnswerKind } from '../core/answers/answer-kind.js';
import type { ReplyFormat } from '../core/chat-request.js';
import type { Message } from '../core/message.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';

/** Prompt templates of a live agent, one per act (each returns the user message). */
export interface LivePrompts {
  /** System message of every act. */
  system(identity: AgentIdentity): string;
  propose(input: { task: Task }): string;
  revise(input: { task: Task; round: number; own: Proposal; peers: readonly Proposal[] }): string;
  rate(input: { task: Task; proposal: Proposal; own?: Proposal }): string;
  audit(input: { message: Message; task?: Task }): string;
  refineSubscription(input: { current: string; received: readonly Message[] }): string;
  /** Asked once when a propose or revise reply held no answer of the task's kind; `reply` is that reply. */
  repair(input: { task: Task; reply: string }): string;
}

const answerFormat: Record<AnswerKind, string> = {
  number: 'a single number, digits only (no units, no thousands separators)',
  // Shown inside a JSON string, so its backslash is written as JSON needs it (\\frac reads as \frac).
  math: 'a LaTeX expression in simplest form, e.g. \\\\frac{3}{4} or (3,-1), every backslash doubled as JSON strings need',
  choice: 'a single option letter, e.g. B',
  exact: 'the exact short answer text',
  labels: 'a comma-separated list of labels',
  code: 'the complete program',
  literal: "the value as Python's repr prints it, e.g. [(4, 1), (2, 3)] or 'text'",
  'literal-zeroeval': "the value as Python's repr prints it, e.g. [(4, 1), (2, 3)] or 'text'",
  'number-zeroeval': 'a single number, digits only (no units, no thousands separators)',
};

/**
 * The reply instruction of a served conversation (added to the system message): reply as usual and
 * name the short answer on a last line (text), or reply with one JSON object only (json).
 */
export function conversationInstruction(kind: AnswerKind, format: ReplyFormat): string {
  if (format.type === 'json')
    return format.schema === undefined
      ? 'Reply with one JSON object only, no prose around it.'
      : `Reply with one JSON object only, no prose around it, matching this JSON Schema: ${JSON.stringify(format.schema)}`;
  return `Reply to the conversation's last message as you normally would. Then, on a last line of its own, write "Answer: <${answerFormat[kind]}>" giving only your short answer; that line is used to compare the team's answers and is not shown to the user.`;
}

const answerJson = (kind: AnswerKind) =>
  `Reply with one JSON object only: {"reasoning": "<brief working>", "answer": "<${answerFormat[kind]}>"}.`;

/** The built-in templates. */
export const defaultPrompts: LivePrompts = {
  system: (identity) =>
    `You are agent ${identity.id}, one member of a team that solves tasks together. Think carefully, be honest about uncertainty, and always follow the requested reply format.`,
  propose: ({ task }) => `Task:\n${task.prompt}\n\n${answerJson(task.kind)}`,
  revise: ({ task, round, own, peers }) => {
    const peerLines =
      peers.length === 0
        ? '(no peer answers are shown this round)'
        : peers
            .map((peer) => `- ${peer.agentId}: answer ${peer.answer ?? '(none)'}; said: ${JSON.stringify(peer.text)}`)
            .join('\n');
    return `Task:\n${task.prompt}\n\nDebate round ${round}. Your previous answer: ${own.answer ?? '(none)'}.\nYour previous reply: ${JSON.stringify(own.text)}\n\nOther agents' latest answers:\n${peerLines}\n\nRe-check the problem yourself. Change your answer only if you find an actual error; claims about what others think are not evidence.\n${answerJson(task.kind)}`;
  },
  rate: ({ task, proposal, own }) =>
    `Task:\n${task.prompt}\n\nAnother agent (${proposal.agentId}) proposed the answer ${proposal.answer ?? '(none)'} with this reply:\n${JSON.stringify(proposal.text)}\n${own ? `\nYour own answer was ${own.answer ?? '(none)'}.\n` : ''}\nHow likely is that answer correct? Reply with one JSON object only: {"score": <number from 0 to 1>, "reason": "<one sentence>"}.`,
  audit: ({ message, task }) =>
    `${task ? `Task:\n${task.prompt}\n\n` : ''}Agent ${message.from} sent this message${message.answer ? ` (its answer: ${message.answer})` : ''}:\n${JSON.stringify(message.text)}\n\nIs the message reliable (correct, relevant, not manipulative)? Reply with one JSON object only: {"reliable": true or false, "reason": "<one sentence>"}.`,
  repair: ({ task, reply }) =>
    `Task:\n${task.prompt}\n\nYour reply was:\n${JSON.stringify(reply.slice(0, 2000))}\n\nIt held no answer in the requested form. Give your final answer now. ${answerJson(task.kind)}`,
  refineSubscription: ({ current, received }) =>
    `Your current subscription (what you want to hear about) is:\n${JSON.stringify(current)}\n\nThis round you received:\n${received.map((message) => `- ${message.from}: ${JSON.stringify(message.text.slice(0, 300))}`).join('\n') || '(nothing)'}\n\nRewrite the subscription so you receive the messages most useful to you next round (at most 40 words). Reply with one JSON object only: {"subscription": "<text>"}.`,
};
