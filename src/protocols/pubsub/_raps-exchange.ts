// The coordinator's side of the wire: sends commands to the agents' nodes and matches their replies
// (publications and reports) to the commands by id, dropping duplicates and counting malformed ones.
// A report it cannot act on safely (another schema version, a malformed provider-failure record)
// stops the run: the next `send` throws it.
import type { Agent } from '../../agents/agent.js';
import { DataFormatError, InvalidArgumentError, TransportError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import { createDeduplicator } from '../../transport/dedupe.js';
import { subjectToken } from '../../transport/subject.js';
import type { TransportSubscription } from '../../transport/transport.js';
import type { RapsContext } from './_raps-context.js';
import { type RapsNode, startRapsNode } from './node.js';
import { rapsDurables } from './raps-durables.js';
import { decodeReport, encodeWire, parseMessage, type RapsCommand, type RapsReport, rapsSubjects } from './wire.js';

/** An agent's reply to one command: a publication or a report. */
export interface RapsReply {
  readonly message?: Message;
  readonly report?: RapsReport;
}

/** Sends commands and waits for their replies; `open` before the first send, `close` at the end. */
export interface RapsExchange {
  /** Subscribes to the reply subjects and starts the nodes of `hostAgents` on the transport, each with `redact` (see `startRapsNode`). */
  open(hostAgents: readonly Agent[], redact?: (text: string) => string): Promise<void>;
  /** Declares that the publication with `messageId` answers the publish command `commandId`. */
  expectPublication(messageId: string, commandId: string): void;
  /**
   * Publishes every command, then waits until each has a reply (keyed by command id), or throws a
   * TransportError once `replyTimeoutMs` has passed on the context's clock, or at once when a
   * report could not be acted on (a `RapsWireError`).
   */
  send(commands: readonly RapsCommand[]): Promise<Map<string, RapsReply>>;
  /** Stops the hosted nodes, then the reply subscriptions (the transport itself stays open; the consumers stay). */
  close(): Promise<void>;
}

/** Builds the exchange of one run; nothing is subscribed until `open`. */
export function createRapsExchange(context: RapsContext): RapsExchange {
  const { transport, totals, emit, clock, order } = context;
  const { runId, replyTimeoutMs } = context.settings;
  const subjects = rapsSubjects(runId);
  const durables = rapsDurables(runId);
  const replies = new Map<string, RapsReply>();
  const expectedPublication = new Map<string, string>(); // message id -> command id
  const seenReplies = createDeduplicator(1_000_000);
  const held: TransportSubscription[] = [];
  const nodes: RapsNode[] = [];
  let wake: (() => void) | null = null;
  // The first report that stops the run; thrown by the next (or current) `send`.
  let fatal: TransportError | undefined;

  const arrived = (key: string, value: RapsReply): void => {
    if (!seenReplies.firstTime(key)) {
      totals.duplicates++;
      return;
    }
    replies.set(key, value);
    wake?.();
  };
  const malformed = (subject: string, id: string, error: unknown): void => {
    totals.malformed++;
    emit({ schemaVersion: 1, type: 'malformed', subject, id, error: (error as Error).message });
  };

  return {
    async open(hostAgents, redact) {
      held.push(
        await transport.subscribe(
          subjects.publications,
          (delivery) => {
            try {
              const message = parseMessage(delivery.data, { subject: delivery.subject, id: delivery.id });
              const command = expectedPublication.get(message.id);
              if (command === undefined)
                throw new DataFormatError({
                  file: delivery.subject,
                  message: `publication ${message.id} from ${message.from} was not requested in this run; dropped (a publisher from another run on the same subject?)`,
                });
              arrived(command, { message });
            } catch (error) {
              malformed(delivery.subject, delivery.id, error);
            }
          },
          { durable: durables.publications },
        ),
      );
      held.push(
        await transport.subscribe(
          subjects.reports,
          (delivery) => {
            try {
              const report = decodeReport(delivery.data, { subject: delivery.subject, id: delivery.id });
              arrived(report.commandId, { report });
            } catch (error) {
              if (error instanceof TransportError) {
                fatal ??= error;
                wake?.();
              } else malformed(delivery.subject, delivery.id, error);
            }
          },
          { durable: durables.reports },
        ),
      );
      for (const agent of hostAgents) {
        if (!order.includes(agent.identity.id))
          throw new InvalidArgumentError({
            parameter: 'hostAgents',
            value: agent.identity.id,
            message: `hosted agent ${agent.identity.id} is not in agents`,
          });
        nodes.push(await startRapsNode({ transport, runId, agent, ...(redact === undefined ? {} : { redact }) }));
      }
    },

    expectPublication(messageId, commandId) {
      expectedPublication.set(messageId, commandId);
    },

    async send(commands) {
      if (fatal) throw fatal;
      await Promise.all(
        commands.map((command) =>
          transport.publish(subjects.commands(subjectToken(command.agentId)), encodeWire(command), { id: command.id }),
        ),
      );
      const deadline = clock() + replyTimeoutMs;
      for (;;) {
        if (fatal) throw fatal;
        const missing = commands.filter((command) => !replies.has(command.id));
        if (missing.length === 0) break;
        const remaining = deadline - clock();
        if (remaining <= 0) {
          throw new TransportError(
            `no reply within ${replyTimeoutMs} ms to ${missing.length} command(s), e.g. ${missing[0]?.id} for agent ${missing[0]?.agentId}; is that agent's node running on transport ${transport.name}?`,
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(remaining, 250));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
      const result = new Map<string, RapsReply>();
      for (const command of commands) {
        // Present: the loop above only exits once every command has a reply.
        result.set(command.id, replies.get(command.id) ?? {});
        replies.delete(command.id);
      }
      return result;
    },

    async close() {
      // Detached, not deleted: a session calls runRaps again on the same wire run after a failed task,
      // and that call resumes where these consumers stopped. The run's owner deletes them at its end
      // (`deleteRapsDurables`; with the run's stream once the run finished, `deleteFinishedRapsRun`).
      for (const node of nodes) await node.stop();
      for (const subscription of held) await subscription.stop();
    },
  };
}
