import type { Agent } from '../../agents/agent.js';
import type { Aggregator } from '../../aggregation/aggregator.js';
import type { AgentId } from '../../core/agent-identity.js';
import type { Task } from '../../core/task.js';
import type { TraceSink } from '../../core/trace.js';
import type { Embedder } from '../../embeddings/embedder.js';
import type { BetaModelOptions } from '../../reputation/beta.js';
import type { Transport } from '../../transport/transport.js';
import type { BrokerOptions, TrustPolicy } from './broker.js';
import type { RapsEvent } from './events.js';
import type { RapsCarriedState, RapsDecision, RapsRoundStats } from './raps-types.js';
import type { RouteSelector } from './route-selector.js';
import type { WitnessBehaviour, peerReputation } from './watchdog.js';

/** Options of {@link runRaps}. */
export interface RunRapsOptions {
  /** Team members in a fixed order (ties and canonical orders follow it). */
  agents: readonly { readonly id: AgentId; readonly model: string }[];
  /** Initial subscription (standing intent) text per agent; not blank. */
  subscriptions: Readonly<Record<AgentId, string>>;
  /** Tasks, worked one after another; beliefs carry over. */
  tasks: readonly Task[];
  /** Agents hosted in this process (nodes started on the transport); the others must run elsewhere. @default [] */
  hostAgents?: readonly Agent[];
  /**
   * Removes secrets (API keys) from the failure reports of the `hostAgents`' nodes, as a node
   * process does with its own (see `startRapsNode`). @default no change
   */
  redact?: (text: string) => string;
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
   * Ours, not RAPS: merge a witness's report about a subject only when the observer's own
   * first-hand (audit) evidence about that subject is at least this many (decayed) verdicts, so that
   * colluding witnesses cannot push below τ, and starve, a peer the observer never heard itself
   * (docs/raps.md, "What falls short"); the cost is that warnings about a peer reach only observers
   * that audited it. 0 = off (the RAPS base). @default 0
   */
  witnessSubjectMinDirectEvidence?: number;
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
  /** Trace sink for `route`, `audit` and `recovery` spans (each with its task and round). @default no-op */
  trace?: TraceSink;
  /**
   * State carried over from an earlier run of the same team (beliefs, subscriptions), as handed to
   * `onTaskDone`; a session resumes from the state after its last finished task. Its Beta counts
   * carry over, but λ, δ, ω, τ and witness credibility are this run's `beta` options; a state of
   * another set of agents is refused. @default none (the prior)
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
