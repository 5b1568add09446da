import type { AgentId } from '../../core/agent-identity.js';
import { requireEntry } from '../../core/entry.js';
import type { Message } from '../../core/message.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { RapsContext } from './_raps-context.js';
import { addCoverage, selectWithRouter } from './_route-extras.js';

/** One delivery: `message` goes to `recipient`. */
export interface RapsDelivery {
  readonly recipient: AgentId;
  readonly message: Message;
}

/** What routing one round's publications produced. */
export interface RouteOutput {
  /** Deliveries in publication order, each publication's recipients best first. */
  readonly deliveries: RapsDelivery[];
  /** Receivers the trust policy kept away from a publisher this round (E < τ, no delivery). */
  readonly filteredAway: Array<{ receiver: AgentId; publisher: AgentId }>;
  /** Deliveries made. */
  readonly routed: number;
  /** Deliveries broadcast would have made. */
  readonly broadcast: number;
}

/**
 * Step 2: the broker routes each publication to its top-k subscribers by cosine similarity of the
 * publication's embedding to their subscriptions, under the trust policy on the receiver's belief
 * E_receiver[publisher] (probation draws seeded per message and receiver); then the coverage slots
 * (ours) or a route selector adjust the recipients. Writes a `route` span and event per publication.
 * A route selector that throws or answers badly is the broker's fault, never the publisher's: the
 * publication keeps the similarity decision (or the valid part of the choice) and a `route-error`
 * event reports it; no agent is charged with an error and no belief changes.
 */
export async function routeStep(
  context: RapsContext,
  taskId: string,
  round: number,
  publications: readonly Message[],
): Promise<RouteOutput> {
  const { model, broker, tracer, emit, totals, settings } = context;
  const vectors = await context.embedder.embed(publications.map((message) => message.text));
  const deliveries: RapsDelivery[] = [];
  const filteredAway: Array<{ receiver: AgentId; publisher: AgentId }> = [];
  let routed = 0;
  let broadcast = 0;
  for (const [index, message] of publications.entries()) {
    const vector = requireEntry(vectors, index, 'publication embedding');
    const trust = (receiver: AgentId, publisher: AgentId) => model.belief(receiver, publisher).expectation;
    const draw = (receiver: AgentId) => createRng(deriveSeed(settings.seed, 'probation', message.id, receiver))();
    let decision = broker.route(message.from, vector, trust, draw);
    if (settings.coverageSlots > 0)
      decision = addCoverage(
        decision,
        broker,
        vector,
        settings.coverageSlots,
        context.order,
        (receiver) => model.counts(receiver, message.from),
        trust,
      );
    if (context.routeSelector)
      decision = await selectWithRouter(
        context.routeSelector,
        broker,
        message,
        vector,
        trust,
        context.subscriptions,
        decision,
        (error, fallback) => {
          totals.routeErrors++;
          emit({
            schemaVersion: 1,
            type: 'route-error',
            taskId,
            round,
            publisher: message.from,
            messageId: message.id,
            source: 'route-selector',
            error,
            fallback,
          });
        },
        draw,
      );
    routed += decision.recipients.length;
    broadcast += decision.broadcast;
    for (const recipient of decision.recipients) deliveries.push({ recipient, message });
    for (const receiver of decision.distrusted)
      if (!decision.recipients.includes(receiver)) filteredAway.push({ receiver, publisher: message.from });
    tracer.record({
      type: 'route',
      taskId,
      round,
      publisher: message.from,
      messageId: message.id,
      recipients: decision.recipients,
      reasons: decision.reasons,
      distrusted: decision.distrusted,
      distrustReasons: decision.distrustReasons,
      belowFloor: decision.belowFloor,
      broadcast: decision.broadcast,
    });
    emit({
      schemaVersion: 1,
      type: 'route',
      taskId,
      round,
      publisher: message.from,
      messageId: message.id,
      recipients: decision.recipients,
      reasons: decision.reasons,
      distrusted: decision.distrusted,
      distrustReasons: decision.distrustReasons,
      belowFloor: decision.belowFloor,
      broadcast: decision.broadcast,
    });
  }
  totals.routed += routed;
  totals.broadcast += broadcast;
  return { deliveries, filteredAway, routed, broadcast };
}
