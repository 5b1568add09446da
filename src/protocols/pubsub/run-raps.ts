// RAPS coordination loop (Li et al. 2026, arXiv 2602.08009): per round publish → route → receive →
// audit → witness → refine, until a quorum publishes DONE or the round limit; the answer is
// aggregated from the agents whose peer reputation is at least τ. Thin orchestration over the
// step files (publish-step.ts … decide-step.ts); the options are resolved in _raps-context.ts and
// the replies matched in _raps-exchange.ts.
import type { AgentId } from '../../core/agent-identity.js';
import type { Message } from '../../core/message.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import type { BetaModelOptions } from '../../reputation/beta.js';
import { createRapsContext, type RapsContext, viewOf } from './_raps-context.js';
import { createRapsExchange } from './_raps-exchange.js';
import { auditStep } from './audit-step.js';
import { carriedState, decideStep, finalBeliefs } from './decide-step.js';
import { publishStep, type RapsTaskState } from './publish-step.js';
import type { RunRapsOptions } from './raps-options.js';
import type { RapsDecision, RapsResult, RapsRoundStats } from './raps-types.js';
import { refineStep } from './refine-step.js';
import { routeStep } from './route-step.js';
import { peerReputation } from './watchdog.js';
import { witnessStep } from './witness-step.js';
import { taskToWire } from './wire.js';

export type { RunRapsOptions } from './raps-options.js';
export type { RapsCarriedState, RapsDecision, RapsResult, RapsRoundStats } from './raps-types.js';

const knownRunRapsOptions = defineOptionKeys<RunRapsOptions>()([
  'agents',
  'subscriptions',
  'tasks',
  'hostAgents',
  'redact',
  'transport',
  'runId',
  'embedder',
  'maxRounds',
  'doneQuorum',
  'topK',
  'floor',
  'trustPolicy',
  'probation',
  'seed',
  'beta',
  'refine',
  'witness',
  'maxWitnesses',
  'witnessMinDirectEvidence',
  'witnessSubjectMinDirectEvidence',
  'attention',
  'teamView',
  'recovery',
  'coverageSlots',
  'witnessBehaviour',
  'routeSelector',
  'decider',
  'aggregator',
  'replyTimeoutMs',
  'onEvent',
  'trace',
  'initialState',
  'onTaskDone',
  'now',
]);
const knownBetaOptions = defineOptionKeys<BetaModelOptions>()([
  'lambda',
  'delta',
  'omega',
  'tau',
  'witnessCredibility',
]);

/**
 * Runs RAPS over `tasks` with the given team.
 *
 * @example
 * const result = await runRaps({ agents: team.map((agent) => agent.identity), hostAgents: team, subscriptions, tasks });
 * result.decisions[0].answer;
 */
export async function runRaps(options: RunRapsOptions): Promise<RapsResult> {
  assertKnownOptions('', options, knownRunRapsOptions, 'runRaps');
  assertKnownOptions('beta', options.beta, knownBetaOptions, 'runRaps');
  const context = await createRapsContext(options);
  const { order, model, settings } = context;
  const exchange = createRapsExchange(context);
  try {
    await exchange.open(options.hostAgents ?? [], options.redact);
    const decisions: RapsDecision[] = [];
    const rounds: RapsRoundStats[] = [];
    let globalRound = options.initialState?.globalRound ?? 0;
    for (const task of options.tasks) {
      const firstRound = rounds.length;
      const state: RapsTaskState = { task, wireTask: taskToWire(task), last: new Map(), inbox: new Map() };
      let roundsTaken = 0;
      for (let round = 0; round < settings.maxRounds; round++) {
        roundsTaken = round + 1;
        const publications = await publishStep(context, exchange, state, round);
        const routed = await routeStep(context, task.id, round, publications);
        const audited = await auditStep(context, exchange, state, round, routed.deliveries);
        const witnessed = witnessStep(context, task.id, round, audited.heardFrom);
        if (settings.recovery < 1) recover(context, task.id, round, routed.filteredAway);
        await refineStep(context, exchange, task.id, round, audited.received);

        // Termination check: a quorum of this round's publishers said DONE.
        const done = publications.filter((message) => message.done === true).length;
        const reputation = peerReputation(model, order, { informedOnly: context.informedOnly });
        globalRound++;
        rounds.push({
          taskId: task.id,
          round,
          globalRound,
          publications: publications.length,
          routed: routed.routed,
          broadcast: routed.broadcast,
          audits: audited.audits.length,
          ...witnessed,
          done,
          reputation,
          ...(context.decider === undefined ? {} : { deciderView: viewOf(context, context.decider) }),
        });
        await context.emit({
          schemaVersion: 1,
          type: 'round',
          taskId: task.id,
          round,
          globalRound,
          done,
          publishers: publications.length,
          reputation,
        });
        state.inbox = attend(context, audited.received);
        if (publications.length > 0 && done >= settings.doneQuorum * publications.length) break;
      }

      const decision = decideStep(context, state, roundsTaken);
      decisions.push(decision);
      if (options.onTaskDone)
        await options.onTaskDone({
          decision,
          rounds: rounds.slice(firstRound),
          state: carriedState(context, globalRound),
        });
    }
    return {
      schemaVersion: 1,
      runId: settings.runId,
      decisions,
      rounds,
      finalReputation: peerReputation(model, order, { informedOnly: context.informedOnly }),
      beliefs: finalBeliefs(context),
      totals: { ...context.totals },
      subscriptions: { ...context.subscriptions },
    };
  } finally {
    await exchange.close();
    if (context.ownsTransport) await context.transport.close();
  }
}

/**
 * Recovery (ours): each belief of a receiver about a publisher it kept away this round ages towards
 * the prior, r ← ρ·r, s ← ρ·s; a `recovery` span and event per belief.
 */
function recover(
  context: RapsContext,
  taskId: string,
  round: number,
  filteredAway: ReadonlyArray<{ receiver: AgentId; publisher: AgentId }>,
): void {
  const { model, settings, emit, tracer } = context;
  for (const { receiver, publisher } of filteredAway) {
    const beliefBefore = model.belief(receiver, publisher).expectation;
    model.relaxTowardPrior(receiver, publisher, settings.recovery);
    const recovery = {
      taskId,
      round,
      receiver,
      publisher,
      rho: settings.recovery,
      beliefBefore,
      beliefAfter: model.belief(receiver, publisher).expectation,
    };
    tracer.record({ type: 'recovery', ...recovery });
    emit({ schemaVersion: 1, type: 'recovery', ...recovery });
  }
}

/**
 * What each receiver revises on next round. Attention (ours): with 'trusted', only the messages of
 * publishers it still trusts after this round's audits and witness checks (E ≥ τ).
 */
function attend(context: RapsContext, received: Map<AgentId, Message[]>): Map<AgentId, Message[]> {
  if (context.settings.attention === 'trusted')
    for (const [recipient, list] of received)
      received.set(
        recipient,
        list.filter((message) => context.model.isTrusted(recipient, message.from)),
      );
  return received;
}
