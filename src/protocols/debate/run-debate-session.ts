import type { Agent } from '../../agents/agent.js';
import type { Aggregator } from '../../aggregation/aggregator.js';
import type { Verifier } from '../../aggregation/verifier.js';
import { validateTeam } from '../../core/agent-identity.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import { assertInteger, assertKnownOptions, assertNonEmptyString, defineOptionKeys } from '../../core/validate.js';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import type { Selector } from '../../selection/selector.js';
import {
  createTaskTracer,
  gradeAnswer,
  restoreReputation,
  sessionOptionKeys,
  type SessionOptions,
  type SessionProgress,
  type SessionStore,
  type SessionSummary,
  type TaskFailure,
} from '../session.js';
import { eachTask, runSessionFor, type SessionLoopKeys, type SessionRunner } from '../run-session.js';
import { debateTaskRecord } from './debate-task.js';
import { runDebate } from './run-debate.js';
import type { PeerFilter } from './peer-filter.js';
import type { DebateTaskRecord, Feedback } from './types.js';

export type { TaskFailure } from '../session.js';
export type { DebateTaskRecord } from './types.js';

/** The part of the store a debate session needs (the {@link SessionStore} every session takes). */
export type DebateSessionStore = SessionStore;

/** A named combination of selector, aggregator and reputation model (one column of the demo table). */
export interface DebateMethod {
  /** Name, unique within a run (e.g. `minirep`). */
  readonly name: string;
  /** Picks participants; omitted = everyone. */
  readonly selector?: Selector;
  /** Team size for the selector. @default team size */
  readonly k?: number;
  readonly aggregator: Aggregator;
  /** A fresh model; the session restores saved state into it. Omitted = equal weights. */
  readonly reputation?: ReputationModel;
  /** Collect peer ratings after the last round. @default false */
  readonly ratings?: boolean;
  /** Screens whose proposals peers see in debate rounds. @default everyone's */
  readonly peerFilter?: PeerFilter;
  /** Evidence rule. @default consensusFeedback */
  readonly feedback?: Feedback;
  /** Rebuilds method state that is not a reputation model (e.g. UCB counts) from the finished tasks of a resumed run. */
  readonly resume?: (records: readonly DebateTaskRecord[]) => void;
}

/** Progress callback payload: a finished task of one method. */
export interface DebateProgress extends SessionProgress<DebateTaskRecord> {
  readonly method: string;
}

/** Options of {@link runDebateSession}; the fields every session shares are documented on {@link SessionOptions}. */
export interface RunDebateSessionOptions extends SessionOptions<DebateProgress> {
  /** The agents that debate, one per team member. */
  readonly agents: readonly Agent[];
  /** Selection, aggregation and reputation used for every task. */
  readonly method: DebateMethod;
  /** Debate rounds after Propose. @default 1 */
  readonly rounds?: number;
  /** Writes act usage to the store's ledger with each task. @default true */
  readonly recordUsage?: boolean;
  /** Clock of event timestamps, in ms. @default Date.now */
  readonly now?: () => number;
  /**
   * Called after a task failed and was recorded as failed; throwing stops the session (a failure
   * budget). @default none
   */
  readonly onTaskFailure?: (failure: TaskFailure) => void;
  /**
   * Judges every final proposal before aggregation (see `runDebate`); its verdicts reach the
   * aggregator, the `vote` event and the feedback. A judge call that fails after its retries fails
   * the task. @default none
   */
  readonly verifier?: Verifier;
  /** Agent id the verifier's calls and failures are booked under. @default `verifier` */
  readonly verifierId?: string;
}

/** What a session did. */
export interface DebateSessionSummary extends SessionSummary<DebateTaskRecord> {
  readonly method: string;
  /** Tasks skipped because they were already in the store. */
  readonly skipped: number;
  /** Tasks that failed in this session (no result stored; a rerun redoes them). */
  readonly failed: readonly TaskFailure[];
}

const knownDebateSessionOptions = defineOptionKeys<RunDebateSessionOptions>()([
  ...sessionOptionKeys,
  'agents',
  'method',
  'rounds',
  'recordUsage',
  'now',
  'onTaskFailure',
  'verifier',
  'verifierId',
]);
const knownDebateMethodKeys = defineOptionKeys<DebateMethod>()([
  'name',
  'selector',
  'k',
  'aggregator',
  'reputation',
  'ratings',
  'peerFilter',
  'feedback',
  'resume',
]);

/**
 * Runs a debate over many tasks with one method, persisting as it goes: the team's identities are
 * saved under the team key, reputation is restored from the run (resume) or else from the team
 * (a later run), and each finished task is written with its events, reputation and ledger in one
 * transaction, so a killed run resumes without losing or repeating a task.
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * await runDebateSession({ store, runId: 'r1', team: 'demo', agents, tasks, method: { name: 'majority', aggregator }, seed: 1 });
 */
