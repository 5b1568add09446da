import type { Agent } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { requireEntry } from '../../core/entry.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import type { Transport } from '../../transport/transport.js';
import type { RapsEvent } from '../../protocols/pubsub/events.js';
import { runRaps, type RapsResult, type RunRapsOptions } from '../../protocols/pubsub/run-raps.js';
import { deleteFinishedRapsRun } from '../../protocols/pubsub/raps-durables.js';
import {
  buildCodeReviewTeam,
  findingKey,
  isGrounded,
  newFileLines,
  parseFindings,
  type ReviewFinding,
} from './code-review.js';
import { buildQaTeam, type QaTeam } from './qa-team.js';
import { raceAbort } from '../../core/_race-abort.js';

/** Names of the built-in RAPS scenarios. */
export type RapsScenarioName = 'adversarial' | 'scaling' | 'code-review';

/** The built-in scenario names. */
export const rapsScenarioNames: readonly RapsScenarioName[] = ['adversarial', 'scaling', 'code-review'];

/** Parameters that fully determine a scenario's team (another process rebuilds the same team from them). */
export interface RapsScenarioParameters {
  /** Seed of the team, tasks and draws. @default 2027 */
  readonly seed?: number;
  /** Team size (`scaling` only). @default 10 */
  readonly agentCount?: number;
  /** Number of tasks (default 30). */
  readonly taskCount?: number;
  /** Recipients per publication; `scaling` compares top-3 against broadcast (n − 1). @default 3 */
  readonly topK?: number;
  /** Run id override (subjects `raps.<runId>.…`). @default derived from the scenario and seed */
  readonly runId?: string;
  /** Adversaries among the five agents (`adversarial` only; 0 gives the clean reference). @default 3 */
  readonly adversaryCount?: number;
  /** Second-hand witness checks (`false` for the ablation). @default true */
  readonly witness?: boolean;
  /**
   * Our additions to the RAPS base (see docs/raps.md): `adversarial` consults only witnesses the
   * decider-side observer trusts by ≥ 2 first-hand audits and revises only on trusted publishers;
   * `scaling` also uses the informed team view, ⌊k/3⌋ coverage slots and, without an explicit
   * `topK`, k = max(3, ⌈log2 n⌉).
   * `false` runs the plain RAPS base (top-3 in `scaling`), for before/after comparisons. @default true
   */
  readonly additions?: boolean;
  /**
   * `adversarial` only: run the honest agents alone (same seed, tasks, skills and protocol, the
   * adversaries removed), the honest-only ceiling. @default false
   */
  readonly honestOnly?: boolean;
  /** Where witness credibility is kept: RAPS's own trust_of belief (`separate`) or the routing belief (`shared`, before issue 14). @default 'separate' */
  readonly witnessCredibility?: 'separate' | 'shared';
  /** `adversarial` only: recovery factor ρ of filtered-away beliefs (see {@link RunRapsOptions.recovery}); 1 = off. @default 1 */
  readonly recovery?: number;
}

/** The keys of {@link RapsScenarioParameters}, which the scenario builder, the in-process run and the NATS run all check. */
export const knownScenarioParameters = defineOptionKeys<RapsScenarioParameters>()([
  'seed',
  'agentCount',
  'taskCount',
  'topK',
  'runId',
  'adversaryCount',
  'witness',
  'additions',
  'honestOnly',
  'witnessCredibility',
  'recovery',
]);

/** Recipients per publication that grows with the team: k = max(3, ⌈log2 n⌉) (10 → 4, 20 → 5, 50 → 6). */
export function logScaledTopK(size: number): number {
  assertInteger('size', size, 1, 1 << 30);
  // k = max(3, ⌈log2 n⌉)
  return Math.max(3, Math.ceil(Math.log2(size)));
}

