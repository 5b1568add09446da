// Everything a RAPS step reads or updates, built once per run from the options: defaults resolved
// with the shared helper (_raps-settings.ts), every option validated before any message is sent.
import type { Aggregator } from '../../aggregation/aggregator.js';
import type { AgentId } from '../../core/agent-identity.js';
import { requireEntry } from '../../core/entry.js';
import { createTracer, type Tracer } from '../../core/trace.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { createHashedNgramEmbedder } from '../../embeddings/hashed-ngram.js';
import { type BetaModelOptions, type BetaReputationModel, createBetaModel } from '../../reputation/beta.js';
import type { ReputationSnapshot } from '../../reputation/reputation-model.js';
import { createInProcessBus } from '../../transport/in-process-bus.js';
import type { Transport } from '../../transport/transport.js';
import { createReputationPlurality } from './_reputation-plurality.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { assertInteger } from '../../core/validate.js';
import { type Broker, createBroker } from './broker.js';
import type { RapsEvent } from './events.js';
import type { RunRapsOptions } from './raps-options.js';
import type { RapsResult } from './raps-types.js';
import type { RapsReport } from './wire.js';
import { type RapsSettings, resolveRapsSettings } from './_raps-settings.js';

/** Mutable counters of a run (what {@link RapsResult.totals} reports). */
export type RapsTotals = { -readonly [key in keyof RapsResult['totals']]: number };

/** The state shared by the steps of one run. */
export interface RapsContext {
  readonly settings: Readonly<RapsSettings>;
  readonly identities: RunRapsOptions['agents'];
  /** Agent ids in roster order (ties and canonical orders follow it). */
  readonly order: readonly AgentId[];
  readonly decider: AgentId | undefined;
  /** The team view counts only informed observers (`teamView: 'informed'`). */
  readonly informedOnly: boolean;
  /** E_i[j], first- and second-hand. */
  readonly model: BetaReputationModel;
  /** First-hand (audit) evidence only, what witnesses report. */
  readonly firstHand: BetaReputationModel;
  /** Witness reports already made, keyed by (observer, witness, subject). */
  readonly reported: Map<string, string>;
  readonly tau: number;
  readonly broker: Broker;
  readonly embedder: Embedder;
  readonly aggregator: Aggregator;
  readonly routeSelector: RunRapsOptions['routeSelector'];
  readonly emit: (event: RapsEvent) => unknown;
  readonly tracer: Tracer;
  /** Clock of the reply deadlines. */
  readonly clock: () => number;
  readonly transport: Transport;
  /** The run created `transport` and closes it at the end. */
  readonly ownsTransport: boolean;
  readonly totals: RapsTotals;
  /** Current subscription text and its embedding, per agent. */
  readonly subscriptions: Record<AgentId, string>;
  readonly subscriptionVectors: Map<AgentId, Float32Array>;
}

/**
 * Counts a failed act and emits its `agent-error` event: the agent's own error when it reported a
 * failure (with its provider-failure record when the act's model call failed), else `missing` (no
 * usable reply came back, e.g. `'no audit'`).
 */
export function reportAgentError(
  { totals, emit }: Pick<RapsContext, 'totals' | 'emit'>,
  {
    taskId,
    round,
    agentId,
    report,
    missing,
  }: { taskId: string; round: number; agentId: AgentId; report: RapsReport | undefined; missing: string },
): void {
  totals.agentErrors++;
  const failed = report?.kind === 'failed' ? report : undefined;
  emit({
    schemaVersion: 1,
    type: 'agent-error',
    taskId,
    round,
    agentId,
    error: failed?.error ?? missing,
    ...(failed?.providerFailure === undefined ? {} : { providerFailure: failed.providerFailure }),
  });
}

/** Validates `options`, resolves the defaults, and builds the models, the broker and the first subscriptions. */
export async function createRapsContext(options: RunRapsOptions): Promise<RapsContext> {
  const { settings, order, decider } = resolveRapsSettings(options);
  const identities = options.agents;
  const embedder = options.embedder ?? createHashedNgramEmbedder();
  const model = createBetaModel({ agents: order, ...(options.beta ?? {}) });
  const firstHand = createBetaModel({ agents: order, ...(options.beta ?? {}) });
  const reported = new Map<string, string>(Object.entries(options.initialState?.reported ?? {}));
  if (options.initialState) {
    // The saved counts carry over; λ, δ, ω, τ and witness credibility are this run's options (a
    // snapshot's own parameters would silently override them, e.g. a team file's new τ).
    model.restore(withParameters(options.initialState.beliefs, model.parameters));
    firstHand.restore(withParameters(options.initialState.firstHand, firstHand.parameters));
  }
  const tau = model.parameters.tau;
  const { topK, coverageSlots } = settings;
  assertInteger('coverageSlots', coverageSlots, 0, Math.max(0, topK - 1));
  if (coverageSlots > 0 && options.routeSelector)
    throw new InvalidArgumentError({
      parameter: 'coverageSlots',
      value: coverageSlots,
      message: `coverageSlots (${coverageSlots}) cannot be combined with a routeSelector, which picks all recipients itself; pass coverageSlots: 0`,
    });
  const broker = createBroker({
    dimensions: embedder.dimensions,
    topK: topK - coverageSlots,
    floor: settings.floor,
    tau,
    trustPolicy: settings.trustPolicy,
    probation: settings.probation,
  });
  const context: RapsContext = {
    settings,
    identities,
    order,
    decider,
    informedOnly: settings.teamView === 'informed',
    model,
    firstHand,
    reported,
    tau,
    broker,
    embedder,
    aggregator: options.aggregator ?? createReputationPlurality(),
    routeSelector: options.routeSelector,
    emit: options.onEvent ?? (() => {}),
    tracer: createTracer({ sink: options.trace, now: options.now ?? (() => 0) }),
    clock: options.now ?? Date.now,
    transport: options.transport ?? createInProcessBus(),
    ownsTransport: options.transport === undefined,
    totals: {
      publications: 0,
      routed: 0,
      broadcast: 0,
      audits: 0,
      witnessChecks: 0,
      witnessRejected: 0,
      refinements: 0,
      malformed: 0,
      duplicates: 0,
      agentErrors: 0,
      routeErrors: 0,
    },
    subscriptions: {},
    subscriptionVectors: new Map(),
  };
  const start = { ...options.subscriptions, ...(options.initialState?.subscriptions ?? {}) };
  const texts = order.map((agentId) => requireEntry(start, agentId, 'subscription text'));
  const vectors = await embedder.embed(texts);
  order.forEach((agentId, index) => {
    const vector = requireEntry(vectors, index, 'subscription embedding');
    context.subscriptions[agentId] = requireEntry(texts, index, 'subscription text');
    context.subscriptionVectors.set(agentId, vector);
    broker.subscribe(agentId, vector);
  });
  return context;
}

/** The belief E_observer[j] about every agent j, the observer's own entry 1 (a decider's view). */
export function viewOf(context: RapsContext, observer: AgentId): Record<AgentId, number> {
  return Object.fromEntries(
    context.order.map((subject) => [
      subject,
      subject === observer ? 1 : context.model.belief(observer, subject).expectation,
    ]),
  );
}

/** `snapshot` with its Beta parameters replaced by `parameters` (a malformed state is left for `restore` to refuse). */
function withParameters(snapshot: ReputationSnapshot, parameters: BetaModelOptions): ReputationSnapshot {
  const state = snapshot?.state;
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return snapshot;
  return { ...snapshot, state: { ...state, parameters } };
}
