// Two ways to adjust the broker's top-k recipients: a route selector (an LLM or other chooser
// picks among every candidate the similarity router accepts) and the coverage slots (ours).
import type { AgentId } from '../../core/agent-identity.js';
import { requireEntry } from '../../core/entry.js';
import type { Message } from '../../core/message.js';
import { type Broker, createBroker, type RouteDecision } from './broker.js';
import type { RouteSelector } from './route-selector.js';

/**
 * Lets `selector` choose up to top-k recipients among the candidates the similarity router accepts
 * (floor, trust policy and probation as in plain routing, with the same `draw`).
 * The selector is part of the broker: when it throws or returns something other than a list of ids,
 * `similarity` (the broker's own decision) stands and `reportError(error, true)` is called; ids
 * outside the candidates are ignored and reported with `reportError(error, false)`. Neither is the
 * publisher's fault, so neither is reported as an agent error.
 */
export async function selectWithRouter(
  selector: RouteSelector,
  broker: Broker,
  message: Message,
  vector: Float32Array,
  trust: (receiver: AgentId, publisher: AgentId) => number,
  subscriptions: Readonly<Record<AgentId, string>>,
  similarity: RouteDecision,
  reportError: (error: string, fallback: boolean) => unknown,
  draw?: (receiver: AgentId) => number,
): Promise<RouteDecision> {
  // Candidates: everyone the similarity router would accept, without the top-k cut.
  const wide = createBroker({
    dimensions: broker.dimensions,
    topK: Math.max(1, broker.size),
    floor: broker.options.floor,
    tau: broker.options.tau,
    trustPolicy: broker.options.trustPolicy,
    // Probation applies to the candidates as it does to plain top-k (the same draw per message and receiver).
    probation: broker.options.probation,
  });
  for (const agentId of broker.subscribers()) wide.subscribe(agentId, broker.vectorOf(agentId));
  const candidates = wide.route(message.from, vector, trust, draw);
  const offered = candidates.reasons.map((reason) => ({
    agentId: reason.agentId,
    subscription: subscriptions[reason.agentId] ?? '',
    similarity: reason.components?.similarity ?? 0,
    trust: reason.components?.trust ?? 0,
  }));
  let chosen: unknown;
  try {
    chosen = await selector({ publication: message, candidates: offered, topK: broker.options.topK });
  } catch (error) {
    reportError(
      `route selector failed on ${message.id}: ${error instanceof Error ? error.message : String(error)}; routed by similarity instead`,
      true,
    );
    return similarity;
  }
  if (!Array.isArray(chosen) || !chosen.every((agentId) => typeof agentId === 'string')) {
    reportError(
      `route selector returned ${describe(chosen)} for ${message.id}, not a list of agent ids; routed by similarity instead`,
      true,
    );
    return similarity;
  }
  const allowed = new Set(offered.map((candidate) => candidate.agentId));
  const recipients = [...new Set(chosen as AgentId[])]
    .filter((agentId) => allowed.has(agentId))
    .slice(0, broker.options.topK);
  const refused = (chosen as AgentId[]).filter((agentId) => !allowed.has(agentId));
  if (refused.length > 0)
    reportError(`route selector chose ${refused.join(', ')}, not among the candidates; ignored`, false);
  return {
    ...candidates,
    recipients,
    reasons: candidates.reasons
      .filter((reason) => recipients.includes(reason.agentId))
      .map((reason) => ({ ...reason, note: `chosen by route selector; ${reason.note ?? ''}` })),
  };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list with a non-string entry';
  return value === null ? 'null' : typeof value;
}

/**
 * Ours: adds up to `slots` coverage recipients to a similarity decision: among the subscribers not
 * yet chosen (publisher excluded) with sim ≥ floor that trust the publisher (E ≥ τ; the filter
 * policy), those with the least evidence r + s about the publisher, ties by higher similarity,
 * then roster order.
 */
export function addCoverage(
  decision: RouteDecision,
  broker: Broker,
  vector: Float32Array,
  slots: number,
  order: readonly AgentId[],
  evidence: (receiver: AgentId) => { positive: number; negative: number },
  trust: (receiver: AgentId, publisher: AgentId) => number,
): RouteDecision {
  const similarities = broker.similarities(vector);
  const rows = broker.subscribers();
  const chosen = new Set(decision.recipients);
  const { floor, tau } = broker.options;
  const candidates = rows
    .map((agentId, row) => ({
      agentId,
      similarity: requireEntry(similarities, row, 'subscriber similarity'),
      rank: order.indexOf(agentId),
    }))
    .filter(
      (candidate) =>
        candidate.agentId !== decision.publisher &&
        !chosen.has(candidate.agentId) &&
        candidate.similarity >= floor &&
        trust(candidate.agentId, decision.publisher) >= tau,
    )
    .map((candidate) => {
      const counts = evidence(candidate.agentId);
      return { ...candidate, evidence: counts.positive + counts.negative };
    })
    .sort(
      (left, right) => left.evidence - right.evidence || right.similarity - left.similarity || left.rank - right.rank,
    )
    .slice(0, slots);
  return {
    ...decision,
    recipients: [...decision.recipients, ...candidates.map((candidate) => candidate.agentId)],
    reasons: [
      ...decision.reasons,
      ...candidates.map((candidate) => {
        const belief = trust(candidate.agentId, decision.publisher);
        return {
          agentId: candidate.agentId,
          weight: candidate.similarity,
          components: {
            similarity: candidate.similarity,
            trust: belief,
            score: candidate.similarity,
            evidence: candidate.evidence,
          },
          note: `coverage slot: evidence ${candidate.evidence.toFixed(2)} about the publisher, similarity ${candidate.similarity.toFixed(3)}`,
        };
      }),
    ],
  };
}