/** A scenario ready to run: its agents and the options of {@link runRaps} except transport and hosting. */
export interface RapsScenario {
  /** Which built-in scenario this is. */
  readonly name: RapsScenarioName;
  /** The scenario's simulated agents, in roster order. */
  readonly agents: readonly Agent[];
  /** Options of {@link runRaps} for this team, without transport, hosting and event hook. */
  readonly runOptions: Omit<RunRapsOptions, 'transport' | 'hostAgents' | 'onEvent'>;
  /** The generated QA team with its ground truth (`adversarial` and `scaling` only). */
  readonly qaTeam?: QaTeam;
}

/**
 * Builds a built-in scenario deterministically from its parameters.
 *
 * @example
 * const scenario = createRapsScenario('adversarial', { seed: 2027 });
 */
export function createRapsScenario(name: RapsScenarioName, parameters: RapsScenarioParameters = {}): RapsScenario {
  assertKnownOptions('parameters', parameters, knownScenarioParameters, 'createRapsScenario');
  const seed = parameters.seed ?? 2027;
  const runId = (parameters.runId ?? `${name}-${seed}`).replace(/[^A-Za-z0-9_-]/g, '_');
  const additions = parameters.additions ?? true;
  const credibility =
    parameters.witnessCredibility === undefined ? {} : { beta: { witnessCredibility: parameters.witnessCredibility } };
  if (name === 'adversarial') {
    const full = buildQaTeam({
      size: 5,
      adversaries: parameters.adversaryCount ?? 3,
      seed,
      taskCount: parameters.taskCount ?? 30,
    });
    const team = parameters.honestOnly === true ? honestPart(full) : full;
    return {
      name,
      agents: team.agents,
      qaTeam: team,
      runOptions: {
        agents: team.identities,
        subscriptions: team.subscriptions,
        tasks: team.tasks,
        runId: parameters.honestOnly === true ? `${runId}-honest` : runId,
        decider: requireEntry(team.honest, 0, 'honest agent (the decider)'),
        topK: parameters.topK ?? 3,
        floor: 0.02,
        maxRounds: 4,
        witness: parameters.witness ?? true,
        ...credibility,
        ...(parameters.recovery === undefined ? {} : { recovery: parameters.recovery }),
        ...(additions ? { witnessMinDirectEvidence: 2, attention: 'trusted' as const } : {}),
      },
    };
  }
  if (name === 'scaling') {
    const size = parameters.agentCount ?? 10;
    const team = buildQaTeam({
      size,
      adversaries: Math.round(size * 0.2),
      seed,
      taskCount: parameters.taskCount ?? 30,
    });
    const topK = parameters.topK ?? (additions ? logScaledTopK(size) : 3);
    return {
      name,
      agents: team.agents,
      qaTeam: team,
      runOptions: {
        agents: team.identities,
        subscriptions: team.subscriptions,
        tasks: team.tasks,
        runId: parameters.runId === undefined ? `${runId}-n${size}-k${topK}` : runId,
        topK,
        floor: topK >= size - 1 ? -1 : 0.02,
        maxRounds: 4,
        witness: parameters.witness ?? true,
        ...credibility,
        ...(additions
          ? {
              attention: 'trusted' as const,
              teamView: 'informed' as const,
              coverageSlots: topK >= size - 1 ? 0 : Math.floor(topK / 3),
            }
          : {}),
      },
    };
  }
  if (name === 'code-review') {
    const team = buildCodeReviewTeam();
    return {
      name,
      agents: team.agents,
      runOptions: {
        agents: team.identities,
        subscriptions: team.subscriptions,
        tasks: team.tasks,
        runId,
        topK: 3,
        floor: 0.0,
        maxRounds: 3,
        witness: parameters.witness ?? true,
      },
    };
  }
  throw new InvalidArgumentError({
    parameter: 'scenario',
    value: name,
    message: `unknown RAPS scenario ${JSON.stringify(name)}; choose one of ${rapsScenarioNames.join(', ')}`,
  });
}

