// DRF (arXiv 2509.05764) over a live team, persisted task by task: one DRF round per task (filter →
// UCB with cost → proposals → rating network → team answer → reputation update), with the cost term
// c_i taken from the agents' prices and observed token usage (expected-cost-ledger.ts). Each
// finished task is written with its events, reputation and carried state (UCB counts, rater
// credibility, token observations) in one transaction, so a killed run resumes exactly. A task
// whose model calls failed (a provider failure) did not happen: it is recorded as failed, not as a
// result, and leaves reputation and carried state as they were, so a rerun redoes it.
import type { Acted, Agent, ActUsage } from '../../agents/agent.js';
import { createAggregator } from '../../aggregation/registry.js';
import { validateTeam, type AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError, ProviderError } from '../../core/errors.js';
import { definedOnly } from '../../core/options.js';
import type { Proposal } from '../../core/proposal.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import {
  assertKnownNames,
  assertKnownOptions,
  assertNonEmptyString,
  assertUniqueTaskIds,
  defineOptionKeys,
} from '../../core/validate.js';
import type { UcbSelectorSnapshot } from '../../selection/ucb.js';
import { providerFailure } from '../debate/_act.js';
import type { TaskFailure } from '../session.js';
import type { DebateFailure } from '../debate/types.js';
import {
  createTaskTracer,
  gradeAnswer,
  restoreReputation,
  sessionOptionKeys,
  type SessionOptions,
  type SessionProgress,
  type SessionSummary,
} from '../session.js';
import { eachTask, runSessionFor, type SessionLoopKeys, type SessionRunner, type TaskOutcome } from '../run-session.js';
import { runDrfRound, type DrfRoundState } from './drf-round.js';
import { createExpectedCostLedger, type CallPrice, type ObservedUsage } from './expected-cost-ledger.js';
import { createDrfParts } from './drf-parts.js';
import type { CredibilityState } from './rater-credibility.js';
import { type DrfProtocolSettings, drfProtocolSettingKeys } from './drf-protocol-schema.js';
import { resolveDrfProtocolOptions } from './run-drf.js';

/** Aggregators a DRF session can compare on its own proposals. */
export const drfCompareAggregators = ['plurality', 'weighted-plurality'] as const;

/** @deprecated Renamed {@link DrfProtocolSettings} (the DRF protocol's settings); this alias goes in the next minor version. */
export type DrfSessionProtocol = DrfProtocolSettings;

/** Usage of one agent on one task (or summed over tasks). */
export interface DrfAgentUsage {
  /** Acts made (cache hits included). */
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Spend booked (0 for cache hits). */
  readonly cost: number;
  /** The same acts at list price (what they cost without the cache). */
  readonly listCost: number;
}

/** What a DRF session stores per finished task (`result` of the task record under method `drf`). */
export interface DrfTaskRecord {
  readonly schemaVersion: 1;
  readonly taskId: string;
  /** 0-based round (task position in the run). */
  readonly round: number;
  /** Team answer, or `null` when no proposal parsed. */
  readonly answer: string | null;
  /** Graded against the reference when a grader was given, else `null`. */
  readonly correct: boolean | null;
  /** Selected team, best first. */
  readonly team: readonly AgentId[];
  /**
   * Agents excluded for this task by a threshold: reputation below the filter's, or below the UCB
   * selector's. Agents merely not picked (the team has k members) are in neither list; they are the
   * pool minus `team` and `excluded`.
   */
  readonly excluded: readonly AgentId[];
  /** Each member's proposal answer. */
  readonly answers: Readonly<Record<AgentId, string | null>>;
  readonly support: Readonly<Record<string, number>>;
  /** Reputation score per agent after the round. */
  readonly reputation: Readonly<Record<AgentId, number>>;
  /** Expected cost ĉ_i of a call per pool agent when the team was chosen (before normalisation). */
  readonly expectedCost: Readonly<Record<AgentId, number>>;
  /** Usage per team member this task. */
  readonly usage: Readonly<Record<AgentId, DrfAgentUsage>>;
  /**
   * List price the whole pool would have cost on this task (every agent proposes and rates every
   * other): each act priced at the agent's price with the tokens it used, or, for acts it did not
   * make, the mean tokens of that act on this task.
   */
  readonly fullTeamListCost: number;
  /** Failed acts that were not provider failures (an error other than a ProviderError, a reply naming the wrong agent or task). */
  readonly failures: number;
  /** Decisions of the compared aggregators on the same proposals. */
  readonly compared: Readonly<Record<string, { readonly answer: string | null; readonly correct: boolean | null }>>;
  /** State carried to the next task (restored on resume). */
  readonly state: {
    readonly selector: UcbSelectorSnapshot;
    readonly credibility: CredibilityState;
    readonly ledger: Readonly<Record<AgentId, ObservedUsage>>;
  };
}

