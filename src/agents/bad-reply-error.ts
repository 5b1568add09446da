import type { AnswerKind } from '../core/answers/answer-kind.js';
import { ProviderError } from '../core/errors.js';
import type { ActUsage } from './agent.js';

/** Characters of a bad reply kept in the error (and so in the task's failure record) for inspection. */
export const BAD_REPLY_EXCERPT_CHARS = 500;

/**
 * A propose or revise reply that held no answer of the task's kind, nor did the reply to one repair
 * prompt: the act failed (reason `bad-reply`), so its task fails and a rerun redoes it. The start
 * of the last reply is kept in the message; the cache recorded neither reply.
 */
export class BadReplyError extends ProviderError {
  /** The agent whose reply it was. */
  readonly agentId: string;
  /** The act (`propose`, `revise`). */
  readonly act: string;
  /** The answer kind the reply lacked. */
  readonly kind: AnswerKind;
  /** Tokens and cost of both calls (the ledger books them too). */
  readonly usage: ActUsage;

  constructor({
    agentId,
    act,
    kind,
    reply,
    usage,
  }: {
    agentId: string;
    act: string;
    kind: AnswerKind;
    reply: string;
    usage: ActUsage;
  }) {
    const excerpt = reply.length > BAD_REPLY_EXCERPT_CHARS ? `${reply.slice(0, BAD_REPLY_EXCERPT_CHARS)}…` : reply;
    super({
      provider: agentId,
      attempts: 2,
      reason: 'bad-reply',
      message: `agent ${agentId}'s ${act} reply held no ${kind} answer, nor did its reply to one repair prompt (bad reply, not cached; a rerun asks again); last reply: ${JSON.stringify(excerpt)}; check that the model follows the answer format, or use another model`,
    });
    this.agentId = agentId;
    this.act = act;
    this.kind = kind;
    this.usage = usage;
  }
}