/** The honest agents of a QA team alone, in roster order, on the same tasks and world. */
function honestPart(team: QaTeam): QaTeam {
  const keep = new Set(team.honest);
  const indices = team.identities
    .map((identity, index) => (keep.has(identity.id) ? index : -1))
    .filter((index) => index >= 0);
  return {
    ...team,
    agents: indices.map((index) => team.agents[index] as Agent),
    identities: indices.map((index) => team.identities[index] as (typeof team.identities)[number]),
    adversaries: [],
    subscriptions: Object.fromEntries(
      team.honest.map((agentId) => [agentId, requireEntry(team.subscriptions, agentId, 'subscription text')]),
    ),
  };
}

/** Options of {@link runRapsScenario}. */
export interface RunRapsScenarioOptions extends RapsScenarioParameters {
  /** Transport; default a new in-process bus. */
  readonly transport?: Transport;
  /** Host the agents in this process (false when they run as separate node processes). @default true */
  readonly hostAgents?: boolean;
  /** Receives every RAPS event as it happens. @default no-op */
  readonly onEvent?: (event: RapsEvent) => void;
  /** Time to wait for all replies of one phase, in ms. @default 60000 */
  readonly replyTimeoutMs?: number;
}

const knownRunScenarioOptions = defineOptionKeys<RunRapsScenarioOptions>()([
  ...knownScenarioParameters,
  'transport',
  'hostAgents',
  'onEvent',
  'replyTimeoutMs',
]);

/** Runs a scenario once and returns the raw RAPS result with the scenario. */
export async function runRapsScenario(
  name: RapsScenarioName,
  options: RunRapsScenarioOptions = {},
): Promise<{ scenario: RapsScenario; result: RapsResult }> {
  assertKnownOptions('options', options, knownRunScenarioOptions, 'runRapsScenario');
  // The scenario gets its parameters only; the rest configure the run.
  const {
    transport: _transport,
    hostAgents: _hostAgents,
    onEvent: _onEvent,
    replyTimeoutMs: _timeout,
    ...parameters
  } = options;
  const scenario = createRapsScenario(name, parameters);
  const result = await runRaps({
    ...scenario.runOptions,
    ...(options.transport ? { transport: options.transport } : {}),
    hostAgents: options.hostAgents === false ? [] : scenario.agents,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.replyTimeoutMs ? { replyTimeoutMs: options.replyTimeoutMs } : {}),
  });
  return { scenario, result };
}

/** Summary of the `adversarial` scenario. */
export interface AdversarialSummary {
  /** Name of the scenario summarised. */
  readonly scenario: 'adversarial';
  /** Seed the team and tasks were built from. */
  readonly seed: number;
  /** Trust threshold τ in [0, 1] of the run. */
  readonly tau: number;
  /** Honest agent whose watchdog decided. */
  readonly decider: AgentId;
  /** Whether second-hand witness checks ran. */
  readonly witness: boolean;
  /** Whether our additions to the RAPS base were on (see {@link RapsScenarioParameters.additions}). */
  readonly additions: boolean;
  /** Every team member, with whether it is an adversary. */
  readonly agents: ReadonlyArray<{ readonly id: AgentId; readonly adversarial: boolean }>;
  /** Tasks decided. */
  readonly tasks: number;
  /** RAPS accuracy (decisions equal to the reference). */
  readonly accuracy: number;
  /** Unweighted plurality of all five agents' last answers (no reputation), for contrast. */
  readonly majorityAccuracy: number;
  /** The decider's own last answers, alone. */
  readonly deciderAloneAccuracy: number;
  /** RAPS accuracy of the same five agents with no adversary (clean reference), when measured. */
  readonly cleanAccuracy?: number;
  /** The same run decided by the team view instead of the known-honest decider (what the decider buys). */
  readonly teamViewAccuracy: number;
  /** Where witness credibility was kept in the run. */
  readonly witnessCredibility: 'separate' | 'shared';
  /** First global round after which every adversary stays below τ in the decider's view (null if never). */
  readonly adversariesBelowTauFromRound: number | null;
  /** The decider's belief E_decider[j] per round. */
  readonly reputationPerRound: ReadonlyArray<{
    readonly round: number;
    readonly taskId: string;
    readonly reputation: Readonly<Record<AgentId, number>>;
  }>;
  /** Deliveries the broker made over the run. */
  readonly routed: number;
  /** Deliveries broadcast would have made over the run. */
  readonly broadcast: number;
  /** All counters of the run, as in {@link RapsResult.totals}. */
  readonly totals: RapsResult['totals'];
}