export async function runDebateSession(options: RunDebateSessionOptions): Promise<DebateSessionSummary> {
  assertKnownOptions('', options, knownDebateSessionOptions, 'runDebateSession');
  assertKnownOptions('method', options.method, knownDebateMethodKeys, 'runDebateSession');
  const runner = createDebateSessionRunner(options);
  const { onProgress } = options;
  return runSessionFor(
    { ...options, onProgress: (progress) => onProgress?.({ method: runner.method, ...progress }) },
    { kind: 'debate', agents: options.agents.map((agent) => agent.identity), runner },
  );
}

/** What {@link createDebateSessionRunner} takes: the session's options without the loop's own (store, tasks, callbacks). */
export type DebateSessionRunnerOptions = Omit<RunDebateSessionOptions, SessionLoopKeys>;

/**
 * The debate's runner for {@link runSession}: one debate per task with the method's selector,
 * aggregator and reputation, undone when a task fails; validated before anything is written.
 */
export function createDebateSessionRunner(options: DebateSessionRunnerOptions): SessionRunner<DebateTaskRecord> {
  const {
    runId,
    team,
    agents,
    method,
    rounds = 1,
    seed,
    grade,
    reputationStart = 'team',
    recordUsage = true,
    now = Date.now,
  } = options;
  assertNonEmptyString('runId', runId);
  assertNonEmptyString('team', team);
  assertNonEmptyString('method.name', method?.name);
  validateTeam(
    agents.map((agent) => agent?.identity),
    'agents',
  );
  // runDebate checks these too, but only at the first task, after the run and team are written.
  assertInteger('rounds', rounds, 0, 20, 'pass e.g. { rounds: 2 } for two debate rounds after Propose');
  if (method.k !== undefined)
    assertInteger('method.k', method.k, 1, agents.length, `k must not exceed the team size ${agents.length}`);

  const reputation = method.reputation;
  const ids = agents.map((agent) => agent.identity.id);
  // Finished tasks of this run (resumed ones first), for rebuilding method state after a failed task.
  const finished: DebateTaskRecord[] = [];
  return {
    method: method.name,
    restore({ store: sessionStore, records }) {
      if (reputation)
        restoreReputation(sessionStore, reputation, {
          runId,
          team: reputationStart === 'team' ? team : undefined,
          name: method.name,
          agentIds: ids,
        });
      finished.push(...records);
      if (records.length > 0) method.resume?.(records);
    },
    run: eachTask(async (task, taskSignal) => {
      const before = reputation?.snapshot();
      const { tracer, events } = createTaskTracer({ method: method.name, taskId: task.id, now });
      const result = await runDebate({
        team: agents,
        task,
        rounds,
        ...(method.selector ? { selector: method.selector } : {}),
        ...(method.k === undefined ? {} : { k: method.k }),
        aggregator: method.aggregator,
        ...(reputation ? { reputation } : {}),
        ...(method.feedback ? { feedback: method.feedback } : {}),
        ...(method.peerFilter ? { peerFilter: method.peerFilter } : {}),
        ratings: method.ratings ?? false,
        rng: createRng(deriveSeed(seed, 'debate', method.name, task.id)),
        tracer,
        ...(options.verifier === undefined ? {} : { verifier: options.verifier }),
        ...(options.verifierId === undefined ? {} : { verifierId: options.verifierId }),
        ...(taskSignal ? { signal: taskSignal } : {}),
      });
      const providerFailures = result.failures.filter((failure) => failure.kind === 'provider');
      if (providerFailures.length > 0) {
        // The task did not happen: undo its reputation update and method state, keep no result.
        if (reputation && before) reputation.restore(before);
        method.resume?.(finished);
        return { status: 'failed', taskId: task.id, failures: providerFailures };
      }
      const record = debateTaskRecord(result, await gradeAnswer(grade, result.taskId, result.decision.answer));
      finished.push(record);
      const snapshot = reputation?.snapshot();
      return {
        status: 'done',
        taskId: task.id,
        record,
        events: events(),
        reputation: snapshot
          ? [
              { scope: { runId }, name: method.name, snapshot },
              { scope: { team }, name: method.name, snapshot },
            ]
          : [],
        usage: recordUsage
          ? result.usage.map((entry) => ({
              runId,
              agentId: entry.agentId,
              taskId: entry.taskId,
              act: entry.act,
              inputTokens: entry.inputTokens,
              outputTokens: entry.outputTokens,
              cost: entry.cost,
              cached: entry.cached,
            }))
          : [],
      };
    }),
  };
}