/**
 * Options of {@link runDrfSession}, one DRF round per task; the fields every session shares are
 * documented on {@link SessionOptions}.
 */
export interface RunDrfSessionOptions extends SessionOptions<SessionProgress<DrfTaskRecord>> {
  /** The pool of live (or any) agents. */
  readonly agents: readonly Agent[];
  /** DRF settings. @default all defaults */
  readonly protocol?: DrfProtocolSettings;
  /** Price per agent, keyed by pool agent id, for the expected cost c_i and list-price spend. @default all 0 */
  readonly prices?: Readonly<Record<AgentId, CallPrice>>;
  /** Aggregators compared on DRF's proposals (names of {@link drfCompareAggregators}). @default [] */
  readonly compare?: readonly string[];
  /** Clock of event timestamps, in ms. @default Date.now */
  readonly now?: () => number;
  /**
   * Called after a task failed and was recorded as failed; throwing stops the session (a failure
   * budget). @default none
   */
  readonly onTaskFailure?: (failure: TaskFailure) => void;
}

/** What a DRF session did. */
export interface DrfSessionSummary extends SessionSummary<DrfTaskRecord> {
  /** Tasks that failed in this session (no result stored; a rerun redoes them). */
  readonly failed: readonly TaskFailure[];
}

/** Method name DRF sessions store their task records under. */
export const DRF_METHOD = 'drf';

const knownDrfSessionOptions = defineOptionKeys<RunDrfSessionOptions>()([
  ...sessionOptionKeys,
  'agents',
  'protocol',
  'prices',
  'compare',
  'now',
  'onTaskFailure',
]);

/**
 * Runs DRF over many tasks with a live pool, persisting as it goes (see the file comment). The
 * cost c_i of Eq. 9 is the expected cost of the agent's next call from `prices` and the tokens
 * observed so far, normalised by the pool's largest.
 *
 * @example
 * const store = openStore({ path: 'repute.db' });
 * await runDrfSession({ store, runId: 'r1', team: 'local', agents, tasks, protocol: { k: 3 }, prices: { a: { inputPerMillion: 0.15, outputPerMillion: 0.6 } }, seed: 2027 });
 */
export async function runDrfSession(options: RunDrfSessionOptions): Promise<DrfSessionSummary> {
  assertKnownOptions('', options, knownDrfSessionOptions, 'runDrfSession');
  assertKnownOptions('protocol', options.protocol, drfProtocolSettingKeys, 'runDrfSession');
  assertUniqueTaskIds(options.tasks, 'the store keys results by task id');
  const runner = createDrfSessionRunner(options);
  const { runId, records, ran, resumed, failed } = await runSessionFor(options, {
    kind: 'drf',
    agents: options.agents.map((agent) => agent.identity),
    runner,
  });
  return { runId, records, ran, resumed, failed };
}

/** What {@link createDrfSessionRunner} takes: the session's options without the loop's own (store, tasks, callbacks). */
export type DrfSessionRunnerOptions = Omit<RunDrfSessionOptions, SessionLoopKeys>;

/**
 * DRF's runner for {@link runSession}: one DRF round per task (see the file comment), its carried
 * state restored from the last finished task and undone when a task fails.
 */