/** Summarises an `adversarial` run. */
export function summarizeAdversarial(
  scenario: RapsScenario,
  result: RapsResult,
  seed: number,
  clean?: { scenario: RapsScenario; result: RapsResult },
): AdversarialSummary {
  const team = scenario.qaTeam as QaTeam;
  const decider = scenario.runOptions.decider as AgentId;
  const tau = scenario.runOptions.beta?.tau ?? 0.4;
  const correct = (taskId: string, answer: string | null) => team.world.isCorrect(taskId, answer);
  const accuracy = mean(result.decisions.map((decision) => (correct(decision.taskId, decision.answer) ? 1 : 0)));
  const majorityAccuracy = mean(
    result.decisions.map((decision) => (correct(decision.taskId, plurality(Object.values(decision.answers))) ? 1 : 0)),
  );
  const deciderAloneAccuracy = mean(
    result.decisions.map((decision) => (correct(decision.taskId, decision.answers[decider] ?? null) ? 1 : 0)),
  );
  const teamViewAccuracy = mean(
    result.decisions.map((decision) =>
      correct(decision.taskId, decision.teamView?.answer ?? decision.answer) ? 1 : 0,
    ),
  );
  const reputationPerRound = result.rounds.map((round) => ({
    round: round.globalRound,
    taskId: round.taskId,
    reputation: round.deciderView ?? round.reputation,
  }));
  let below: number | null = null;
  for (let index = reputationPerRound.length - 1; index >= 0; index--) {
    const entry = reputationPerRound[index] as (typeof reputationPerRound)[number];
    if (team.adversaries.every((agentId) => (entry.reputation[agentId] as number) < tau)) below = entry.round;
    else break;
  }
  return {
    scenario: 'adversarial',
    seed,
    tau,
    decider,
    witness: scenario.runOptions.witness ?? true,
    additions: scenario.runOptions.attention === 'trusted',
    agents: team.identities.map((identity) => ({
      id: identity.id,
      adversarial: team.adversaries.includes(identity.id),
    })),
    tasks: result.decisions.length,
    accuracy,
    majorityAccuracy,
    deciderAloneAccuracy,
    teamViewAccuracy,
    witnessCredibility: scenario.runOptions.beta?.witnessCredibility ?? 'separate',
    ...(clean === undefined
      ? {}
      : {
          cleanAccuracy: mean(
            clean.result.decisions.map((decision) =>
              (clean.scenario.qaTeam as QaTeam).world.isCorrect(decision.taskId, decision.answer) ? 1 : 0,
            ),
          ),
        }),
    adversariesBelowTauFromRound: below,
    reputationPerRound,
    routed: result.totals.routed,
    broadcast: result.totals.broadcast,
    totals: result.totals,
  };
}

