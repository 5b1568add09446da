// RAPS (arXiv 2602.08009) over a live team, persisted task by task: `runRaps` does the rounds
// (publish → route → audit → witness → refine); after each decision this session writes the task's
// record, its events (with reasons) and the carried state (watchdog beliefs, subscriptions) in one
// transaction, so a killed run resumes from the last finished task with the same beliefs. A task in
// which an agent's model call failed (a provider failure) did not happen: it is recorded as failed,
// not as a result, and `runRaps` goes on after it from the state before it, so a rerun redoes it.
// Hosted agents and agents in other processes report such failures the same way, as the
// provider-failure record of their `failed` report (see wire.ts).
import type { Agent } from '../../agents/agent.js';
import { createAggregator } from '../../aggregation/registry.js';
import { validateTeam, type AgentId, type AgentIdentity } from '../../core/agent-identity.js';
import type { Task } from '../../core/task.js';
import type { SpanData, WeightReason } from '../../core/trace.js';
import {
  assertKnownNames,
  assertKnownOptions,
  assertNonEmptyString,
  assertUniqueTaskIds,
  defineOptionKeys,
} from '../../core/validate.js';
import type { Transport } from '../../transport/transport.js';
import {
  gradeAnswer,
  sessionOptionKeys,
  type SessionOptions,
  type SessionProgress,
  type SessionSummary,
} from '../session.js';
import { betaDefaults } from '../../reputation/beta.js';
import { runSessionFor, type SessionLoopKeys, type SessionRunner } from '../run-session.js';
import { providerFailure } from '../debate/_act.js';
import type { TaskFailure } from '../session.js';
import type { DebateFailure } from '../debate/types.js';
import type { TrustPolicy } from './broker.js';
import type { RapsEvent } from './events.js';
import { runRaps, type RapsCarriedState, type RapsResult } from './run-raps.js';
import { providerErrorFromWire } from './wire.js';

/** Aggregators a RAPS session can compare on the agents' final answers. */
export const rapsCompareAggregators = ['plurality', 'weighted-plurality'] as const;

/** Method name RAPS sessions store their task records under. */
export const RAPS_METHOD = 'raps';

/** RAPS settings of a live session (a team file's `protocol: { type: raps, ... }`); defaults are `runRaps`'s. */
export interface RapsSessionProtocol {
  /** Recipients per publication. @default 3 */
  readonly topK?: number;
  /** Trust threshold τ in (0, 1). @default 0.4 */
  readonly tau?: number;
  /** Rounds per task, ≥ 1. @default 4 */
  readonly maxRounds?: number;
  /** Fraction of publishers saying DONE that ends a task, in (0, 1]. @default 0.6 */
  readonly doneQuorum?: number;
  /** Minimum cosine similarity for routing. @default 0.05 */
  readonly floor?: number;
  /** Trust policy at the broker. @default 'filter' */
  readonly trustPolicy?: TrustPolicy;
  /** Beta forgetting factor λ in (0, 1]. @default 0.9 */
  readonly lambda?: number;
  /** Witness deviation bound δ > 0. @default 1.5 */
  readonly delta?: number;
  /** Weight ω of accepted witness reports, in [0, 1]. @default 0.3 */
  readonly omega?: number;
  /**
   * Ours, not RAPS: recovery factor ρ in [0, 1]; beliefs about publishers a receiver kept away age
   * towards the prior, r ← ρ·r, s ← ρ·s (see `runRaps`). 1 = off. @default 1
   */
  readonly recovery?: number;
  /** Second-hand witness checks. @default true */
  readonly witness?: boolean;
  /** Reactive subscription refinement through each agent's model. @default true */
  readonly refine?: boolean;
  /** Initial subscription text per agent. @default 'answers to the team tasks with their reasoning and the final answer' */
  readonly subscriptions?: Readonly<Record<AgentId, string>>;
  /** Time to wait for all replies of one phase, in ms. @default 120000 */
  readonly replyTimeoutMs?: number;
}