export function createDrfSessionRunner(options: DrfSessionRunnerOptions): SessionRunner<DrfTaskRecord> {
  const {
    runId,
    team,
    agents,
    protocol = {},
    prices = {},
    compare = [],
    seed,
    grade,
    reputationStart = 'team',
    now = Date.now,
  } = options;
  assertNonEmptyString('runId', runId);
  assertNonEmptyString('team', team);
  const identities = agents.map((agent) => agent?.identity);
  validateTeam(identities, 'agents');
  const ids = identities.map((identity) => identity.id);
  assertKnownNames('compare', compare, drfCompareAggregators, 'aggregator to compare');
  for (const [agentId, price] of Object.entries(prices)) {
    // The ledger prices agents by id; a price under any other key would leave the agent it was meant for free.
    if (!ids.includes(agentId))
      throw new InvalidArgumentError({
        parameter: `prices.${agentId}`,
        value: price,
        message: `prices names agent ${JSON.stringify(agentId)}, which is not in the pool (${ids.join(', ')}); key prices by the agents' ids`,
      });
  }
  const resolved = resolveDrfProtocolOptions(
    definedOnly({
      ...protocol,
      k: protocol.k ?? Math.min(3, ids.length),
      costSource: 'ledger',
      costNormalization: 'max',
    }),
    ids.length,
  );
  // One equation variant throughout, δ shared by Eq. 7 and Eq. 9 (createDrfParts); the round filters
  // by threshold itself, so the selector only ranks the eligible agents.
  const { reputation, selector, ratingSource } = createDrfParts({
    agents: ids,
    tieBreak: 'random',
    ...(protocol.variant === undefined ? {} : { variant: protocol.variant }),
    ...(protocol.delta === undefined ? {} : { delta: protocol.delta }),
    ...(protocol.exploration === undefined ? {} : { exploration: protocol.exploration }),
    ...(protocol.w0 === undefined ? {} : { w0: protocol.w0 }),
    ...(protocol.beta === undefined ? {} : { beta: protocol.beta }),
    ...(protocol.initialReputation === undefined ? {} : { initialReputation: protocol.initialReputation }),
  });
  const ledger = createExpectedCostLedger({
    agents: ids,
    prices,
    ...(protocol.priorTokens === undefined ? {} : { priorTokens: protocol.priorTokens }),
  });
  const state: DrfRoundState = { credibility: {} };
  const comparators = compare.map((name) => ({ name, aggregator: createAggregator(name) }));

  // Round of the next task: its position in the run (finished tasks, resumed ones included).
  let finishedTasks = 0;
  return {
    method: DRF_METHOD,
    restore({ store: sessionStore, records }) {
      restoreReputation(sessionStore, reputation, {
        runId,
        team: reputationStart === 'team' ? team : undefined,
        name: DRF_METHOD,
        agentIds: ids,
      });
      finishedTasks = records.length;
      const last = records.at(-1);
      if (last) {
        selector.restore(last.state.selector);
        state.credibility = last.state.credibility;
        ledger.restore(last.state.ledger);
      }
    },
    run: eachTask(async (task, taskSignal): Promise<TaskOutcome<DrfTaskRecord>> => {
      const before = {
        reputation: reputation.snapshot(),
        selector: selector.snapshot(),
        credibility: state.credibility,
        ledger: ledger.totals(),
      };
      const { tracer, events } = createTaskTracer({ method: DRF_METHOD, taskId: task.id, now });
      const acts: MeteredAct[] = [];
      const providerFailures: DebateFailure[] = [];
      const metered = agents.map((agent) => meterAgent(agent, acts, providerFailures));
      const expectedCost = Object.fromEntries(ids.map((agentId) => [agentId, ledger.costPerCall(agentId)]));
      const round = await runDrfRound({
        round: finishedTasks,
        task,
        pool: metered,
        k: resolved.k,
        threshold: resolved.threshold,
        minEligible: resolved.minEligible,
        selector,
        reputation,
        rng: createRng(deriveSeed(seed, DRF_METHOD, task.id)),
        tracer,
        ratingSource,
        ledger,
        costNormalization: 'max',
        defence: resolved.defence,
        credibilityFloor: resolved.credibilityFloor,
        outcome: undefined,
        sameAnswer: (left, right) => left === right,
        signal: taskSignal,
        state,
      });
      if (providerFailures.length > 0) {
        // The task did not happen: undo its reputation update and carried state, keep no result.
        reputation.restore(before.reputation);
        selector.restore(before.selector);
        state.credibility = before.credibility;
        ledger.restore(before.ledger);
        return { status: 'failed', taskId: task.id, failures: providerFailures };
      }
      // Acts finish in any order; sum them in a fixed one so that replays book identical floats.
      acts.sort(
        (left, right) =>
          compareText(left.agentId, right.agentId) ||
          compareText(left.act, right.act) ||
          left.usage.inputTokens - right.usage.inputTokens ||
          left.usage.outputTokens - right.usage.outputTokens ||
          left.usage.cost - right.usage.cost,
      );
      const proposals: Proposal[] = round.proposals.map((proposal) => ({
        agentId: proposal.agentId,
        taskId: task.id,
        round: 0,
        text: '',
        answer: proposal.answer,
      }));
      const compared: Record<string, { answer: string | null; correct: boolean | null }> = {};
      for (const { name, aggregator } of comparators) {
        const decision = aggregator.aggregate({
          task,
          proposals,
          agents: identities.filter((identity) => round.team.includes(identity.id)),
          weights: round.reputationBefore,
        });
        compared[name] = { answer: decision.answer, correct: await gradeAnswer(grade, task.id, decision.answer) };
      }
      const record: DrfTaskRecord = {
        schemaVersion: 1,
        taskId: task.id,
        round: round.round,
        answer: round.decision.answer,
        correct: await gradeAnswer(grade, task.id, round.decision.answer),
        team: round.team,
        excluded: round.excluded,
        answers: Object.fromEntries(round.proposals.map((proposal) => [proposal.agentId, proposal.answer])),
        support: round.decision.support,
        reputation: round.reputationAfter,
        expectedCost,
        usage: usageByAgent(acts, ledger.priceOf),
        fullTeamListCost: fullTeamListCost(acts, ids, ledger),
        failures: round.failures.length,
        compared,
        state: { selector: selector.snapshot(), credibility: state.credibility, ledger: ledger.totals() },
      };
      finishedTasks += 1;
      const after = reputation.snapshot();
      return {
        status: 'done',
        taskId: task.id,
        record,
        events: events(),
        reputation: [
          { scope: { runId }, name: DRF_METHOD, snapshot: after },
          { scope: { team }, name: DRF_METHOD, snapshot: after },
        ],
      };
    }),
  };
}