/** One team size of the `scaling` scenario. */
export interface ScalingRow {
  /** Team size n. */
  readonly agents: number;
  /** Adversaries in the team: round(0.2·n). */
  readonly adversaries: number;
  /** Recipients per publication in the routed run. */
  readonly topK: number;
  /** Rounds the routed run took over all tasks. */
  readonly rounds: number;
  /** Deliveries per round in the routed run. */
  readonly routedPerRound: number;
  /** Deliveries per round broadcast would have made in the routed run (publications × (n − 1)). */
  readonly broadcastPerRound: number;
  /** Audit calls per round in the routed run. */
  readonly auditsPerRound: number;
  /** Fraction of tasks the routed run decided correctly, in [0, 1]. */
  readonly accuracy: number;
  /** The same team and tasks with broadcast routing (every publication to all n − 1 peers). */
  readonly broadcastAccuracy: number;
  /** Audit calls per round in the broadcast run. */
  readonly broadcastAuditsPerRound: number;
  /** Witness reports checked per round (top-k run). */
  readonly witnessChecksPerRound: number;
  /** Witness reports refused by the deviation test, by whether the witness was an adversary (top-k run). */
  readonly witnessRejected: { readonly adversarial: number; readonly honest: number };
}

const knownScalingOptions = defineOptionKeys<NonNullable<Parameters<typeof runScaling>[0]>>()([
  'seed',
  'sizes',
  'taskCount',
  'topK',
  'transport',
  'runIdSuffix',
  'witness',
  'additions',
  'witnessCredibility',
  'signal',
]);

/** Runs `scaling` for each team size: top-k routing against broadcast on the same team and tasks. */
export async function runScaling(
  options: {
    seed?: number;
    sizes?: readonly number[];
    taskCount?: number /** @default max(3, ⌈log2 n⌉) with additions, else 3 */;
    topK?: number;
    transport?: (runId: string) => Promise<Transport> | Transport;
    runIdSuffix?: string;
    witness?: boolean /** See {@link RapsScenarioParameters.additions}. @default true */;
    additions?: boolean;
    /** See {@link RapsScenarioParameters.witnessCredibility}. @default 'separate' (the model's default) */
    witnessCredibility?: 'separate' | 'shared';
    /** Aborting it rejects at once with its reason (the caller then stops what it started). @default never aborts */
    signal?: AbortSignal;
  } = {},
): Promise<{
  scenario: 'scaling';
  seed: number;
  tasks: number;
  topK: number | 'log2';
  additions: boolean;
  witnessCredibility: 'separate' | 'shared';
  rows: ScalingRow[];
}> {
  assertKnownOptions('', options, knownScalingOptions, 'runScaling');
  const {
    seed = 2027,
    sizes = [10, 20, 50],
    taskCount = 30,
    topK,
    transport,
    runIdSuffix = '',
    witness = true,
    additions = true,
    witnessCredibility,
    signal,
  } = options;
  const rows: ScalingRow[] = [];
  const run = async (size: number, k: number, onEvent?: (event: RapsEvent) => void) => {
    const runId = `scaling-${seed}-n${size}-k${k}${runIdSuffix}`;
    signal?.throwIfAborted();
    const transportForRun = transport ? await raceAbort(Promise.resolve(transport(runId)), signal) : undefined;
    try {
      const outcome = await raceAbort(
        runRapsScenario('scaling', {
          seed,
          agentCount: size,
          taskCount,
          topK: k,
          runId,
          witness,
          additions,
          ...(witnessCredibility === undefined ? {} : { witnessCredibility }),
          ...(transportForRun ? { transport: transportForRun } : {}),
          ...(onEvent ? { onEvent } : {}),
        }),
        signal,
      );
      // The run finished (its id is unique): its consumers and its stream are not left on the server.
      if (transportForRun)
        await deleteFinishedRapsRun(
          transportForRun,
          runId,
          outcome.scenario.agents.map((agent) => agent.identity.id),
        );
      return outcome;
    } finally {
      await transportForRun?.close();
    }
  };
  for (const size of sizes) {
    const rejectedBy: string[] = [];
    const k = topK ?? (additions ? logScaledTopK(size) : 3);
    const routedRun = await run(size, k, (event) => {
      if (event.type === 'witness' && !event.accepted) rejectedBy.push(event.witness);
    });
    const broadcastRun = await run(size, size - 1);
    const team = routedRun.scenario.qaTeam as QaTeam;
    const accuracyOf = (result: RapsResult) =>
      mean(result.decisions.map((decision) => (team.world.isCorrect(decision.taskId, decision.answer) ? 1 : 0)));
    const rounds = routedRun.result.rounds.length;
    rows.push({
      agents: size,
      topK: k,
      adversaries: team.adversaries.length,
      rounds,
      routedPerRound: routedRun.result.totals.routed / rounds,
      broadcastPerRound: routedRun.result.totals.broadcast / rounds,
      auditsPerRound: routedRun.result.totals.audits / rounds,
      accuracy: accuracyOf(routedRun.result),
      broadcastAccuracy: accuracyOf(broadcastRun.result),
      broadcastAuditsPerRound: broadcastRun.result.totals.audits / broadcastRun.result.rounds.length,
      witnessChecksPerRound: routedRun.result.totals.witnessChecks / rounds,
      witnessRejected: {
        adversarial: rejectedBy.filter((agentId) => team.adversaries.includes(agentId)).length,
        honest: rejectedBy.filter((agentId) => !team.adversaries.includes(agentId)).length,
      },
    });
  }
  return {
    scenario: 'scaling',
    seed,
    tasks: taskCount,
    topK: topK ?? (additions ? 'log2' : 3),
    additions,
    witnessCredibility: witnessCredibility ?? 'separate',
    rows,
  };
}

