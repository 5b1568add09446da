// RAPS coordination loop (Li et al. 2026, arXiv 2602.08009): per round publish → route → receive →
// audit → refine, until a quorum publishes DONE or the round limit; the answer is aggregated from
// the agents whose peer reputation is at least τ. Thin orchestration over broker.ts, watchdog.ts,
// node.ts and wire.ts.
import type { Agent } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import { validateTeam } from '../../core/agent-identity.js';
import { DataFormatError, InvalidArgumentError, TransportError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { Task } from '../../core/task.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import { createTracer, type TraceSink } from '../../core/trace.js';
import { assertInRange, assertInteger, assertNonEmptyString } from '../../core/validate.js';
import type { Aggregator } from '../../aggregation/aggregator.js';
import { createReputationPlurality } from './_reputation-plurality.js';
import { createBetaModel, type BetaModelOptions, type BetaReputationModel } from '../../reputation/beta.js';
import type { ReputationSnapshot } from '../../reputation/reputation-model.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { createHashedNgramEmbedder } from '../../embeddings/hashed-ngram.js';
import { cosineDistance } from '../../embeddings/vector.js';
import { createInProcessBus } from '../../transport/in-process-bus.js';
import { createDeduplicator } from '../../transport/dedupe.js';
import { subjectToken } from '../../transport/subject.js';
import type { Transport, TransportSubscription } from '../../transport/transport.js';
import { createBroker, type Broker, type BrokerOptions, type RouteDecision, type TrustPolicy } from './broker.js';
import type { RapsEvent } from './events.js';
import { startRapsNode, type RapsNode } from './node.js';
import type { RouteSelector } from './route-selector.js';
import { auditEvidence, peerReputation, witnessReports, type AuditRecord, type WitnessBehaviour } from './watchdog.js';
import {
  commandId,
  publicationId,
  decodeWire,
  encodeWire,
  parseMessage,
  rapsSubjects,
  reportSchema,
  taskToWire,
  type RapsCommand,
  type RapsReport,
} from './wire.js';

/** Options of {@link runRaps}. */
export interface RunRapsOptions {
  /** Team members in a fixed order (ties and canonical orders follow it). */
  agents: readonly { readonly id: AgentId; readonly model: string }[];
  /** Initial subscription (standing intent) text per agent. */
  subscriptions: Readonly<Record<AgentId, string>>;
  /** Tasks, worked one after another; beliefs carry over. */
  tasks: readonly Task[];
  /** Agents hosted in this process (nodes started on the transport); the others must run elsewhere. @default [] */
  hostAgents?: readonly Agent[];
  /** Message transport. @default a new in-process bus */
  transport?: Transport;
  /** Run id (subjects `raps.<runId>.…`); letters, digits, `-`, `_`. @default 'raps' */
  runId?: string;
  /** Embedding provider for subscriptions and publications. @default createHashedNgramEmbedder() (384-dim) */
  embedder?: Embedder;
  /** Rounds per task, ≥ 1. @default 4 */
  maxRounds?: number;
  /** Stop a task once at least this fraction of publishers says DONE, in (0, 1]. @default 0.6 */
  doneQuorum?: number;
  /** Recipients per publication. @default 3 */
  topK?: number;
  /** Minimum cosine similarity for routing, in [-1, 1]. @default 0.05 */
  floor?: number;
  /** Trust policy at the broker. @default 'filter' */
  trustPolicy?: TrustPolicy;
  /** Probation probability of the filter policy (see {@link BrokerOptions.probation}). @default 0 */
  probation?: number;
  /** Seed of the probation draws, derived per (message, receiver). @default 0 */
  seed?: number;
  /** Beta watchdog parameters λ, δ, ω, τ. @default { lambda: 0.9, delta: 1.5, omega: 0.3, tau: 0.4 } */
  beta?: BetaModelOptions;
  /** Reactive subscription refinement after each round. @default true */
  refine?: boolean;
  /**
   * Second-hand witness checks after each round: witnesses report their first-hand (audit) counts,
   * again only after new evidence; the `beta` model runs the deviation test and merges. @default true
   */
  witness?: boolean;
  /** Witnesses each observer consults per round (the most trusted it heard from), ≥ 0. @default 3 */
  maxWitnesses?: number;
  /**
   * Ours, not RAPS: consult a witness only when the observer's first-hand (audit) evidence about it
   * is at least this many (decayed) verdicts and its first-hand E ≥ τ. 0 = off. @default 0
   */
  witnessMinDirectEvidence?: number;
  /**
   * Ours, not RAPS: what a receiver attends to when it revises. `'all'`: every message delivered
   * last round; `'trusted'`: only those whose publisher it still trusts after that round's audits
   * and witness checks (E_receiver[publisher] ≥ τ), so a message the receiver just judged
   * unreliable does not sway it. @default 'all'
   */
  attention?: 'all' | 'trusted';
  /**
   * Ours, not RAPS: the team view used for the decision (no decider) and the per-round reputation.
   * `'all'`: mean of E_i[j] over every i ≠ j; `'informed'`: only over observers holding evidence
   * about j (see {@link peerReputation}). @default 'all'
   */
  teamView?: 'all' | 'informed';
  /**
   * Ours, not RAPS: recovery factor ρ in [0, 1]. After each round, a receiver's belief about a
   * publisher that it filtered away this round (E < τ, no delivery) is aged towards the prior,
   * r ← ρ·r, s ← ρ·s, so that it is re-tested once E climbs back to τ. 1 = off. @default 1
   */
  recovery?: number;
  /**
   * Ours, not RAPS: of the `topK` recipients, this many are coverage slots. The broker picks
   * `topK − coverageSlots` by similarity as usual; each coverage slot then goes to the remaining
   * subscriber (sim ≥ floor, passing the trust policy) that holds the least evidence about the
   * publisher (r + s smallest; ties by similarity, then roster order), so that every publisher is
   * audited by many different peers and not only by the cluster its refined subscription attracts.
   * In [0, topK − 1]; not with a `routeSelector`. @default 0
   */
  coverageSlots?: number;
  /** Witness behaviour per agent (absent = honest). @default {} */
  witnessBehaviour?: Readonly<Record<AgentId, WitnessBehaviour>>;
  /** LLM (or other) recipient chooser used instead of plain top-k. @default undefined */
  routeSelector?: RouteSelector;
  /**
   * The agent whose watchdog decides (the requester's own agent): eligible are the decider and the
   * agents j with E_decider[j] ≥ τ, weighted by E_decider[j] (the decider by 1). Omitted = the team
   * view: agents whose peer reputation (mean of E_i[j] over i ≠ j) is ≥ τ, weighted by it. When
   * adversaries are a majority, only a decider's view can exclude them. @default undefined
   */
  decider?: AgentId;
  /** Final aggregation over agents with reputation ≥ τ. @default weighted plurality by reputation */
  aggregator?: Aggregator;
  /** Time to wait for all replies of one phase, in ms. @default 60000 */
  replyTimeoutMs?: number;
  /**
   * Receives every event as it happens. A promise returned for a `round` event is awaited before
   * the next round starts (to inject faults or pace a run between rounds); for other events the
   * return value is ignored. @default no-op
   */
  onEvent?: (event: RapsEvent) => unknown;
  /** Trace sink for `route` and `audit` spans. @default no-op */
  trace?: TraceSink;
  /**
   * State carried over from an earlier run of the same team (beliefs, subscriptions), as handed to
   * `onTaskDone`; a session resumes from the state after its last finished task. @default none (the prior)
   */
  initialState?: RapsCarriedState;
  /**
   * Called after each task's decision with the task's round counters and the state to carry on
   * (awaited before the next task starts; persist both together to resume exactly). @default none
   */
  onTaskDone?: (input: {
    readonly decision: RapsDecision;
    readonly rounds: readonly RapsRoundStats[];
    readonly state: RapsCarriedState;
  }) => unknown;
  /**
   * Clock in ms for span times and reply deadlines (`replyTimeoutMs` is measured on it; a frozen clock never
   * times out). @default spans at 0, deadlines on `Date.now`
   */
  now?: () => number;
}

/** What RAPS carries from one task to the next (schemaVersion 1): persist it to resume a run. */
export interface RapsCarriedState {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** The watchdog's beliefs E_i[j] (first- and second-hand), a Beta model snapshot. */
  readonly beliefs: ReputationSnapshot;
  /** First-hand (audit) evidence only, what witnesses report. */
  readonly firstHand: ReputationSnapshot;
  /** Witness reports already made, keyed by (observer, witness, subject). */
  readonly reported: Readonly<Record<string, string>>;
  /** Subscription text per agent. */
  readonly subscriptions: Readonly<Record<AgentId, string>>;
  /** Rounds run so far across tasks. */
  readonly globalRound: number;
}

/** One task's decision. */
export interface RapsDecision {
  /** Id of the decided task. */
  readonly taskId: string;
  /** Winning answer key, or null. */
  readonly answer: string | null;
  /** Support per answer key from the aggregator (with the default, the summed reputation of the eligible agents that gave it). */
  readonly support: Readonly<Record<string, number>>;
  /** Agents whose answers were aggregated (reputation ≥ τ). */
  readonly eligible: readonly AgentId[];
  /** Rounds the task took. */
  readonly rounds: number;
  /** Each agent's last answer. */
  readonly answers: Readonly<Record<AgentId, string | null>>;
  /** Each agent's last publication text. */
  readonly texts: Readonly<Record<AgentId, string>>;
  /**
   * With a decider: what the team view (no decider; agents whose peer reputation is ≥ τ, weighted
   * by it) would have decided at the same point of the same run, to show what the decider buys.
   */
  readonly teamView?: { readonly answer: string | null; readonly eligible: readonly AgentId[] };
}

/** Counters of one round. */
export interface RapsRoundStats {
  /** Id of the task the round belongs to. */
  readonly taskId: string;
  /** 0-based round index within the task. */
  readonly round: number;
  /** 1-based count of rounds run so far across all tasks, this one included. */
  readonly globalRound: number;
  /** Publications this round: agents whose publish act succeeded, ≤ n. */
  readonly publications: number;
  /** Deliveries the broker made. */
  readonly routed: number;
  /** Deliveries broadcast would have made: publications × (n − 1). */
  readonly broadcast: number;
  /** Audit calls (one per delivery). */
  readonly audits: number;
  /** Witness reports checked. */
  readonly witnessChecks: number;
  /** Witness reports refused by the deviation test. */
  readonly witnessRejected: number;
  /** Agents that said DONE. */
  readonly done: number;
  /** Peer reputation of every agent after the round. */
  readonly reputation: Readonly<Record<AgentId, number>>;
  /** The decider's belief E_decider[j] about every agent j (its own entry 1), when a decider is set. */
  readonly deciderView?: Readonly<Record<AgentId, number>>;
}

/** Result of {@link runRaps} (schemaVersion 1). */
export interface RapsResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Run id used in the transport subjects. */
  readonly runId: string;
  /** One decision per task, in task order. */
  readonly decisions: readonly RapsDecision[];
  /** Counters of every round, in the order run. */
  readonly rounds: readonly RapsRoundStats[];
  /** Peer reputation after the last round. */
  readonly finalReputation: Readonly<Record<AgentId, number>>;
  /** E_i[j] for every observer i and subject j after the last round. */
  readonly beliefs: Readonly<Record<AgentId, Readonly<Record<AgentId, number>>>>;
  /** Sums of the round counters over the whole run, plus transport and failure counts. */
  readonly totals: {
    /** Publications over all rounds. */
    readonly publications: number;
    /** Deliveries the broker made over all rounds. */
    readonly routed: number;
    /** Deliveries broadcast would have made over all rounds. */
    readonly broadcast: number;
    /** Audit calls over all rounds. */
    readonly audits: number;
    /** Witness reports checked over all rounds. */
    readonly witnessChecks: number;
    /** Witness reports refused by the deviation test over all rounds. */
    readonly witnessRejected: number;
    /** Subscription refinements applied over all rounds. */
    readonly refinements: number;
    /** Wire messages rejected as malformed (counted, never fatal). */
    readonly malformed: number;
    /** Replies seen more than once and dropped (at-least-once duplicates). */
    readonly duplicates: number;
    /** Agent acts that failed. */
    readonly agentErrors: number;
  };
  /** Final subscription text per agent. */
  readonly subscriptions: Readonly<Record<AgentId, string>>;
}