/** What a RAPS session stores per finished task (`result` of the task record under method `raps`). */
export interface RapsTaskRecord {
  readonly schemaVersion: 1;
  readonly taskId: string;
  readonly answer: string | null;
  /** Graded against the reference when a grader was given, else `null`. */
  readonly correct: boolean | null;
  /** Agents whose answers were aggregated (peer reputation ≥ τ). */
  readonly eligible: readonly AgentId[];
  /** Each agent's last answer. */
  readonly answers: Readonly<Record<AgentId, string | null>>;
  readonly support: Readonly<Record<string, number>>;
  /** Rounds the task took. */
  readonly rounds: number;
  /** Peer reputation per agent after the task, in [0, 1]. */
  readonly reputation: Readonly<Record<AgentId, number>>;
  /** Deliveries made, and what broadcast would have made (publications × (n − 1)). */
  readonly routed: number;
  readonly broadcast: number;
  /** Audit acts (one per delivery). */
  readonly audits: number;
  /** Failed agent acts that were not provider failures (an unusable reply, a missing one). */
  readonly failures: number;
  /** Decisions of the compared aggregators on every agent's final answer. */
  readonly compared: Readonly<Record<string, { readonly answer: string | null; readonly correct: boolean | null }>>;
  /** State carried to the next task (restored on resume). */
  readonly state: RapsCarriedState;
}

/** Options of {@link runRapsSession}; the fields every session shares are documented on {@link SessionOptions}. */
export interface RunRapsSessionOptions extends SessionOptions<SessionProgress<RapsTaskRecord>> {
  /** The team in a fixed order. */
  readonly agents: readonly AgentIdentity[];
  /** Agents hosted in this process; the others must run as nodes on `transport`. @default [] */
  readonly hostAgents?: readonly Agent[];
  /** Removes secrets (API keys) from the hosted agents' failure reports (see `startRapsNode`). @default no change */
  readonly redact?: (text: string) => string;
  /** Message transport (NATS for agents in other processes). @default an in-process bus */
  readonly transport?: Transport;
  /** Run id on the wire (subjects `raps.<wireRunId>.…`): letters, digits, `-`, `_`. @default runId with other characters replaced by `_` */
  readonly wireRunId?: string;
  /** RAPS settings. @default all defaults */
  readonly protocol?: RapsSessionProtocol;
  /** Aggregators compared on the final answers (names of {@link rapsCompareAggregators}). @default [] */
  readonly compare?: readonly string[];
  /**
   * Called after a task failed and was recorded as failed; throwing stops the session (a failure
   * budget). Provider failures of agents in other processes count as those of `hostAgents` do.
   * @default none
   */
  readonly onTaskFailure?: (failure: TaskFailure) => void;
}

/** What a RAPS session did. */
export interface RapsSessionSummary extends SessionSummary<RapsTaskRecord> {
  /**
   * `runRaps`'s result for the tasks run in this session after the last failed one (all of them when
   * none failed); `undefined` when none were left or the last task failed.
   */
  readonly result?: RapsResult;
  /** Tasks that failed in this session (no result stored; a rerun redoes them). */
  readonly failed: readonly TaskFailure[];
}

const knownRapsSessionOptions = defineOptionKeys<RunRapsSessionOptions>()([
  ...sessionOptionKeys,
  'agents',
  'hostAgents',
  'redact',
  'transport',
  'wireRunId',
  'protocol',
  'compare',
  'onTaskFailure',
]);
const knownRapsSessionProtocol = defineOptionKeys<RapsSessionProtocol>()([
  'topK',
  'tau',
  'maxRounds',
  'doneQuorum',
  'floor',
  'trustPolicy',
  'lambda',
  'delta',
  'omega',
  'recovery',
  'witness',
  'refine',
  'subscriptions',
  'replyTimeoutMs',
]);

/**
 * Runs RAPS over many tasks with a live team, persisting as it goes (see the file comment).
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * await runRapsSession({ store, runId: 'r1', team: 'local', agents: live.map((agent) => agent.identity), hostAgents: live, tasks, seed: 2027 });
 */
export async function runRapsSession(options: RunRapsSessionOptions): Promise<RapsSessionSummary> {
  assertKnownOptions('', options, knownRapsSessionOptions, 'runRapsSession');
  assertKnownOptions('protocol', options.protocol, knownRapsSessionProtocol, 'runRapsSession');
  assertUniqueTaskIds(options.tasks, 'the store keys results by task id');
  const runner = createRapsSessionRunner(options);
  const { runId, records, ran, resumed, failed } = await runSessionFor(options, {
    kind: 'raps',
    agents: options.agents,
    runner,
  });
  const result = runner.result();
  return { runId, records, ran, resumed, ...(result === undefined ? {} : { result }), failed };
}

/** What {@link createRapsSessionRunner} takes: the session's options without the loop's own (store, tasks, callbacks). */
export type RapsSessionRunnerOptions = Omit<RunRapsSessionOptions, SessionLoopKeys>;

/**
 * RAPS's runner for {@link runSession}: `runRaps` over the remaining tasks from the carried state
 * (the run's last task, else the team's saved beliefs), restarted after a failed task from the state
 * before it. `result()` is `runRaps`'s result after the last failed task (see {@link RapsSessionSummary}).
 */
