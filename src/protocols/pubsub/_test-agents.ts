// Small scripted agents for the RAPS tests (internal, not re-exported).
import type { Acted, ActUsage, Agent } from '../../agents/agent.js';
import type { Message } from '../../core/message.js';
import type { Task } from '../../core/task.js';

const zeroUsage: ActUsage = { inputTokens: 0, outputTokens: 0, cost: 0, cached: false };
const acted = <T>(value: T): Acted<T> => ({ value, usage: zeroUsage });

/**
 * An agent that always answers `answer`, judges a message reliable iff its sender is not in
 * `distrusts`, and appends `refineWord` to its subscription. Records every audited message id.
 */
export function createScriptedAgent({
  id,
  answer,
  distrusts = [],
  refineWord,
  onAudit,
}: {
  id: string;
  answer: string;
  distrusts?: readonly string[];
  refineWord?: string;
  onAudit?: (message: Message) => Promise<void> | void;
}): Agent & { audited: string[] } {
  const audited: string[] = [];
  const proposal = (task: Task, round: number) => ({
    agentId: id,
    taskId: task.id,
    round,
    text: `${id} says the answer is ${answer}`,
    answer,
  });
  return {
    identity: { id, model: `model-${id}` },
    kind: 'simulated',
    audited,
    propose: async ({ task }) => acted(proposal(task, 0)),
    revise: async ({ task, round }) => acted(proposal(task, round)),
    rate: async ({ task, proposal: rated }) => acted({ rater: id, ratee: rated.agentId, taskId: task.id, score: 1 }),
    audit: async ({ message }) => {
      await onAudit?.(message);
      audited.push(message.id);
      const reliable = !distrusts.includes(message.from);
      return acted({ reliable, reason: reliable ? 'fine' : 'distrusted sender' });
    },
    refineSubscription: async ({ current }) => acted(refineWord === undefined ? current : `${current} ${refineWord}`),
  };
}
