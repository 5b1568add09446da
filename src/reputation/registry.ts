import type { AgentId, AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createBetaModel } from './beta.js';
import { createDrfModel } from './drf.js';
import { createEigenTrustModel } from './eigentrust.js';
import { createMiniRepModel } from './minirep.js';
import { createSingleMetricModel } from './single-metric.js';

// One line per model: name → factory taking `{ agents: AgentId[], ...options }`.
const reputationModelFactories = {
  beta: createBetaModel,
  eigentrust: createEigenTrustModel,
  drf: createDrfModel,
  'single-metric': createSingleMetricModel,
  minirep: createMiniRepModel,
};

type Factories = typeof reputationModelFactories;

/** Name of a registered reputation model, e.g. `beta`. */
export type ReputationModelName = keyof Factories;

/**
 * Options of `createReputationModel(name, ...)`: the model's own options plus `agents`, given as
 * ids or as agent identities (only `id` is used).
 */
export type ReputationModelOptionsFor<N extends ReputationModelName> = Omit<Parameters<Factories[N]>[0], 'agents'> & {
  /** The team: a non-empty list of unique agent ids or identities. */
  readonly agents: readonly (AgentId | AgentIdentity)[];
};

/** Every registered reputation model name, in registration order. */
export const reputationModelNames = Object.freeze(
  Object.keys(reputationModelFactories),
) as readonly ReputationModelName[];

/** True when `name` is a registered reputation model. */
export function isReputationModelName(name: unknown): name is ReputationModelName {
  return typeof name === 'string' && Object.hasOwn(reputationModelFactories, name);
}

/**
 * Creates a reputation model by registry name. Unknown names, an empty team, duplicate ids and
 * out-of-range options throw `InvalidArgumentError` naming the field.
 *
 * @example
 * const model = createReputationModel('beta', { agents: ['a1', 'a2'], lambda: 0.9 });
 * model.observe([{ type: 'outcome', taskId: 't1', subject: 'a1', success: 1 }]);
 * model.weights(); // { a1: 0.5714..., a2: 0.4285... }
 */
export function createReputationModel<N extends ReputationModelName>(
  name: N,
  options: NoInfer<ReputationModelOptionsFor<N>>,
): ReturnType<Factories[N]> {
  if (!isReputationModelName(name)) {
    throw new InvalidArgumentError({
      parameter: 'name',
      value: name,
      message: `unknown reputation model ${JSON.stringify(name)}; use one of ${reputationModelNames.join(', ')}`,
    });
  }
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'options',
      value: options,
      message: `options must be an object like { agents: ['a1', 'a2'] }, got ${String(options)}`,
    });
  }
  const agents = Array.isArray(options.agents)
    ? options.agents.map((agent) => (agent !== null && typeof agent === 'object' ? (agent as AgentIdentity).id : agent))
    : options.agents;
  const factory = reputationModelFactories[name] as (options: {
    agents: readonly AgentId[];
  }) => ReturnType<Factories[N]>;
  return factory({ ...options, agents: agents as readonly AgentId[] });
}