export function createRapsSessionRunner(
  options: RapsSessionRunnerOptions,
): SessionRunner<RapsTaskRecord> & { result(): RapsResult | undefined } {
  const { runId, team, agents, protocol = {}, compare = [], seed, grade, reputationStart = 'team' } = options;
  assertNonEmptyString('runId', runId);
  assertNonEmptyString('team', team);
  validateTeam(agents, 'agents');
  const ids = agents.map((agent) => agent.id);
  assertKnownNames('compare', compare, rapsCompareAggregators, 'aggregator to compare');
  const comparators = compare.map((name) => ({ name, aggregator: createAggregator(name) }));

  // The state the session starts from (restored below), and the last task this session finished.
  let initialState: RapsCarriedState | undefined;
  let last: RapsTaskRecord | undefined;
  let result: RapsResult | undefined;
  const subscriptions = Object.fromEntries(
    ids.map((agentId) => [
      agentId,
      protocol.subscriptions?.[agentId] ?? 'answers to the team tasks with their reasoning and the final answer',
    ]),
  );
  return {
    method: RAPS_METHOD,
    result: () => result,
    restore({ store: sessionStore, records }) {
      last = records.at(-1);
      // Resume from this run's last task; else (a new run) from the team's saved beliefs, or the prior.
      const teamBeliefs =
        reputationStart === 'team' ? sessionStore.loadReputation({ scope: { team }, name: RAPS_METHOD }) : undefined;
      const teamFirstHand =
        reputationStart === 'team'
          ? sessionStore.loadReputation({ scope: { team }, name: `${RAPS_METHOD}-first-hand` })
          : undefined;
      // Which witness reports the observers already merged: without it a new run would merge every
      // unchanged report again (teams saved before it was kept start with none, as they did).
      const teamReported =
        reputationStart === 'team'
          ? sessionStore.loadReputation({ scope: { team }, name: `${RAPS_METHOD}-witness-memory` })
          : undefined;
      initialState =
        records.at(-1)?.state ??
        (teamBeliefs && teamFirstHand && sameRoster(teamBeliefs.agents, ids)
          ? {
              schemaVersion: 1,
              beliefs: teamBeliefs,
              firstHand: teamFirstHand,
              reported: teamReported && sameRoster(teamReported.agents, ids) ? witnessMemory(teamReported.state) : {},
              subscriptions: {},
              globalRound: 0,
            }
          : undefined);
    },
    async run({ tasks: remaining, settle, signal }) {
      if (remaining.length === 0) return;
      let buffer: RapsEvent[] = [];
      // Provider failures of the agents' acts on the task in flight (hosted or remote: both report them on the wire).
      let providerFailures: DebateFailure[] = [];
      const hostAgents = options.hostAgents ?? [];
      let pending: readonly Task[] = remaining;
      let startState = initialState;
      while (pending.length > 0) {
        signal?.throwIfAborted();
        try {
          result = await runRaps({
            agents,
            subscriptions,
            tasks: pending,
            hostAgents,
            ...(options.redact === undefined ? {} : { redact: options.redact }),
            ...(options.transport === undefined ? {} : { transport: options.transport }),
            runId: options.wireRunId ?? runId.replace(/[^A-Za-z0-9_-]/g, '_'),
            ...(protocol.maxRounds === undefined ? {} : { maxRounds: protocol.maxRounds }),
            ...(protocol.doneQuorum === undefined ? {} : { doneQuorum: protocol.doneQuorum }),
            ...(protocol.topK === undefined ? {} : { topK: protocol.topK }),
            ...(protocol.floor === undefined ? {} : { floor: protocol.floor }),
            ...(protocol.trustPolicy === undefined ? {} : { trustPolicy: protocol.trustPolicy }),
            ...(protocol.witness === undefined ? {} : { witness: protocol.witness }),
            ...(protocol.recovery === undefined ? {} : { recovery: protocol.recovery }),
            ...(protocol.refine === undefined ? {} : { refine: protocol.refine }),
            beta: {
              ...(protocol.lambda === undefined ? {} : { lambda: protocol.lambda }),
              ...(protocol.delta === undefined ? {} : { delta: protocol.delta }),
              ...(protocol.omega === undefined ? {} : { omega: protocol.omega }),
              ...(protocol.tau === undefined ? {} : { tau: protocol.tau }),
            },
            replyTimeoutMs: protocol.replyTimeoutMs ?? 120_000,
            seed,
            ...(startState === undefined ? {} : { initialState: startState }),
            onEvent: (event) => {
              buffer.push(event);
              if (event.type === 'agent-error' && event.providerFailure !== undefined)
                providerFailures.push(
                  providerFailure(
                    event.agentId,
                    event.providerFailure.act,
                    event.round,
                    providerErrorFromWire(event.providerFailure),
                  ),
                );
            },
            onTaskDone: async ({ decision, rounds, state }) => {
              const events = buffer;
              buffer = [];
              const failures = providerFailures;
              providerFailures = [];
              if (failures.length > 0) {
                // The task did not happen: keep no result; runRaps restarts after it from the state before it.
                settle({ status: 'failed', taskId: decision.taskId, failures });
                signal?.throwIfAborted();
                throw new RestartAfterFailedTask(decision.taskId);
              }
              const reputation = rounds.at(-1)?.reputation ?? {};
              const compared: Record<string, { answer: string | null; correct: boolean | null }> = {};
              const task = remaining.find((candidate) => candidate.id === decision.taskId) as Task;
              for (const { name, aggregator } of comparators) {
                const proposals = ids.map((agentId) => ({
                  agentId,
                  taskId: task.id,
                  round: decision.rounds - 1,
                  text: decision.texts[agentId] ?? '',
                  answer: decision.answers[agentId] ?? null,
                }));
                const verdict = aggregator.aggregate({ task, proposals, agents, weights: reputation });
                compared[name] = { answer: verdict.answer, correct: await gradeAnswer(grade, task.id, verdict.answer) };
              }
              const record: RapsTaskRecord = {
                schemaVersion: 1,
                taskId: decision.taskId,
                answer: decision.answer,
                correct: await gradeAnswer(grade, decision.taskId, decision.answer),
                eligible: decision.eligible,
                answers: decision.answers,
                support: decision.support,
                rounds: decision.rounds,
                reputation,
                routed: rounds.reduce((sum, round) => sum + round.routed, 0),
                broadcast: rounds.reduce((sum, round) => sum + round.broadcast, 0),
                audits: rounds.reduce((sum, round) => sum + round.audits, 0),
                failures: events.filter((event) => event.type === 'agent-error').length,
                compared,
                state,
              };
              last = record;
              settle({
                status: 'done',
                taskId: decision.taskId,
                record,
                events: toStoredEvents(
                  events,
                  runId,
                  reputation,
                  state.beliefs.agents.length > 0 ? decision.eligible : [],
                  protocol.tau ?? betaDefaults.tau,
                ).map((event, index) => ({ ...event, spanId: `${RAPS_METHOD}:${decision.taskId}:${index + 1}` })),
                reputation: [
                  { scope: { runId }, name: RAPS_METHOD, snapshot: state.beliefs },
                  { scope: { team }, name: RAPS_METHOD, snapshot: state.beliefs },
                  { scope: { team }, name: `${RAPS_METHOD}-first-hand`, snapshot: state.firstHand },
                  {
                    scope: { team },
                    name: `${RAPS_METHOD}-witness-memory`,
                    snapshot: {
                      schemaVersion: 1,
                      model: `${RAPS_METHOD}-witness-memory`,
                      agents: state.beliefs.agents,
                      state: state.reported,
                    },
                  },
                ],
              });
              // Stop between tasks: the finished task is saved, the rerun resumes after it.
              signal?.throwIfAborted();
            },
          });
          pending = [];
        } catch (error) {
          if (!(error instanceof RestartAfterFailedTask)) throw error;
          const taskId = error.taskId;
          pending = pending.slice(pending.findIndex((task) => task.id === taskId) + 1);
          // The state before the failed task: after the last finished task, or where the session started.
          startState = last?.state ?? initialState;
          result = undefined;
          buffer = [];
          providerFailures = [];
        }
      }
    },
  };
}