/** One act of a team member on the current task, as metered. */
interface MeteredAct {
  readonly agentId: AgentId;
  readonly act: 'propose' | 'rate';
  readonly usage: ActUsage;
}

/**
 * Wraps an agent so that its propose and rate acts are recorded with their usage, and the acts whose
 * model call failed after its retries (a {@link ProviderError}) are recorded as provider failures.
 * Other errors (a reply that names the wrong agent or task) stay the round's own failed acts.
 */
function meterAgent(agent: Agent, acts: MeteredAct[], providerFailures: DebateFailure[]): Agent {
  const agentId = agent.identity.id;
  const keep = async <T>(act: MeteredAct['act'], call: () => Promise<Acted<T>>): Promise<Acted<T>> => {
    let acted: Acted<T>;
    try {
      acted = await call();
    } catch (error) {
      if (error instanceof ProviderError) providerFailures.push(providerFailure(agentId, act, 0, error));
      throw error;
    }
    acts.push({ agentId, act, usage: acted.usage });
    return acted;
  };
  return {
    identity: agent.identity,
    kind: agent.kind,
    propose: (request) => keep('propose', () => agent.propose(request)),
    rate: (request) => keep('rate', () => agent.rate(request)),
    revise: (request) => agent.revise(request),
    audit: (request) => agent.audit(request),
    refineSubscription: (request) => agent.refineSubscription(request),
  };
}

function usageByAgent(
  acts: readonly MeteredAct[],
  priceOf: (agentId: AgentId, input: number, output: number) => number,
): Record<AgentId, DrfAgentUsage> {
  const usage: Record<AgentId, DrfAgentUsage> = {};
  for (const { agentId, usage: act } of acts) {
    const sum = usage[agentId] ?? { calls: 0, inputTokens: 0, outputTokens: 0, cost: 0, listCost: 0 };
    usage[agentId] = {
      calls: sum.calls + 1,
      inputTokens: sum.inputTokens + act.inputTokens,
      outputTokens: sum.outputTokens + act.outputTokens,
      cost: sum.cost + act.cost,
      listCost: sum.listCost + priceOf(agentId, act.inputTokens, act.outputTokens),
    };
  }
  return usage;
}

/**
 * List price of the whole pool on one task: every agent makes 1 proposal and N − 1 ratings. An act
 * an agent made is priced with its own mean tokens for that act on this task; one it did not make,
 * with the mean tokens of that act over the agents that made it on this task (the ledger's
 * expected tokens when nobody did).
 */
function fullTeamListCost(
  acts: readonly MeteredAct[],
  pool: readonly AgentId[],
  ledger: ReturnType<typeof createExpectedCostLedger>,
): number {
  const mean = (list: readonly MeteredAct[]) =>
    list.length === 0
      ? undefined
      : {
          input: list.reduce((sum, act) => sum + act.usage.inputTokens, 0) / list.length,
          output: list.reduce((sum, act) => sum + act.usage.outputTokens, 0) / list.length,
        };
  let total = 0;
  for (const act of ['propose', 'rate'] as const) {
    const ofAct = acts.filter((item) => item.act === act);
    const count = act === 'propose' ? 1 : pool.length - 1;
    for (const agentId of pool) {
      const tokens =
        mean(ofAct.filter((item) => item.agentId === agentId)) ?? mean(ofAct) ?? ledger.expectedTokens(agentId);
      total += count * ledger.priceOf(agentId, tokens.input, tokens.output);
    }
  }
  return total;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
