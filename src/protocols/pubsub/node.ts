// An agent's side of RAPS: it follows its command inbox, publishes, audits what it receives and
// rewrites its subscription. Stateless between commands, so a crashed node restarts cleanly.
import type { Agent } from '../../agents/agent.js';
import { DataFormatError, InternalError, ProviderError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { createDeduplicator } from '../../transport/dedupe.js';
import { rapsDurables } from './raps-durables.js';
import { subjectToken } from '../../transport/subject.js';
import type { Transport, TransportSubscription } from '../../transport/transport.js';
import {
  commandSchema,
  decodeWire,
  encodeWire,
  providerFailureToWire,
  publicationId,
  RAPS_REPORT_VERSION,
  type RapsAct,
  rapsSubjects,
  type RapsCommand,
  type RapsReport,
} from './wire.js';

/** Options of {@link startRapsNode}. */
export interface RapsNodeOptions {
  /** Transport shared with the coordinator (in-process bus or NATS). */
  transport: Transport;
  /** Run id; must match the coordinator's. */
  runId: string;
  /** The agent this node hosts. */
  agent: Agent;
  /** Called with every problem (malformed command, failed act); never throws into the transport. */
  onError?: (error: Error) => void;
  /**
   * Removes secrets (API keys) from the texts of a `failed` report before it leaves the node. A
   * {@link ProviderError}'s message is already free of its model's key (the retry middleware
   * removes it); a node in its own process passes a redactor of every key variable it can read
   * (see `serveRapsNodeOverNats`). @default no change
   */
  redact?: (text: string) => string;
}

/** Counters of one node. */
export interface RapsNodeStats {
  /** Commands handled (each command id once). */
  handled: number;
  /** Commands seen again (redeliveries) and answered from the cache without re-running the agent. */
  duplicates: number;
  /** Commands refused as malformed. */
  malformed: number;
  /** Agent acts that threw (reported to the coordinator as `failed`). */
  failures: number;
  /** Of those, acts whose model call failed (a {@link ProviderError}, reported with its provider-failure record). */
  providerFailures: number;
  /** Deliveries (publications) passed to the agent's audit, by message id. */
  readonly audited: string[];
}

const knownRapsNodeOptions = defineOptionKeys<RapsNodeOptions>()(['transport', 'runId', 'agent', 'onError', 'redact']);

/**
 * Starts one RAPS agent node on a transport: it follows `raps.<run>.cmd.<agent>` under the durable
 * name `node-<agent>`, handles each command id once (a redelivered command re-sends its cached
 * reply), and answers with a publication on `raps.<run>.pub` or a report on `raps.<run>.report`.
 *
 * @example
 * const node = await startRapsNode({ transport, runId: 'demo', agent });
 * // ... run the coordinator ...
 * await node.stop();
 */
export async function startRapsNode(options: RapsNodeOptions) {
  assertKnownOptions('', options, knownRapsNodeOptions, 'startRapsNode');
  const { transport, runId, agent, onError = () => {}, redact = (text) => text } = options;
  const agentId = agent.identity.id;
  const subjects = rapsSubjects(runId);
  const token = subjectToken(agentId);
  const durable = rapsDurables(runId).node(token);
  const seen = createDeduplicator(1_000_000);
  const replies = new Map<string, () => Promise<void>>();
  const stats: RapsNodeStats = {
    handled: 0,
    duplicates: 0,
    malformed: 0,
    failures: 0,
    providerFailures: 0,
    audited: [],
  };

  const report = async (value: RapsReport): Promise<void> => {
    await transport.publish(subjects.reports, encodeWire(value), { id: `report:${value.commandId}` });
  };

  const act = async (command: RapsCommand): Promise<() => Promise<void>> => {
    try {
      if (command.kind === 'publish') {
        const message = await publish(agent, runId, command);
        return () => transport.publish(subjects.publications, encodeWire(message), { id: message.id });
      }
      if (command.kind === 'deliver') {
        stats.audited.push(command.message.id);
        const { value } = await agent.audit({
          message: command.message as Message,
          ...(command.task === null ? {} : { task: command.task as Task }),
        });
        const reply: RapsReport = {
          schemaVersion: RAPS_REPORT_VERSION,
          kind: 'audited',
          commandId: command.id,
          agentId,
          messageId: command.message.id,
          subject: command.message.from,
          reliable: value.reliable === true,
          reason: String(value.reason ?? ''),
        };
        return () => report(reply);
      }
      const { value } = await agent.refineSubscription({
        current: command.current,
        received: command.received as Message[],
      });
      const reply: RapsReport = {
        schemaVersion: RAPS_REPORT_VERSION,
        kind: 'refined',
        commandId: command.id,
        agentId,
        text: String(value),
      };
      return () => report(reply);
    } catch (error) {
      stats.failures++;
      const failure =
        error instanceof Error
          ? error
          : new InternalError(`agent ${agentId} threw a non-Error value: ${String(error)}`);
      onError(failure);
      // A model call that failed for good is the provider's failure, not the agent's: the record
      // lets the coordinator fail the task instead of counting a failed act.
      const provider = failure instanceof ProviderError;
      if (provider) stats.providerFailures++;
      const reply: RapsReport = {
        schemaVersion: RAPS_REPORT_VERSION,
        kind: 'failed',
        commandId: command.id,
        agentId,
        error: redact(`${agentId} failed to ${command.kind}: ${failure.message}`),
        ...(provider
          ? {
              providerFailure: providerFailureToWire(failure, {
                act: actOf(command),
                model: agent.identity.model,
                redact,
              }),
            }
          : {}),
      };
      return () => report(reply);
    }
  };

  const subscription: TransportSubscription = await transport.subscribe(
    subjects.commands(token),
    async (delivery) => {
      let command: RapsCommand;
      try {
        command = decodeWire(commandSchema, delivery.data, { subject: delivery.subject, id: delivery.id });
        if (command.agentId !== agentId || command.runId !== runId)
          throw new DataFormatError({
            file: delivery.subject,
            message: `command ${command.id} is addressed to ${command.agentId} in run ${command.runId}, not ${agentId} in ${runId}; check that each agent process uses its own id and the coordinator's run id`,
          });
      } catch (error) {
        // A malformed command is acknowledged (not redelivered forever), counted and reported.
        stats.malformed++;
        onError(error as Error);
        return;
      }
      if (!seen.firstTime(command.id)) {
        stats.duplicates++;
        // The coordinator may have missed the reply: send it again (the transport de-duplicates it).
        await replies.get(command.id)?.();
        return;
      }
      stats.handled++;
      const reply = await act(command);
      replies.set(command.id, reply);
      // If this publish throws, the command is not acknowledged; the redelivery re-sends the cached reply.
      await reply();
    },
    { durable },
  );

  return {
    agentId,
    stats,
    /** Detaches from the inbox; pending commands wait for the next node of this agent. */
    stop: () => subscription.stop(),
    /**
     * Detaches and deletes the inbox's durable consumer: the agent leaves the run, and a later node
     * of it would start at the first command. Resolves to whether the consumer existed.
     */
    leave: () => transport.deleteDurable(durable),
  };
}

/** The agent act a command runs: a publication is a proposal in round 0 (or with none of its own yet), else a revision. */
function actOf(command: RapsCommand): RapsAct {
  if (command.kind === 'deliver') return 'audit';
  if (command.kind === 'refine') return 'refine-subscription';
  return command.round === 0 || command.own === null ? 'propose' : 'revise';
}

/** A running node returned by {@link startRapsNode}. */
export type RapsNode = Awaited<ReturnType<typeof startRapsNode>>;

/** The `Proposal` view of a publication, for `Agent.revise`. */
export function messageToProposal(message: Message): Proposal {
  return {
    agentId: message.from,
    taskId: message.taskId ?? '',
    round: message.round,
    text: message.text,
    answer: message.answer ?? null,
  };
}

async function publish(
  agent: Agent,
  runId: string,
  command: Extract<RapsCommand, { kind: 'publish' }>,
): Promise<Message> {
  const task = command.task as Task;
  const own = command.own as Message | null;
  const acted =
    command.round === 0 || own === null
      ? await agent.propose({ task })
      : await agent.revise({
          task,
          round: command.round,
          own: messageToProposal(own),
          peers: (command.received as Message[])
            .filter((message) => message.from !== agent.identity.id)
            .map(messageToProposal),
        });
  const proposal = acted.value;
  // DONE: an agent whose answer did not change since its last publication (or that says DONE) is done.
  const done =
    (own !== null && proposal.answer !== null && proposal.answer === (own.answer ?? null)) ||
    /(^|\n)\s*DONE\s*$/m.test(proposal.text);
  return {
    schemaVersion: 1,
    id: publicationId(runId, task.id, command.round, agent.identity.id),
    from: agent.identity.id,
    round: command.round,
    taskId: task.id,
    text: proposal.text,
    answer: proposal.answer,
    done,
  };
}