/** Thrown out of `runRaps` after a failed task so that the session restarts it after that task; never leaves the session. */
class RestartAfterFailedTask extends Error {
  readonly taskId: string;

  constructor(taskId: string) {
    super(`task ${taskId} failed; RAPS goes on after it from the state before it`);
    this.taskId = taskId;
  }
}

/** The saved witness-report memory (observer, witness, subject → counts reported); entries of another shape are dropped. */
function witnessMemory(state: unknown): Record<string, string> {
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return {};
  return Object.fromEntries(
    Object.entries(state as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

function sameRoster(saved: readonly string[] | undefined, ids: readonly string[]): boolean {
  return saved !== undefined && saved.length === ids.length && ids.every((agentId) => saved.includes(agentId));
}

/**
 * RAPS events as store events: publications as `proposal`, routing (with why receivers were kept
 * away: `distrustReasons`, `belowFloor`) and audits with their reasons, recovery ageing, witness
 * checks and refinements as themselves, route-selector failures as `run` events with their error, each round's reputation as `reputation-update`, the
 * decision as `vote` (reasons: eligible or not by peer reputation), failures with their error.
 */
function toStoredEvents(
  events: readonly RapsEvent[],
  runId: string,
  finalReputation: Readonly<Record<AgentId, number>>,
  eligible: readonly AgentId[],
  tau: number,
): Array<{ data: SpanData; error?: string | null }> {
  const stored: Array<{ data: SpanData; error?: string | null }> = [];
  let before: Readonly<Record<AgentId, number>> | undefined;
  for (const event of events) {
    switch (event.type) {
      case 'publish':
        stored.push({
          data: {
            type: 'proposal',
            taskId: event.taskId,
            round: event.round,
            agentId: event.agentId,
            answer: event.answer,
          },
        });
        break;
      case 'route':
        stored.push({
          data: {
            type: 'route',
            taskId: event.taskId,
            round: event.round,
            publisher: event.publisher,
            messageId: event.messageId,
            recipients: event.recipients,
            reasons: event.reasons,
            distrusted: event.distrusted,
            distrustReasons: event.distrustReasons,
            belowFloor: event.belowFloor,
            broadcast: event.broadcast,
          },
        });
        break;
      case 'recovery':
        stored.push({
          data: {
            type: 'recovery',
            taskId: event.taskId,
            round: event.round,
            receiver: event.receiver,
            publisher: event.publisher,
            rho: event.rho,
            beliefBefore: event.beliefBefore,
            beliefAfter: event.beliefAfter,
          },
        });
        break;
      case 'route-error':
        // The broker's fault, not an agent's: stored with its error, not counted among the task's failures.
        stored.push({
          data: {
            type: 'run',
            runId,
            method: RAPS_METHOD,
            detail: {
              event: 'route-error',
              source: event.source,
              taskId: event.taskId,
              round: event.round,
              publisher: event.publisher,
              messageId: event.messageId,
              fallback: event.fallback,
            },
          },
          error: event.error,
        });
        break;
      case 'audit':
        stored.push({
          data: {
            type: 'audit',
            taskId: event.taskId,
            round: event.round,
            auditor: event.auditor,
            subject: event.subject,
            messageId: event.messageId,
            reliable: event.reliable,
            reason: event.reason,
            beliefAfter: event.beliefAfter,
          },
        });
        break;
      case 'witness':
        stored.push({
          data: {
            type: 'witness',
            taskId: event.taskId,
            round: event.round,
            observer: event.observer,
            witness: event.witness,
            subject: event.subject,
            deviation: event.deviation,
            accepted: event.accepted,
          },
        });
        break;
      case 'refine':
        stored.push({
          data: {
            type: 'refine',
            taskId: event.taskId,
            round: event.round,
            agentId: event.agentId,
            before: event.before,
            after: event.after,
            drift: event.drift,
          },
        });
        break;
      case 'round':
        stored.push({
          data: {
            type: 'reputation-update',
            taskId: event.taskId,
            before: before ?? event.reputation,
            after: event.reputation,
          },
        });
        before = event.reputation;
        break;
      case 'decision': {
        // With nobody at τ the decision falls back to every publisher (decide-step.ts): say so, not ">= tau".
        const noneTrusted = eligible.every((agentId) => (finalReputation[agentId] ?? 0) < tau);
        const reasons: WeightReason[] = Object.entries(finalReputation).map(([agentId, reputation]) => ({
          agentId,
          weight: eligible.includes(agentId) ? reputation : 0,
          components: { reputation },
          note: !eligible.includes(agentId)
            ? 'peer reputation < tau: left out of the decision'
            : noneTrusted
              ? `no agent reached tau ${tau}: every publisher counts, weighted by its peer reputation`
              : 'peer reputation >= tau: its answer counts',
        }));
        stored.push({
          data: { type: 'vote', taskId: event.taskId, answer: event.answer, support: event.support, reasons },
        });
        break;
      }
      case 'agent-error':
        stored.push({
          data: {
            type: 'run',
            runId,
            method: RAPS_METHOD,
            detail: { event: 'agent-error', taskId: event.taskId, round: event.round, agentId: event.agentId },
          },
          error: event.error,
        });
        break;
      case 'malformed':
        stored.push({
          data: {
            type: 'run',
            runId,
            method: RAPS_METHOD,
            detail: { event: 'malformed', subject: event.subject, id: event.id },
          },
          error: event.error,
        });
        break;
    }
  }
  return stored;
}
