import type { AgentId } from '../../core/agent-identity.js';
import type { Message } from '../../core/message.js';
import { reportAgentError, type RapsContext } from './_raps-context.js';
import type { RapsExchange } from './_raps-exchange.js';
import type { RapsTaskState } from './publish-step.js';
import type { RapsDelivery } from './route-step.js';
import { type AuditRecord, auditEvidence } from './watchdog.js';
import { commandId, type RapsCommand, type RapsReport } from './wire.js';

/** What the audits of one round produced. */
export interface AuditOutput {
  /** Verdicts received, in delivery order. */
  readonly audits: AuditRecord[];
  /** Messages each recipient received this round, publishers in roster order. */
  readonly received: Map<AgentId, Message[]>;
  /** The publishers each recipient heard from this round (its candidate witnesses). */
  readonly heardFrom: Map<AgentId, Set<AgentId>>;
}

/**
 * Why an audit report cannot answer the delivery `command` (`undefined` when it can): the auditor
 * must be the recipient, the subject the delivered message's publisher, the message id its id.
 */
function auditMismatch(report: Extract<RapsReport, { kind: 'audited' }>, command: RapsCommand): string | undefined {
  if (command.kind !== 'deliver') return undefined;
  const { message } = command;
  if (report.agentId === command.agentId && report.subject === message.from && report.messageId === message.id)
    return undefined;
  return `audit report for message ${report.messageId} names auditor ${JSON.stringify(report.agentId)} and subject ${JSON.stringify(report.subject)}; expected auditor ${JSON.stringify(command.agentId)} and subject ${JSON.stringify(message.from)} of the delivered message ${message.id}; the verdict is ignored`;
}

/**
 * Step 3: each recipient receives its deliveries and audits them; the verdicts update both the
 * beliefs and the first-hand evidence, r ← λr + reliable, s ← λs + (1 − reliable), in a canonical
 * order (see {@link auditEvidence}). A missing or failed audit, or a report that does not match its
 * delivery (another auditor, subject or message), counts as an agent error and is ignored. Writes an
 * `audit` span and event per verdict, with the auditor's belief after it.
 */
export async function auditStep(
  context: RapsContext,
  exchange: RapsExchange,
  state: RapsTaskState,
  round: number,
  deliveries: readonly RapsDelivery[],
): Promise<AuditOutput> {
  const { order, model, firstHand, totals, emit, tracer } = context;
  const { runId } = context.settings;
  const { task, wireTask } = state;
  const commands: RapsCommand[] = deliveries.map(({ recipient, message }) => ({
    schemaVersion: 1,
    kind: 'deliver',
    id: commandId(runId, task.id, round, 'deliver', recipient, message.id),
    runId,
    agentId: recipient,
    round,
    task: wireTask,
    message,
  }));
  const audited = await exchange.send(commands);
  const audits: AuditRecord[] = [];
  for (const command of commands) {
    const report = audited.get(command.id)?.report;
    const mismatch = report?.kind === 'audited' ? auditMismatch(report, command) : undefined;
    if (mismatch !== undefined)
      // Applied, it would write evidence into another observer's watchdog or about another subject.
      reportAgentError(context, { taskId: task.id, round, agentId: command.agentId, report, missing: mismatch });
    else if (report?.kind === 'audited')
      audits.push({
        auditor: report.agentId,
        subject: report.subject,
        messageId: report.messageId,
        reliable: report.reliable,
        reason: report.reason,
      });
    else {
      reportAgentError(context, { taskId: task.id, round, agentId: command.agentId, report, missing: 'no audit' });
    }
  }
  const evidence = auditEvidence(audits, task.id, order);
  model.observe(evidence);
  firstHand.observe(evidence);
  totals.audits += audits.length;
  for (const audit of audits) {
    const beliefAfter = model.belief(audit.auditor, audit.subject).expectation;
    tracer.record({
      type: 'audit',
      taskId: task.id,
      round,
      auditor: audit.auditor,
      subject: audit.subject,
      messageId: audit.messageId,
      reliable: audit.reliable,
      reason: audit.reason,
      beliefAfter,
    });
    emit({ schemaVersion: 1, type: 'audit', taskId: task.id, round, ...audit, beliefAfter });
  }
  const received = new Map<AgentId, Message[]>();
  const heardFrom = new Map<AgentId, Set<AgentId>>();
  for (const { recipient, message } of deliveries) {
    const list = received.get(recipient) ?? [];
    list.push(message);
    received.set(recipient, list);
    const heard = heardFrom.get(recipient) ?? new Set<AgentId>();
    heard.add(message.from);
    heardFrom.set(recipient, heard);
  }
  for (const list of received.values())
    list.sort((left, right) => order.indexOf(left.from) - order.indexOf(right.from));
  return { audits, received, heardFrom };
}
