// The options of runRaps resolved once (defaults merged with the shared helper, skipping undefined)
// and validated at the entry point, before any message is sent.
import type { AgentId } from '../../core/agent-identity.js';
import { validateTeam } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { resolveOptions } from '../../core/options.js';
import {
  assertFinite,
  assertInRange,
  assertInteger,
  assertNonEmptyString,
  assertNonNegative,
} from '../../core/validate.js';
import type { TrustPolicy } from './broker.js';
import type { RunRapsOptions } from './raps-options.js';
import type { WitnessBehaviour } from './watchdog.js';
import { subjectToken } from '../../transport/subject.js';

/** The scalar options of {@link RunRapsOptions} that have a default, resolved. */
export interface RapsSettings {
  runId: string;
  maxRounds: number;
  doneQuorum: number;
  replyTimeoutMs: number;
  topK: number;
  coverageSlots: number;
  floor: number;
  trustPolicy: TrustPolicy;
  probation: number;
  seed: number;
  refine: boolean;
  witness: boolean;
  maxWitnesses: number;
  witnessMinDirectEvidence: number;
  witnessSubjectMinDirectEvidence: number;
  attention: 'all' | 'trusted';
  teamView: 'all' | 'informed';
  recovery: number;
  witnessBehaviour: Readonly<Record<AgentId, WitnessBehaviour>>;
}

/** Defaults of {@link RapsSettings}, as documented on {@link RunRapsOptions} (the team file's RAPS block takes them too). */
export const rapsDefaults: Required<RapsSettings> = {
  runId: 'raps',
  maxRounds: 4,
  doneQuorum: 0.6,
  replyTimeoutMs: 60_000,
  topK: 3,
  coverageSlots: 0,
  floor: 0.05,
  trustPolicy: 'filter',
  probation: 0,
  seed: 0,
  refine: true,
  witness: true,
  maxWitnesses: 3,
  witnessMinDirectEvidence: 0,
  witnessSubjectMinDirectEvidence: 0,
  attention: 'all',
  teamView: 'all',
  recovery: 1,
  witnessBehaviour: {},
};

/** What {@link resolveRapsSettings} returns: the settings and the checked team. */
export interface ResolvedRapsOptions {
  readonly settings: Readonly<RapsSettings>;
  /** Agent ids in roster order. */
  readonly order: readonly AgentId[];
  readonly decider: AgentId | undefined;
}

/**
 * Resolves the defaulted options and validates the team, run id, tasks, subscriptions and the
 * scalar options (the Beta parameters, `coverageSlots` and the broker options are checked where
 * the models and the broker are built, right after).
 */
export function resolveRapsSettings(options: RunRapsOptions): ResolvedRapsOptions {
  const settings = resolveOptions<RapsSettings>(rapsDefaults, options);
  const identities = options.agents;
  validateTeam(identities as { id: string; model: string }[], 'agents');
  const order = identities.map((agent) => agent.id);
  // Each agent's commands go to the subject of its id's token: two ids with one token (`a.b`, `a_b`)
  // would share a command subject and durable, and over NATS one node would take the other's commands.
  const byToken = new Map<string, AgentId>();
  order.forEach((agentId, index) => {
    const token = subjectToken(agentId);
    const earlier = byToken.get(token);
    if (earlier !== undefined)
      throw new InvalidArgumentError({
        parameter: `agents[${index}].id`,
        value: agentId,
        message: `agent ids ${JSON.stringify(earlier)} and ${JSON.stringify(agentId)} map to the same message subject token ${JSON.stringify(token)} (every character other than letters, digits, '-' and '_' becomes '_'); rename one of them`,
      });
    byToken.set(token, agentId);
  });
  const { runId } = settings;
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
    const text = options.subscriptions?.[agentId];
    if (typeof text !== 'string') {
      throw new InvalidArgumentError({
        parameter: `subscriptions.${agentId}`,
        value: text,
        message: `every agent needs an initial subscription text; subscriptions.${agentId} is missing`,
      });
    }
    // A blank intent embeds to nothing and matches no publication (refinement refuses blank texts too).
    if (text.trim() === '')
      throw new InvalidArgumentError({
        parameter: `subscriptions.${agentId}`,
        value: text,
        message: `subscriptions.${agentId} is blank; declare what the agent wants to hear, e.g. 'arithmetic answers with their reasoning'`,
      });
  }
  assertInteger('maxWitnesses', settings.maxWitnesses, 0, Number.POSITIVE_INFINITY, 'pass e.g. { maxWitnesses: 3 }');
  assertNonNegative('witnessMinDirectEvidence', settings.witnessMinDirectEvidence, 'pass e.g. 2, or 0 for off');
  assertNonNegative(
    'witnessSubjectMinDirectEvidence',
    settings.witnessSubjectMinDirectEvidence,
    'pass e.g. 1, or 0 for off',
  );
  for (const [agentId, behaviour] of Object.entries(settings.witnessBehaviour)) {
    if (!order.includes(agentId))
      throw new InvalidArgumentError({
        parameter: `witnessBehaviour.${agentId}`,
        value: agentId,
        message: `witnessBehaviour.${agentId}: ${JSON.stringify(agentId)} is not one of the agents (${order.join(', ')}); name only agents of this team`,
      });
    assertOneOf(`witnessBehaviour.${agentId}`, behaviour, ['honest', 'inverted']);
  }
  for (const key of ['beliefs', 'firstHand'] as const) {
    const saved = options.initialState?.[key]?.agents;
    // A state of another team would fail deep inside a round, after messages went out: refuse it here.
    if (saved !== undefined && (saved.length !== order.length || !order.every((agentId) => saved.includes(agentId))))
      throw new InvalidArgumentError({
        parameter: `initialState.${key}.agents`,
        value: saved,
        message: `initialState.${key} was saved for agents ${saved.join(', ')}, not for this team (${order.join(', ')}); pass the state of a run of this team, or none`,
      });
  }
  assertInteger('maxRounds', settings.maxRounds, 1, 1000);
  assertInRange('doneQuorum', settings.doneQuorum, 0, 1, { minExclusive: true });
  assertInteger('replyTimeoutMs', settings.replyTimeoutMs, 1);
  const decider = options.decider;
  if (decider !== undefined && !order.includes(decider))
    throw new InvalidArgumentError({
      parameter: 'decider',
      value: decider,
      message: `decider ${JSON.stringify(decider)} is not one of the agents (${order.join(', ')})`,
    });
  for (const [parameter, value] of [
    ['witness', settings.witness],
    ['refine', settings.refine],
  ] as const)
    if (typeof value !== 'boolean')
      throw new InvalidArgumentError({
        parameter,
        value,
        message: `${parameter} must be true or false, got ${JSON.stringify(value)}; a string such as 'false' would switch the step on`,
      });
  // Probation draws derive from String(seed): NaN or Infinity (a failed parse) would pass silently.
  assertFinite('seed', settings.seed, 'pass e.g. { seed: 2027 }');
  assertOneOf('attention', settings.attention, ['all', 'trusted']);
  assertOneOf('teamView', settings.teamView, ['all', 'informed']);
  assertInRange('recovery', settings.recovery, 0, 1);
  return { settings, order, decider };
}

function assertOneOf(parameter: string, value: unknown, allowed: readonly string[]): void {
  if (!(allowed as readonly unknown[]).includes(value))
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be ${allowed.map((item) => `'${item}'`).join(' or ')}, got ${JSON.stringify(value)}`,
    });
}
