// A protocol is one pluggable part, like a reputation model: this interface, implementations side by
// side (debate, DRF, RAPS), a registry (registry.ts) and one session loop (run-session.ts) that
// owns the store, resume, failures and progress. `repute run` and `repute serve` look a protocol up
// by the `type` of a team file's `protocol` block; they never branch on its name.
import type { z } from 'zod';
import type { Agent } from '../agents/agent.js';
import type { Verifier } from '../aggregation/verifier.js';
import type { AgentId } from '../core/agent-identity.js';
import type { ReputationModel } from '../reputation/reputation-model.js';
import type { CallPrice } from './drf/expected-cost-ledger.js';
import type { RunSessionSummary, SessionRunner } from './run-session.js';

/** A validated `protocol` block of a team file: its `type` and the protocol's own settings. */
export interface ProtocolConfig {
  readonly type: string;
}

/** A problem of a protocol block against the rest of its team file (the field and what to change). */
export interface ProtocolConfigProblem {
  /** Dotted field of the team file, e.g. `protocol.k` or `k`. */
  readonly field: string;
  /** What is wrong and what to write instead (never the field's value). */
  readonly message: string;
}

/** What a protocol needs to run a team's tasks (`Protocol.create`). */
export interface ProtocolRunInput<TConfig extends ProtocolConfig> {
  /** The team's agents, in team-file order. */
  readonly agents: readonly Agent[];
  /** The validated protocol block. */
  readonly config: TConfig;
  /** The methods listed (`methods` of the team file or `--methods`), a subset of `Protocol.methods.names`. */
  readonly methods: readonly string[];
  /** Agents per task from the team file's top-level `k` (checked by `checkTeam`). @default none */
  readonly k?: number | undefined;
  /** Seed of the run's random draws. */
  readonly seed: number;
  /** Run id (sessions store their tasks under it). */
  readonly runId: string;
  /** Team key reputation persists under. */
  readonly team: string;
  /** Where reputation starts when the run has no state yet: the team's saved state, or the prior. */
  readonly reputationStart: 'team' | 'prior';
  /** Grades a decided answer against the task's reference (a `code` answer asynchronously, by its tests). */
  readonly grade: (taskId: string, answer: string | null) => boolean | undefined | Promise<boolean | undefined>;
  /** Price per agent id (expected cost, list-price spend). */
  readonly prices: Readonly<Record<AgentId, CallPrice>>;
  /** Removes secrets (the team's API keys) from text the protocol sends or stores. @default no change */
  readonly redact?: ((text: string) => string) | undefined;
  /**
   * Starts each agent in its own process, connected to a NATS server, and resolves once all are
   * ready; what the host offers to protocols whose agents may run apart (RAPS `transport: nats`).
   * @default none (such a protocol refuses to run its agents apart)
   */
  readonly startAgentProcesses?:
    | ((input: { readonly natsUrl: string; readonly wireRunId: string }) => Promise<{ stop(): Promise<void> }>)
    | undefined;
  /**
   * The team file's verifier (an LLM judge, unit tests in the sandbox), given only to protocols with
   * `usesVerifier`: it judges each proposal before aggregation. @default none
   */
  readonly verifier?: Verifier | undefined;
  /** Agent id the verifier's calls and failures are booked under (the team file's `verifier.id`). @default `verifier` */
  readonly verifierId?: string | undefined;
}

/** One persisted session of a protocol run (debate: one per method; DRF and RAPS: one). */
export interface ProtocolSession<TRecord = unknown> {
  /** Name its task records and reputation are stored under (the progress label). */
  readonly method: string;
  /**
   * The reputation model the session keeps in memory and a maker of fresh ones of its kind, so that a
   * host can merge another writer's updates of the team's saved state; `null` when the session saves
   * reputation it builds itself (other writers' updates are then kept, not merged); omitted when it
   * saves none under the team's shared name.
   */
  readonly reputation?: { readonly model: ReputationModel; readonly create: () => ReputationModel } | null;
  /** Opens the session's runner, with the model to use in place of `reputation.model` when given. */
  open(input: { readonly reputation?: ReputationModel | undefined }): Promise<SessionRunner<TRecord>>;
  /** Releases what `open` started (processes, connections). @default nothing to release */
  close?(): Promise<void>;
}

/** The figures of one method in a run's summary. */
export interface ProtocolMethodFigures {
  /** Tasks with a result. */
  readonly done: number;
  /** Of which read back from an earlier invocation. */
  readonly resumed: number;
  /** Tasks that failed (present when the method ran its own session). */
  readonly failed?: number;
  /** Share of graded tasks decided right, or `null` without references. */
  readonly accuracy: number | null;
  /** Acts that failed inside finished tasks (unusable replies). */
  readonly failures: number;
}

/** List-price spend of a run per agent and per method, with the full-team counterfactual. */
export interface ProtocolSpend {
  /** One row per team member, in team-file order. */
  readonly agents: ReadonlyArray<{
    readonly agentId: string;
    readonly inputTokens: number;
    readonly outputTokens: number;
    /** The agent's calls at list price. */
    readonly listCost: number;
    /** Tasks the agent worked on. */
    readonly tasks: number;
  }>;
  /** List-price spend of each method. */
  readonly methods: ReadonlyArray<{ readonly method: string; readonly listCost: number; readonly note: string }>;
  /** List price of the full team on the same tasks. */
  readonly fullTeam: { readonly agents: number; readonly listCost: number; readonly note: string };
}

