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

/** Validates a team: non-empty, unique ids, non-empty models, non-negative costs. */
export function validateTeam(agents: readonly AgentIdentity[], parameter = 'agents'): void {
  if (!Array.isArray(agents) || agents.length === 0) {
    throw new InvalidArgumentError({
      parameter,
      value: agents,
      message: `${parameter} must be a non-empty list of agents; pass e.g. [{ id: 'a1', model: 'gpt-4o' }]`,
    });
  }
  const seen = new Set<string>();
  // Valid agents pass a quick check without building a field path per check; anything else takes
  // the full check below, which throws the named error.
  let plain = true;
  for (let index = 0; plain && index < agents.length; index++) {
    const agent = agents[index] as AgentIdentity | undefined;
    plain =
      agent !== null &&
      typeof agent === 'object' &&
      typeof agent.id === 'string' &&
      agent.id.length > 0 &&
      typeof agent.model === 'string' &&
      agent.model.length > 0 &&
      (agent.cost === undefined ||
        (typeof agent.cost === 'number' && Number.isFinite(agent.cost) && agent.cost >= 0)) &&
      !seen.has(agent.id);
    if (plain) seen.add((agent as AgentIdentity).id);
  }
  if (plain) return;
  seen.clear();
  agents.forEach((agent, index) => {
    assertNonEmptyString(`${parameter}[${index}].id`, agent?.id);
    assertNonEmptyString(`${parameter}[${index}].model`, agent.model);
    if (agent.cost !== undefined) assertNonNegative(`${parameter}[${index}].cost`, agent.cost);
    if (seen.has(agent.id)) {
      throw new InvalidArgumentError({
        parameter: `${parameter}[${index}].id`,
        value: agent.id,
        message: `duplicate agent id ${JSON.stringify(agent.id)}; agent ids must be unique within a team`,
      });
    }
    seen.add(agent.id);
  });
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
