import type { AgentId } from '../../core/agent-identity.js';
import { requireEntry, requireMapEntry } from '../../core/entry.js';
import type { Message } from '../../core/message.js';
import type { RapsContext } from './_raps-context.js';
import { viewOf } from './_raps-context.js';
import type { RapsTaskState } from './publish-step.js';
import type { RapsCarriedState, RapsDecision, RapsResult } from './raps-types.js';
import { peerReputation } from './watchdog.js';

/**
 * Step 6: decides the task from the agents whose reputation is at least τ, weighted by it (all
 * agents that published if none is): the team view rep(j) = mean of E_i[j] over i ≠ j, or with a
 * decider its own view E_decider[j] (itself 1), and then also what the team view would have
 * decided. Writes the `decision` event.
 */
export function decideStep(context: RapsContext, state: RapsTaskState, roundsTaken: number): RapsDecision {
  const { order, decider, emit } = context;
  const { task, last } = state;
  const decideWith = (reputation: Readonly<Record<AgentId, number>>) => {
    let eligible = order.filter(
      (agentId) => last.has(agentId) && requireEntry(reputation, agentId, 'reputation') >= context.tau,
    );
    if (eligible.length === 0) eligible = order.filter((agentId) => last.has(agentId));
    const proposals = eligible.map((agentId) => {
      const message = requireMapEntry(last, agentId, 'last publication');
      return { agentId, taskId: task.id, round: message.round, text: message.text, answer: message.answer ?? null };
    });
    const weights = Object.fromEntries(
      eligible.map((agentId) => [agentId, requireEntry(reputation, agentId, 'reputation')]),
    );
    return {
      eligible,
      decision: context.aggregator.aggregate({
        task,
        proposals,
        agents: context.identities.filter((agent) => eligible.includes(agent.id)),
        weights,
      }),
    };
  };
  const teamReputation = peerReputation(context.model, order, { informedOnly: context.informedOnly });
  const { eligible, decision } = decideWith(decider === undefined ? teamReputation : viewOf(context, decider));
  const teamView = decider === undefined ? undefined : decideWith(teamReputation);
  const answers = Object.fromEntries(order.map((agentId) => [agentId, last.get(agentId)?.answer ?? null]));
  const texts = Object.fromEntries(
    order.flatMap((agentId) => {
      const message: Message | undefined = last.get(agentId);
      return message === undefined ? [] : [[agentId, message.text]];
    }),
  );
  emit({
    schemaVersion: 1,
    type: 'decision',
    taskId: task.id,
    answer: decision.answer,
    support: decision.support,
    eligible,
    rounds: roundsTaken,
  });
  return {
    taskId: task.id,
    answer: decision.answer,
    support: decision.support,
    eligible,
    rounds: roundsTaken,
    answers,
    texts,
    ...(teamView === undefined ? {} : { teamView: { answer: teamView.decision.answer, eligible: teamView.eligible } }),
  };
}

/** The state to carry to the next task (or to persist, to resume a session after this task). */
export function carriedState(context: RapsContext, globalRound: number): RapsCarriedState {
  return {
    schemaVersion: 1,
    beliefs: context.model.snapshot(),
    firstHand: context.firstHand.snapshot(),
    reported: Object.fromEntries(context.reported),
    subscriptions: { ...context.subscriptions },
    globalRound,
  };
}

/** E_i[j] for every observer i and subject j ≠ i, after the last round. */
export function finalBeliefs(context: RapsContext): RapsResult['beliefs'] {
  const beliefs: Record<AgentId, Record<AgentId, number>> = {};
  for (const observer of context.order) {
    const row: Record<AgentId, number> = {};
    for (const subject of context.order)
      if (subject !== observer) row[subject] = context.model.belief(observer, subject).expectation;
    beliefs[observer] = row;
  }
  return beliefs;
}