/** What a protocol reports of a finished run. */
export interface ProtocolReport {
  /** Per method, in print order. */
  readonly methods: Readonly<Record<string, ProtocolMethodFigures>>;
  /** The run's spend; omitted when the protocol does not estimate it. */
  readonly spend?: ProtocolSpend;
}

/** A finished session as its protocol's `report` gets it. */
export interface ProtocolSessionResult<TRecord = unknown> extends RunSessionSummary<TRecord> {
  /** Tasks read back from an earlier invocation. */
  readonly resumedTasks: number;
}

/** A protocol run: its sessions (run in order) and its report. */
export interface ProtocolRun<TRecord = unknown> {
  readonly sessions: readonly ProtocolSession<TRecord>[];
  /**
   * The run's figures from its finished sessions; `ledger` holds the run's booked calls (agent,
   * act, tokens).
   */
  report(input: {
    readonly sessions: readonly ProtocolSessionResult<TRecord>[];
    readonly ledger: ReadonlyArray<{
      readonly agentId: string | null;
      readonly act: string | null;
      readonly inputTokens: number;
      readonly outputTokens: number;
    }>;
  }): ProtocolReport;
}

/** The fields of a team file a protocol may put in the run's configuration (which names the run). */
export interface ProtocolRunConfigInput<TConfig extends ProtocolConfig> {
  readonly team: string;
  readonly agents: ReadonlyArray<{
    readonly id: string;
    readonly provider: string;
    readonly model: string;
    readonly baseURL: string | null;
    readonly price: CallPrice | null;
  }>;
  readonly config: TConfig;
  readonly methods: readonly string[];
  readonly k?: number | undefined;
  readonly seed: number;
  readonly reputation: 'continue' | 'fresh';
  /** Digest of the task file. */
  readonly tasks: string;
  /** The team file's `verifier:` section, when it has one (a changed verifier is another run). @default none */
  readonly verifier?: unknown;
}

/**
 * A protocol: its `type` (the team file's `protocol.type`), the schema of its block, the methods a
 * team file may list for it, and `create`, which returns the sessions that run a team's tasks.
 * Register one with `registerProtocol`; `repute run` then runs team files of its type.
 */
export interface Protocol<TConfig extends ProtocolConfig = ProtocolConfig, TRecord = unknown> {
  /** Name in team files (`protocol: { type: <type> }`): lower-case letters, digits and `-`. */
  readonly type: string;
  /** One line for help texts. */
  readonly description: string;
  /** Schema of the `protocol` block (a zod object with `type: z.literal(type)`; defaults filled in). */
  readonly configSchema: z.ZodType<TConfig>;
  /** Names a team file may list under `methods`, and the ones run when it lists none. */
  readonly methods: {
    readonly names: readonly string[];
    readonly defaults: readonly string[];
    /** Names that need the team's verifier (refused without a `verifier:` section). @default none */
    readonly verifierOnly?: readonly string[];
  };
  /**
   * Whether the protocol feeds a verifier's verdicts to its aggregation (`ProtocolRunInput.verifier`);
   * a team file with a `verifier:` section is refused for a protocol without it. @default false
   */
  readonly usesVerifier?: boolean;
  /** Cross-field checks against the team (`k`, agent ids); returns the first problem. @default none */
  checkTeam?(input: {
    readonly config: TConfig;
    readonly agentIds: readonly string[];
    readonly k?: number | undefined;
  }): ProtocolConfigProblem | undefined;
  /**
   * The run's configuration (hashed into the default run id; a resumed run must have the same).
   * @default `{ team, agents, protocol: config, methods, k (when given), seed, reputation, tasks }`
   */
  runConfig?(input: ProtocolRunConfigInput<TConfig>): unknown;
  /**
   * Whether its tasks may be decided on several workers (`repute run --workers`, `repute worker`):
   * each task's carried state can be restored from the store before it runs and its reputation
   * update merged into one saved meanwhile by another worker. @default false
   */
  readonly workers?: boolean;
  /** Builds the sessions of a run. */
  create(input: ProtocolRunInput<TConfig>): ProtocolRun<TRecord>;
}

/** Figures of a method from its graded task records (the protocol's own rule or a compared one). */
export function methodFigures(
  records: ReadonlyArray<{ readonly failures: number }>,
  correct: ReadonlyArray<boolean | null>,
  resumed: number,
  failures = records.reduce((sum, record) => sum + record.failures, 0),
): { done: number; resumed: number; accuracy: number | null; failures: number } {
  const graded = correct.filter((value): value is boolean => value !== null);
  return {
    done: records.length,
    resumed,
    accuracy: graded.length === 0 ? null : graded.filter(Boolean).length / graded.length,
    failures,
  };
}

/**
 * The summary's per-method figures of a protocol that decides by its own rule (`method`) and
 * compares aggregators on the same proposals (`compared`, read from each record's `compared`).
 */
export function comparedMethodFigures(
  method: string,
  records: ReadonlyArray<{
    readonly correct: boolean | null;
    readonly failures: number;
    readonly compared: Readonly<Record<string, { readonly correct: boolean | null }>>;
  }>,
  resumed: number,
  compared: readonly string[],
): Record<string, ProtocolMethodFigures> {
  const methods: Record<string, ProtocolMethodFigures> = {
    [method]: methodFigures(
      records,
      records.map((record) => record.correct),
      resumed,
    ),
  };
  for (const name of compared)
    methods[name] = methodFigures(
      records,
      records.map((record) => record.compared[name]?.correct ?? null),
      resumed,
      0,
    );
  return methods;
}