/**
 * Runs RAPS over `tasks` with the given team.
 *
 * @example
 * const result = await runRaps({ agents: team.map((agent) => agent.identity), hostAgents: team, subscriptions, tasks });
 * result.decisions[0].answer;
 */
export async function runRaps(options: RunRapsOptions): Promise<RapsResult> {
  const identities = options.agents;
  validateTeam(identities as { id: string; model: string }[], 'agents');
  const order = identities.map((agent) => agent.id);
  const runId = options.runId ?? 'raps';
  assertNonEmptyString('runId', runId);
  if (!/^[A-Za-z0-9_-]+$/.test(runId))
    throw new InvalidArgumentError({
      parameter: 'runId',
      value: runId,
      message: `runId may only contain letters, digits, '-' and '_', got ${JSON.stringify(runId)}`,
    });
  if (!Array.isArray(options.tasks) || options.tasks.length === 0)
    throw new InvalidArgumentError({
      parameter: 'tasks',
      value: options.tasks,
      message: 'tasks must be a non-empty list of tasks',
    });
  for (const agentId of order) {
    if (typeof options.subscriptions?.[agentId] !== 'string') {
      throw new InvalidArgumentError({
        parameter: `subscriptions.${agentId}`,
        value: options.subscriptions?.[agentId],
        message: `every agent needs an initial subscription text; subscriptions.${agentId} is missing`,
      });
    }
  }
  const maxRounds = options.maxRounds ?? 4;
  const doneQuorum = options.doneQuorum ?? 0.6;
  const replyTimeoutMs = options.replyTimeoutMs ?? 60_000;
  assertInteger('maxRounds', maxRounds, 1, 1000);
  assertInRange('doneQuorum', doneQuorum, 0, 1, { minExclusive: true });
  assertInteger('replyTimeoutMs', replyTimeoutMs, 1);
  const decider = options.decider;
  if (decider !== undefined && !order.includes(decider))
    throw new InvalidArgumentError({
      parameter: 'decider',
      value: decider,
      message: `decider ${JSON.stringify(decider)} is not one of the agents (${order.join(', ')})`,
    });
  const refine = options.refine ?? true;
  const attention = options.attention ?? 'all';
  if (attention !== 'all' && attention !== 'trusted')
    throw new InvalidArgumentError({
      parameter: 'attention',
      value: attention,
      message: `attention must be 'all' or 'trusted', got ${JSON.stringify(attention)}`,
    });
  const teamView = options.teamView ?? 'all';
  if (teamView !== 'all' && teamView !== 'informed')
    throw new InvalidArgumentError({
      parameter: 'teamView',
      value: teamView,
      message: `teamView must be 'all' or 'informed', got ${JSON.stringify(teamView)}`,
    });
  const informedOnly = teamView === 'informed';
  const recovery = options.recovery ?? 1;
  assertInRange('recovery', recovery, 0, 1);
  const witness = options.witness ?? true;
  const embedder = options.embedder ?? createHashedNgramEmbedder();
  const model: BetaReputationModel = createBetaModel({ agents: order, ...(options.beta ?? {}) });
  // First-hand evidence only (audits), what witnesses report; see witnessReports.
  const firstHand: BetaReputationModel = createBetaModel({ agents: order, ...(options.beta ?? {}) });
  const reported = new Map<string, string>(Object.entries(options.initialState?.reported ?? {}));
  if (options.initialState) {
    model.restore(options.initialState.beliefs);
    firstHand.restore(options.initialState.firstHand);
  }
  const tau = model.parameters.tau;
  const topK = options.topK ?? 3;
  const coverageSlots = options.coverageSlots ?? 0;
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
    floor: options.floor ?? 0.05,
    tau,
    trustPolicy: options.trustPolicy ?? 'filter',
    probation: options.probation ?? 0,
  });
  const seed = options.seed ?? 0;
  const aggregator = options.aggregator ?? createReputationPlurality();
  const emit = options.onEvent ?? (() => {});
  const tracer = createTracer({ sink: options.trace, now: options.now ?? (() => 0) });
  const clock = options.now ?? Date.now;
  const ownsTransport = options.transport === undefined;
  const transport = options.transport ?? createInProcessBus();
  const subjects = rapsSubjects(runId);

  const totals = {
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
  };
  const subscriptions: Record<AgentId, string> = {};
  const subscriptionVectors = new Map<AgentId, Float32Array>();
  const startSubscriptions = { ...options.subscriptions, ...(options.initialState?.subscriptions ?? {}) };
  const initialVectors = await embedder.embed(order.map((agentId) => startSubscriptions[agentId] as string));
  order.forEach((agentId, index) => {
    subscriptions[agentId] = startSubscriptions[agentId] as string;
    subscriptionVectors.set(agentId, initialVectors[index] as Float32Array);
    broker.subscribe(agentId, initialVectors[index] as Float32Array);
  });

  // Replies by command id; waiters resolve when every expected id has arrived.
  const replies = new Map<string, { message?: Message; report?: RapsReport }>();
  const expectedPublication = new Map<string, string>(); // message id -> command id
  const seenReplies = createDeduplicator(1_000_000);
  let wake: (() => void) | null = null;
  const arrived = (key: string, value: { message?: Message; report?: RapsReport }): void => {
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

  const subscriptionsHeld: TransportSubscription[] = [];
  const nodes: RapsNode[] = [];
  try {
    subscriptionsHeld.push(
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
        { durable: `coordinator-pub-${runId}` },
      ),
    );
    subscriptionsHeld.push(
      await transport.subscribe(
        subjects.reports,
        (delivery) => {
          try {
            const report = decodeWire(reportSchema, delivery.data, { subject: delivery.subject, id: delivery.id });
            arrived(report.commandId, { report });
          } catch (error) {
            malformed(delivery.subject, delivery.id, error);
          }
        },
        { durable: `coordinator-report-${runId}` },
      ),
    );
    for (const agent of options.hostAgents ?? []) {
      if (!order.includes(agent.identity.id))
        throw new InvalidArgumentError({
          parameter: 'hostAgents',
          value: agent.identity.id,
          message: `hosted agent ${agent.identity.id} is not in agents`,
        });
      nodes.push(await startRapsNode({ transport, runId, agent }));
    }

    const send = async (commands: RapsCommand[]): Promise<Map<string, { message?: Message; report?: RapsReport }>> => {
      await Promise.all(
        commands.map((command) =>
          transport.publish(subjects.commands(subjectToken(command.agentId)), encodeWire(command), { id: command.id }),
        ),
      );
      const deadline = clock() + replyTimeoutMs;
      for (;;) {
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
      const result = new Map<string, { message?: Message; report?: RapsReport }>();
      for (const command of commands) {
        result.set(command.id, replies.get(command.id) as { message?: Message; report?: RapsReport });
        replies.delete(command.id);
      }
      return result;
    };

    const viewOf = (observer: AgentId): Record<AgentId, number> =>
      Object.fromEntries(
        order.map((subject) => [subject, subject === observer ? 1 : model.belief(observer, subject).expectation]),
      );
    const decisions: RapsDecision[] = [];
    const rounds: RapsRoundStats[] = [];
    let globalRound = options.initialState?.globalRound ?? 0;
    for (const task of options.tasks) {
      const firstRound = rounds.length;
      const wireTask = taskToWire(task);
      const last = new Map<AgentId, Message>();
      let inbox = new Map<AgentId, Message[]>();
      let roundsTaken = 0;
      for (let round = 0; round < maxRounds; round++) {
        roundsTaken = round + 1;
        // 1. Publish.
        const publishCommands: RapsCommand[] = order.map((agentId) => {
          const id = commandId(runId, task.id, round, 'publish', agentId);
          expectedPublication.set(publicationId(runId, task.id, round, agentId), id);
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
        const published = await send(publishCommands);
        const publications: Message[] = [];
        for (const command of publishCommands) {
          const reply = published.get(command.id);
          if (reply?.message) {
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
            totals.agentErrors++;
            emit({
              schemaVersion: 1,
              type: 'agent-error',
              taskId: task.id,
              round,
              agentId: command.agentId,
              error: reply?.report?.kind === 'failed' ? reply.report.error : 'no publication',
            });
          }
        }
        totals.publications += publications.length;

        // 2. Route.
        const vectors = await embedder.embed(publications.map((message) => message.text));
        const deliveries: Array<{ recipient: AgentId; message: Message }> = [];
        const filteredAway: Array<{ receiver: AgentId; publisher: AgentId }> = [];
        let routed = 0;
        let broadcast = 0;
        for (const [index, message] of publications.entries()) {
          const trust = (receiver: AgentId, publisher: AgentId) => model.belief(receiver, publisher).expectation;
          const draw = (receiver: AgentId) => createRng(deriveSeed(seed, 'probation', message.id, receiver))();
          let decision = broker.route(message.from, vectors[index] as Float32Array, trust, draw);
          if (coverageSlots > 0)
            decision = addCoverage(
              decision,
              broker,
              vectors[index] as Float32Array,
              coverageSlots,
              order,
              (receiver) => model.counts(receiver, message.from),
              trust,
            );
          if (options.routeSelector)
            decision = await selectWithRouter(
              options.routeSelector,
              broker,
              message,
              vectors[index] as Float32Array,
              trust,
              subscriptions,
              emit,
              task.id,
              round,
            );
          routed += decision.recipients.length;
          broadcast += decision.broadcast;
          for (const recipient of decision.recipients) deliveries.push({ recipient, message });
          for (const receiver of decision.distrusted)
            if (!decision.recipients.includes(receiver)) filteredAway.push({ receiver, publisher: message.from });
          tracer.record({
            type: 'route',
            publisher: message.from,
            messageId: message.id,
            recipients: decision.recipients,
            reasons: decision.reasons,
          });
          emit({
            schemaVersion: 1,
            type: 'route',
            taskId: task.id,
            round,
            publisher: message.from,
            messageId: message.id,
            recipients: decision.recipients,
            reasons: decision.reasons,
            distrusted: decision.distrusted,
            broadcast: decision.broadcast,
          });
        }
        totals.routed += routed;
        totals.broadcast += broadcast;

        // 3. Receive and audit.
        const deliverCommands: RapsCommand[] = deliveries.map(({ recipient, message }) => ({
          schemaVersion: 1,
          kind: 'deliver',
          id: commandId(runId, task.id, round, 'deliver', recipient, message.id),
          runId,
          agentId: recipient,
          round,
          task: wireTask,
          message,
        }));
        const audited = await send(deliverCommands);
        const audits: AuditRecord[] = [];
        for (const command of deliverCommands) {
          const report = audited.get(command.id)?.report;
          if (report?.kind === 'audited')
            audits.push({
              auditor: report.agentId,
              subject: report.subject,
              messageId: report.messageId,
              reliable: report.reliable,
              reason: report.reason,
            });
          else {
            totals.agentErrors++;
            emit({
              schemaVersion: 1,
              type: 'agent-error',
              taskId: task.id,
              round,
              agentId: command.agentId,
              error: report?.kind === 'failed' ? report.error : 'no audit',
            });
          }
        }
        const firstHandEvidence = auditEvidence(audits, task.id, order);
        model.observe(firstHandEvidence);
        firstHand.observe(firstHandEvidence);
        totals.audits += audits.length;
        for (const audit of audits) {
          tracer.record({
            type: 'audit',
            auditor: audit.auditor,
            subject: audit.subject,
            messageId: audit.messageId,
            reliable: audit.reliable,
            reason: audit.reason,
          });
          emit({
            schemaVersion: 1,
            type: 'audit',
            taskId: task.id,
            round,
            ...audit,
            beliefAfter: model.belief(audit.auditor, audit.subject).expectation,
          });
        }
        const nextInbox = new Map<AgentId, Message[]>();
        const heardFrom = new Map<AgentId, Set<AgentId>>();
        for (const { recipient, message } of deliveries) {
          const list = nextInbox.get(recipient) ?? [];
          list.push(message);
          nextInbox.set(recipient, list);
          const heard = heardFrom.get(recipient) ?? new Set<AgentId>();
          heard.add(message.from);
          heardFrom.set(recipient, heard);
        }
        for (const list of nextInbox.values())
          list.sort((left, right) => order.indexOf(left.from) - order.indexOf(right.from));

        // 4. Second-hand witness checks.
        let witnessChecks = 0;
        let witnessRejected = 0;
        if (witness) {
          const reports = witnessReports({
            model,
            order,
            heardFrom,
            behaviour: options.witnessBehaviour ?? {},
            maxWitnesses: options.maxWitnesses ?? 3,
            firstHand,
            reported,
            minDirectEvidence: options.witnessMinDirectEvidence ?? 0,
            tau,
          });
          for (const report of reports) {
            const check = model.assessWitness(report);
            model.observe([report]);
            witnessChecks++;
            if (!check.accepted) witnessRejected++;
            emit({
              schemaVersion: 1,
              type: 'witness',
              taskId: task.id,
              round,
              observer: report.observer,
              witness: report.witness,
              subject: report.subject,
              deviation: check.deviation,
              accepted: check.accepted,
            });
          }
        }
        totals.witnessChecks += witnessChecks;
        totals.witnessRejected += witnessRejected;

        // Recovery (ours): filtered-away beliefs age towards the prior, r ← ρ·r, s ← ρ·s.
        if (recovery < 1)
          for (const { receiver, publisher } of filteredAway) model.relaxTowardPrior(receiver, publisher, recovery);

        // 5. Reactive subscription refinement.
        if (refine) {
          const refineCommands: RapsCommand[] = order
            .filter((agentId) => (nextInbox.get(agentId)?.length ?? 0) > 0)
            .map((agentId) => ({
              schemaVersion: 1,
              kind: 'refine',
              id: commandId(runId, task.id, round, 'refine', agentId),
              runId,
              agentId,
              round,
              current: subscriptions[agentId] as string,
              received: nextInbox.get(agentId) ?? [],
            }));
          const refined = await send(refineCommands);
          const changed: Array<{ agentId: AgentId; text: string }> = [];
          for (const command of refineCommands) {
            const report = refined.get(command.id)?.report;
            if (report?.kind === 'refined') {
              if (report.text !== subscriptions[command.agentId] && report.text.trim() !== '')
                changed.push({ agentId: command.agentId, text: report.text });
            } else {
              totals.agentErrors++;
              emit({
                schemaVersion: 1,
                type: 'agent-error',
                taskId: task.id,
                round,
                agentId: command.agentId,
                error: report?.kind === 'failed' ? report.error : 'no refinement',
              });
            }
          }
          const newVectors = await embedder.embed(changed.map((item) => item.text));
          changed.forEach(({ agentId, text }, index) => {
            const before = subscriptions[agentId] as string;
            const vector = newVectors[index] as Float32Array;
            // drift = 1 − cos(e(old), e(new))
            const drift = cosineDistance(subscriptionVectors.get(agentId) as Float32Array, vector);
            subscriptions[agentId] = text;
            subscriptionVectors.set(agentId, vector);
            broker.subscribe(agentId, vector);
            totals.refinements++;
            emit({ schemaVersion: 1, type: 'refine', taskId: task.id, round, agentId, before, after: text, drift });
          });
        }

        // 6. Termination check.
        const done = publications.filter((message) => message.done === true).length;
        const reputation = peerReputation(model, order, { informedOnly });
        globalRound++;
        rounds.push({
          taskId: task.id,
          round,
          globalRound,
          publications: publications.length,
          routed,
          broadcast,
          audits: audits.length,
          witnessChecks,
          witnessRejected,
          done,
          reputation,
          ...(decider === undefined ? {} : { deciderView: viewOf(decider) }),
        });
        await emit({
          schemaVersion: 1,
          type: 'round',
          taskId: task.id,
          round,
          globalRound,
          done,
          publishers: publications.length,
          reputation,
        });
        // Attention (ours): with 'trusted', a receiver revises only on publishers it still trusts.
        if (attention === 'trusted') {
          for (const [recipient, list] of nextInbox)
            nextInbox.set(
              recipient,
              list.filter((message) => model.isTrusted(recipient, message.from)),
            );
        }
        inbox = nextInbox;
        if (publications.length > 0 && done >= doneQuorum * publications.length) break;
      }

      // Decide from agents whose reputation (team view, or the decider's view) is at least τ.
      const decideWith = (reputation: Readonly<Record<AgentId, number>>) => {
        let eligible = order.filter((agentId) => last.has(agentId) && (reputation[agentId] as number) >= tau);
        if (eligible.length === 0) eligible = order.filter((agentId) => last.has(agentId));
        const proposals = eligible.map((agentId) => {
          const message = last.get(agentId) as Message;
          return { agentId, taskId: task.id, round: message.round, text: message.text, answer: message.answer ?? null };
        });
        const weights = Object.fromEntries(eligible.map((agentId) => [agentId, reputation[agentId] as number]));
        return {
          eligible,
          decision: aggregator.aggregate({
            task,
            proposals,
            agents: identities.filter((agent) => eligible.includes(agent.id)),
            weights,
          }),
        };
      };
      const teamReputation = peerReputation(model, order, { informedOnly });
      const { eligible, decision } = decideWith(decider === undefined ? teamReputation : viewOf(decider));
      const teamView = decider === undefined ? undefined : decideWith(teamReputation);
      const answers = Object.fromEntries(order.map((agentId) => [agentId, last.get(agentId)?.answer ?? null]));
      const texts = Object.fromEntries(
        order.filter((agentId) => last.has(agentId)).map((agentId) => [agentId, (last.get(agentId) as Message).text]),
      );
      decisions.push({
        taskId: task.id,
        answer: decision.answer,
        support: decision.support,
        eligible,
        rounds: roundsTaken,
        answers,
        texts,
        ...(teamView === undefined
          ? {}
          : { teamView: { answer: teamView.decision.answer, eligible: teamView.eligible } }),
      });
      emit({
        schemaVersion: 1,
        type: 'decision',
        taskId: task.id,
        answer: decision.answer,
        support: decision.support,
        eligible,
        rounds: roundsTaken,
      });
      if (options.onTaskDone) {
        const state: RapsCarriedState = {
          schemaVersion: 1,
          beliefs: model.snapshot(),
          firstHand: firstHand.snapshot(),
          reported: Object.fromEntries(reported),
          subscriptions: { ...subscriptions },
          globalRound,
        };
        await options.onTaskDone({
          decision: decisions.at(-1) as RapsDecision,
          rounds: rounds.slice(firstRound),
          state,
        });
      }
    }

    const beliefs: Record<AgentId, Record<AgentId, number>> = {};
    for (const observer of order) {
      beliefs[observer] = {};
      for (const subject of order)
        if (subject !== observer)
          (beliefs[observer] as Record<AgentId, number>)[subject] = model.belief(observer, subject).expectation;
    }
    return {
      schemaVersion: 1,
      runId,
      decisions,
      rounds,
      finalReputation: peerReputation(model, order, { informedOnly }),
      beliefs,
      totals: { ...totals },
      subscriptions: { ...subscriptions },
    };
  } finally {
    for (const node of nodes) await node.stop();
    for (const subscription of subscriptionsHeld) await subscription.stop();
    if (ownsTransport) await transport.close();
  }
}

async function selectWithRouter(
  selector: RouteSelector,
  broker: ReturnType<typeof createBroker>,
  message: Message,
  vector: Float32Array,
  trust: (receiver: AgentId, publisher: AgentId) => number,
  subscriptions: Readonly<Record<AgentId, string>>,
  emit: (event: RapsEvent) => void,
  taskId: string,
  round: number,
) {
  // Candidates: everyone the similarity router would accept, without the top-k cut.
  const wide = createBroker({
    dimensions: broker.dimensions,
    topK: Math.max(1, broker.size),
    floor: broker.options.floor,
    tau: broker.options.tau,
    trustPolicy: broker.options.trustPolicy,
  });
  for (const agentId of broker.subscribers()) wide.subscribe(agentId, broker.vectorOf(agentId));
  const candidates = wide.route(message.from, vector, trust);
  const offered = candidates.reasons.map((reason) => ({
    agentId: reason.agentId,
    subscription: subscriptions[reason.agentId] ?? '',
    similarity: reason.components?.similarity ?? 0,
    trust: reason.components?.trust ?? 0,
  }));
  const chosen = await selector({ publication: message, candidates: offered, topK: broker.options.topK });
  const allowed = new Set(offered.map((candidate) => candidate.agentId));
  const recipients = [...new Set(chosen)].filter((agentId) => allowed.has(agentId)).slice(0, broker.options.topK);
  const refused = chosen.filter((agentId) => !allowed.has(agentId));
  if (refused.length > 0)
    emit({
      schemaVersion: 1,
      type: 'agent-error',
      taskId,
      round,
      agentId: message.from,
      error: `route selector chose ${refused.join(', ')}, not among the candidates; ignored`,
    });
  return {
    ...candidates,
    recipients,
    reasons: candidates.reasons
      .filter((reason) => recipients.includes(reason.agentId))
      .map((reason) => ({ ...reason, note: `chosen by route selector; ${reason.note ?? ''}` })),
  };
}

/**
 * Ours: adds up to `slots` coverage recipients to a similarity decision: among the subscribers not
 * yet chosen (publisher excluded) with sim ≥ floor that trust the publisher (E ≥ τ; the filter
 * policy), those with the least evidence r + s about the publisher, ties by higher similarity,
 * then roster order.
 */
function addCoverage(
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
    .map((agentId, row) => ({ agentId, similarity: similarities[row] as number, rank: order.indexOf(agentId) }))
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
