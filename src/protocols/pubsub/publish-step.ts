import type { AgentId } from '../../core/agent-identity.js';
import type { Message } from '../../core/message.js';
import type { Task } from '../../core/task.js';
import { reportAgentError, type RapsContext } from './_raps-context.js';
import type { RapsExchange } from './_raps-exchange.js';
import { commandId, publicationId, type RapsCommand, type taskToWire } from './wire.js';

/** Where a task stands between rounds: each agent's last publication and what it received last round. */
export interface RapsTaskState {
  readonly task: Task;
  readonly wireTask: ReturnType<typeof taskToWire>;
  /** Each agent's latest publication in this task. */
  readonly last: Map<AgentId, Message>;
  /** Messages each agent receives for its next publication (delivered last round). */
  inbox: Map<AgentId, Message[]>;
}

/**
 * Why a publication cannot answer `command` (`undefined` when it can): it must come from the agent
 * the command went to, for the command's task and round. Its id was matched to the command already.
 */
function publicationMismatch(message: Message, command: RapsCommand): string | undefined {
  if (message.from !== command.agentId)
    return `publication ${message.id} claims to be from ${JSON.stringify(message.from)}; an agent publishes only as itself (${command.agentId}), so it was not routed: check that the node runs with its own agent id`;
  const taskId = command.kind === 'publish' ? command.task.id : undefined;
  if (message.round !== command.round || message.taskId !== taskId)
    return `publication ${message.id} is for task ${JSON.stringify(message.taskId)} round ${message.round}, not task ${JSON.stringify(taskId)} round ${command.round}; it was not routed`;
  return undefined;
}

/**
 * Step 1: every agent publishes, given its own last publication and what it received last round.
 * A missing or failed publication, or one that does not answer its command (another sender, task
 * or round), counts as an agent error and is not routed. Writes `publish` and `agent-error` events
 * in roster order.
 */
export async function publishStep(
  context: RapsContext,
  exchange: RapsExchange,
  state: RapsTaskState,
  round: number,
): Promise<Message[]> {
  const { order, totals, emit } = context;
  const { runId } = context.settings;
  const { task, wireTask, last, inbox } = state;
  const commands: RapsCommand[] = order.map((agentId) => {
    const id = commandId(runId, task.id, round, 'publish', agentId);
    exchange.expectPublication(publicationId(runId, task.id, round, agentId), id);
    return {
      schemaVersion: 1,
      kind: 'publish',
      id,
      runId,
      agentId,
      round,
      task: wireTask,
      own: last.get(agentId) ?? null,
      received: inbox.get(agentId) ?? [],
    };
  });
  const published = await exchange.send(commands);
  const publications: Message[] = [];
  for (const command of commands) {
    const reply = published.get(command.id);
    const mismatch = reply?.message === undefined ? undefined : publicationMismatch(reply.message, command);
    if (mismatch !== undefined) {
      // Routed, it would be audited as another agent's work: impersonation could slander or praise that agent.
      reportAgentError(context, {
        taskId: task.id,
        round,
        agentId: command.agentId,
        report: undefined,
        missing: mismatch,
      });
    } else if (reply?.message) {
      publications.push(reply.message);
      last.set(command.agentId, reply.message);
      emit({
        schemaVersion: 1,
        type: 'publish',
        taskId: task.id,
        round,
        agentId: command.agentId,
        messageId: reply.message.id,
        answer: reply.message.answer ?? null,
        done: reply.message.done === true,
      });
    } else {
      reportAgentError(context, {
        taskId: task.id,
        round,
        agentId: command.agentId,
        report: reply?.report,
        missing: 'no publication',
      });
    }
  }
  totals.publications += publications.length;
  return publications;
}
