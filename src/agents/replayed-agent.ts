import type { AgentIdentity } from '../core/agent-identity.js';
import { validateTeam } from '../core/agent-identity.js';
import { canonicalAnswerKey } from '../core/answers/answers.js';
import type { AnswerKind } from '../core/answers/answer-kind.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { TaskId } from '../core/task.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import type {
  Acted,
  ActUsage,
  Agent,
  AuditRequest,
  AuditVerdict,
  ProposeRequest,
  RateRequest,
  RefineSubscriptionRequest,
  ReviseRequest,
} from './agent.js';
import { refineSubscriptionByRule } from './_subscription-rule.js';

/** One recorded answer: the raw text and its canonical answer key (`null` = unparseable). */
export interface ReplayedAnswer {
  readonly text: string;
  readonly answer: string | null;
}

/** Options of {@link createReplayedAgent}. */
export interface ReplayedAgentOptions {
  /** Who the agent is: its unique id and the model whose recorded answers it replays. */
  readonly identity: AgentIdentity;
  /** Recorded answers by task id. */
  readonly answers: ReadonlyMap<TaskId, ReplayedAnswer>;
}

/** A replayed agent also reports the tasks it had no record for. */
export interface ReplayedAgent extends Agent {
  readonly kind: 'replayed';
  /** Task ids asked for that had no recorded answer (each counted once, in first-ask order). */
  missing(): readonly TaskId[];
}

const zeroUsage: ActUsage = { inputTokens: 0, outputTokens: 0, cost: 0, cached: false };

const knownReplayedAgentOptions = defineOptionKeys<ReplayedAgentOptions>()(['identity', 'answers']);

/**
 * Creates an agent that answers from recorded proposals. A task without a record gets an
 * unparseable proposal (answer `null`) and is counted in `missing()`; debate rounds repeat the
 * recorded answer (recordings have no debate); a rating is agreement with its own recorded answer
 * (1 or 0); an audit calls a message reliable when its answer equals the recorded one.
 *
 * @example
 * const agent = createReplayedAgent({ identity: { id: 'gpt-4o', model: 'gpt-4o' }, answers: new Map([['t1', { text: '42', answer: '42' }]]) });
 */
export function createReplayedAgent(options: ReplayedAgentOptions): ReplayedAgent {
  assertKnownOptions('', options, knownReplayedAgentOptions, 'createReplayedAgent');
  const { identity, answers } = options;
  validateTeam([identity], 'identity');
  if (!(answers instanceof Map)) {
    throw new InvalidArgumentError({
      parameter: 'answers',
      value: answers,
      message:
        'answers must be a Map from task id to { text, answer }; build it with replayedAnswers(records, agentId)',
    });
  }
  const missing: TaskId[] = [];
  const lookup = (taskId: TaskId): ReplayedAnswer => {
    const found = answers.get(taskId);
    if (found) return found;
    if (!missing.includes(taskId)) missing.push(taskId);
    return { text: '(no recorded proposal for this task)', answer: null };
  };
  const acted = <T>(value: T): Acted<T> => ({ value, usage: zeroUsage });
  const agentId = identity.id;
  return {
    identity,
    kind: 'replayed',
    missing: () => missing.slice(),
    async propose({ task }: ProposeRequest) {
      const { text, answer } = lookup(task.id);
      return acted({ agentId, taskId: task.id, round: 0, text, answer });
    },
    async revise({ task, round }: ReviseRequest) {
      const { text, answer } = lookup(task.id);
      return acted({ agentId, taskId: task.id, round, text, answer });
    },
    async rate({ task, proposal }: RateRequest) {
      const own = lookup(task.id).answer;
      const agree = own !== null && proposal.answer === own;
      return acted({
        rater: agentId,
        ratee: proposal.agentId,
        taskId: task.id,
        score: agree ? 1 : 0,
        reason: agree ? 'agrees with my recorded answer' : 'differs from my recorded answer',
      });
    },
    async audit({ message }: AuditRequest): Promise<Acted<AuditVerdict>> {
      const own = message.taskId === undefined ? null : (answers.get(message.taskId)?.answer ?? null);
      const reliable = own !== null && message.answer === own;
      return acted({
        reliable,
        reason: reliable
          ? 'agrees with my recorded answer'
          : own === null
            ? 'no recorded answer to compare with'
            : 'differs from my recorded answer',
      });
    },
    async refineSubscription({ current, received }: RefineSubscriptionRequest) {
      return acted(refineSubscriptionByRule(current, received as Message[]));
    },
  };
}

/**
 * Builds one agent's answer map from proposals-format records (one task per record, each agent's
 * `{ text?, answer? }`): the answer key is the kind's canonical key of the recorded answer, or of
 * the answer extracted from the text when no answer was recorded; `answer: null` stays `null`.
 *
 * @example
 * const answers = replayedAnswers(dataset.tasks, 'gpt-4o-2024-08-06');
 */
export function replayedAnswers(
  records: ReadonlyArray<{
    readonly id: string;
    readonly kind: AnswerKind;
    readonly proposals: Readonly<Record<string, { readonly text?: string; readonly answer?: string | null }>>;
  }>,
  agentId: string,
): Map<TaskId, ReplayedAnswer> {
  const map = new Map<TaskId, ReplayedAnswer>();
  for (const record of records) {
    const proposal = record.proposals[agentId];
    if (proposal === undefined) continue;
    let answer: string | null = null;
    if (typeof proposal.answer === 'string') {
      try {
        answer = canonicalAnswerKey(record.kind, proposal.answer);
      } catch {
        answer = null;
      }
    }
    map.set(record.id, { text: proposal.text ?? proposal.answer ?? '', answer });
  }
  return map;
}
