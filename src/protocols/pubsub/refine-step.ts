import type { AgentId } from '../../core/agent-identity.js';
import { requireEntry, requireMapEntry } from '../../core/entry.js';
import type { Message } from '../../core/message.js';
import { cosineDistance } from '../../embeddings/vector.js';
import { reportAgentError, type RapsContext } from './_raps-context.js';
import type { RapsExchange } from './_raps-exchange.js';
import { commandId, type RapsCommand } from './wire.js';

/**
 * Step 5: reactive subscription refinement. Every agent that received messages this round may
 * rewrite its subscription; a changed, non-blank text is re-embedded and re-subscribed at the
 * broker. Writes a `refine` event per change, with drift = 1 − cos(e(old), e(new)). Does nothing
 * with `refine: false`.
 */
export async function refineStep(
  context: RapsContext,
  exchange: RapsExchange,
  taskId: string,
  round: number,
  received: ReadonlyMap<AgentId, Message[]>,
): Promise<void> {
  if (!context.settings.refine) return;
  const { order, subscriptions, subscriptionVectors, totals, emit } = context;
  const { runId } = context.settings;
  const commands: RapsCommand[] = order
    .filter((agentId) => (received.get(agentId)?.length ?? 0) > 0)
    .map((agentId) => ({
      schemaVersion: 1,
      kind: 'refine',
      id: commandId(runId, taskId, round, 'refine', agentId),
      runId,
      agentId,
      round,
      current: requireEntry(subscriptions, agentId, 'subscription text'),
      received: received.get(agentId) ?? [],
    }));
  const refined = await exchange.send(commands);
  const changed: Array<{ agentId: AgentId; text: string }> = [];
  for (const command of commands) {
    const report = refined.get(command.id)?.report;
    if (report?.kind === 'refined') {
      if (report.text !== subscriptions[command.agentId] && report.text.trim() !== '')
        changed.push({ agentId: command.agentId, text: report.text });
    } else {
      reportAgentError(context, { taskId, round, agentId: command.agentId, report, missing: 'no refinement' });
    }
  }
  const newVectors = await context.embedder.embed(changed.map((item) => item.text));
  changed.forEach(({ agentId, text }, index) => {
    const before = requireEntry(subscriptions, agentId, 'subscription text');
    const vector = requireEntry(newVectors, index, 'refined subscription embedding');
    // drift = 1 − cos(e(old), e(new))
    const drift = cosineDistance(requireMapEntry(subscriptionVectors, agentId, 'subscription embedding'), vector);
    subscriptions[agentId] = text;
    subscriptionVectors.set(agentId, vector);
    context.broker.subscribe(agentId, vector);
    totals.refinements++;
    emit({ schemaVersion: 1, type: 'refine', taskId, round, agentId, before, after: text, drift });
  });
}