/** The `code-review` output shape. */
export interface CodeReviewSummary {
  /** Each reviewer's final peer reputation in [0, 1], its findings, and `isolated` when the reputation is below τ. */
  readonly reviews: ReadonlyArray<{
    readonly agent: AgentId;
    readonly reputation: number;
    readonly findings: readonly ReviewFinding[];
    readonly status: 'trusted' | 'isolated';
  }>;
  /** Grounded findings of trusted reviewers, merged by finding key, sorted by line, with who reported each. */
  readonly consensus_findings: ReadonlyArray<ReviewFinding & { readonly reported_by: readonly AgentId[] }>;
}

/**
 * Summarises a `code-review` run: each reviewer's peer reputation and findings; `isolated` when its
 * reputation is below τ; consensus findings are those of trusted reviewers whose quoted code is in the diff.
 */
export function summarizeCodeReview(scenario: RapsScenario, result: RapsResult): CodeReviewSummary {
  const lastTexts = result.decisions[0]?.texts ?? {};
  const tau = scenario.runOptions.beta?.tau ?? 0.4;
  const task = scenario.runOptions.tasks[0];
  const diff = task?.prompt.slice(task.prompt.indexOf('\n') + 1) ?? '';
  const lines = newFileLines(diff);
  const reviews = scenario.runOptions.agents.map((agent) => {
    const reputation = result.finalReputation[agent.id] as number;
    return {
      agent: agent.id,
      reputation,
      findings: parseFindings(lastTexts[agent.id] ?? ''),
      status: reputation >= tau ? ('trusted' as const) : ('isolated' as const),
    };
  });
  const consensus = new Map<string, ReviewFinding & { reported_by: AgentId[] }>();
  for (const review of reviews) {
    if (review.status !== 'trusted') continue;
    for (const finding of review.findings) {
      if (!isGrounded(finding, lines)) continue;
      const key = findingKey(finding);
      const entry = consensus.get(key);
      if (entry) {
        if (!entry.reported_by.includes(review.agent)) entry.reported_by.push(review.agent);
      } else consensus.set(key, { ...finding, reported_by: [review.agent] });
    }
  }
  return {
    reviews,
    consensus_findings: [...consensus.values()].sort(
      (left, right) => left.line - right.line || (left.category < right.category ? -1 : 1),
    ),
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function plurality(answers: ReadonlyArray<string | null>): string | null {
  const counts = new Map<string, number>();
  for (const answer of answers) if (answer !== null) counts.set(answer, (counts.get(answer) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = 0;
  for (const [answer, count] of [...counts].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))) {
    if (count > bestCount) {
      best = answer;
      bestCount = count;
    }
  }
  return best;
}
