import { InvalidArgumentError } from './errors.js';
import { assertNonEmptyString, assertNonNegative } from './validate.js';

/** Identifier of an agent, unique within a team or run. */
export type AgentId = string;

/**
 * Who an agent is. Agents that share `model` form a clone group: they tend to make the same
 * mistakes, so robust methods cap their joint influence.
 */
export interface AgentIdentity {
  /** Unique id, e.g. `gpt-4o@openai`. */
  readonly id: AgentId;
  /** Underlying model (clone group key), e.g. `gpt-4o`. */
  readonly model: string;
  /** Price per call in US dollars (or any consistent unit), ≥ 0. @default 0 */
  readonly cost?: number;
}

/**
 * Names no agent id may take: the properties every JavaScript object inherits (`constructor`,
 * `toString`, `__proto__`, …). Weights, scores and verdicts are records keyed by agent id, and such an
 * id would read the inherited value where the agent has no entry, or (`__proto__`) not be stored.
 */
const reservedAgentIds: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Whether `id` is the name of a property every object inherits, which no agent id may be (see {@link assertAgentId}). */
export function isReservedAgentId(id: string): boolean {
  return reservedAgentIds.has(id);
}

/** Throws {@link InvalidArgumentError} unless `value` is a non-empty string that is not a {@link reservedAgentIds} name. */
export function assertAgentId(parameter: string, value: unknown): asserts value is AgentId {
  assertNonEmptyString(parameter, value, 'agent ids are non-empty strings');
  if (reservedAgentIds.has(value)) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter}: agent id ${JSON.stringify(value)} is the name of a property every JavaScript object inherits (${[...reservedAgentIds].join(', ')}); records keyed by agent id (weights, scores) would read the inherited value. Rename the agent, e.g. ${JSON.stringify(`${value}-1`)}`,
    });
  }
}

/** Validates a team: non-empty, unique ids (none a {@link assertAgentId} reserved name), non-empty models, non-negative costs. */
export function validateTeam(agents: readonly AgentIdentity[], parameter = 'agents'): void {
  if (!Array.isArray(agents) || agents.length === 0) {
    throw new InvalidArgumentError({
      parameter,
      value: agents,
      message: `${parameter} must be a non-empty list of agents; pass e.g. [{ id: 'a1', model: 'gpt-4o' }]`,
    });
  }
  // Valid agents pass a quick check without building a field path per check; anything else takes
  // the full check below, which throws the named error. A team-sized list is checked for repeated ids
  // pair by pair, which allocates nothing (teams are checked on every task of a run); a longer one
  // through a set.
  const seen = agents.length > smallTeam ? new Set<string>() : undefined;
  let plain = true;
  for (let index = 0; plain && index < agents.length; index++) {
    const agent = agents[index] as AgentIdentity | undefined;
    plain =
      agent !== null &&
      typeof agent === 'object' &&
      typeof agent.id === 'string' &&
      agent.id.length > 0 &&
      !reservedAgentIds.has(agent.id) &&
      typeof agent.model === 'string' &&
      agent.model.length > 0 &&
      (agent.cost === undefined ||
        (typeof agent.cost === 'number' && Number.isFinite(agent.cost) && agent.cost >= 0)) &&
      (seen === undefined ? !repeatsEarlier(agents, index) : !seen.has(agent.id));
    if (plain) seen?.add((agent as AgentIdentity).id);
  }
  if (plain) return;
  const ids = new Set<string>();
  agents.forEach((agent, index) => {
    assertAgentId(`${parameter}[${index}].id`, agent?.id);
    assertNonEmptyString(`${parameter}[${index}].model`, agent.model);
    if (agent.cost !== undefined) assertNonNegative(`${parameter}[${index}].cost`, agent.cost);
    if (ids.has(agent.id)) {
      throw new InvalidArgumentError({
        parameter: `${parameter}[${index}].id`,
        value: agent.id,
        message: `duplicate agent id ${JSON.stringify(agent.id)}; agent ids must be unique within a team`,
      });
    }
    ids.add(agent.id);
  });
}

/** Teams up to this size are checked for repeated ids pair by pair. */
const smallTeam = 16;

/** Whether an agent before `agents[index]` has its id (both already checked to be agents with string ids). */
function repeatsEarlier(agents: readonly AgentIdentity[], index: number): boolean {
  const id = (agents[index] as AgentIdentity).id;
  for (let earlier = 0; earlier < index; earlier++) if ((agents[earlier] as AgentIdentity).id === id) return true;
  return false;
}

/** Groups agent ids by underlying model: each entry is one clone group. */
export function cloneGroups(agents: readonly AgentIdentity[]): Map<string, AgentId[]> {
  const groups = new Map<string, AgentId[]>();
  for (const agent of agents) {
    const members = groups.get(agent.model);
    if (members) members.push(agent.id);
    else groups.set(agent.model, [agent.id]);
  }
  return groups;
}
