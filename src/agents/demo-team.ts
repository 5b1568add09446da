import type { AgentIdentity } from '../core/agent-identity.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import type { Agent } from './agent.js';
import { createSimulatedAgent, type SimulatedProfile } from './simulated-agent.js';
import type { SimulationWorld } from './simulation-world.js';

/** One member of the demo team: its identity, its honest profile and whether it attacks. */
export interface DemoMember {
  readonly identity: AgentIdentity;
  readonly profile: SimulatedProfile;
  /** Under attack this member becomes a coordinated payload adversary. */
  readonly adversarial: boolean;
}

/**
 * The built-in demo team: 10 simulated agents in 7 clone groups (a 3-agent group, a 2-agent group
 * and five single models), skills 0.40–0.66 at difficulty 0.5; the last three turn adversarial
 * under attack. Costs are nominal dollars per call.
 */
export const demoTeam: readonly DemoMember[] = [
  { identity: { id: 'atlas-a', model: 'atlas-70b', cost: 0.004 }, profile: { skill: 0.62 }, adversarial: false },
  { identity: { id: 'atlas-b', model: 'atlas-70b', cost: 0.004 }, profile: { skill: 0.6 }, adversarial: false },
  { identity: { id: 'atlas-c', model: 'atlas-70b', cost: 0.004 }, profile: { skill: 0.58 }, adversarial: false },
  { identity: { id: 'nimbus-a', model: 'nimbus-34b', cost: 0.002 }, profile: { skill: 0.55 }, adversarial: false },
  { identity: { id: 'nimbus-b', model: 'nimbus-34b', cost: 0.002 }, profile: { skill: 0.52 }, adversarial: false },
  { identity: { id: 'orca', model: 'orca-32b', cost: 0.003 }, profile: { skill: 0.66 }, adversarial: false },
  { identity: { id: 'lumen', model: 'lumen-8b', cost: 0.0005 }, profile: { skill: 0.4 }, adversarial: false },
  { identity: { id: 'vega', model: 'vega-13b', cost: 0.001 }, profile: { skill: 0.5 }, adversarial: true },
  { identity: { id: 'kite', model: 'kite-13b', cost: 0.001 }, profile: { skill: 0.48 }, adversarial: true },
  { identity: { id: 'sable', model: 'sable-9b', cost: 0.001 }, profile: { skill: 0.45 }, adversarial: true },
];

const knownDemoTeamOptions = defineOptionKeys<Parameters<typeof createDemoTeam>[0]>()([
  'world',
  'seed',
  'attacked',
  'latencyMs',
  'members',
]);

/**
 * Builds the demo team over a world. Under attack the adversarial members push one shared wrong
 * payload per task and claim that the whole team agrees with it; otherwise they answer honestly
 * with their own profile.
 *
 * @example
 * const agents = createDemoTeam({ world, seed: 2027, attacked: true });
 */
export function createDemoTeam(options: {
  world: SimulationWorld;
  seed: number;
  attacked: boolean;
  latencyMs?: number;
  members?: readonly DemoMember[];
}): Agent[] {
  assertKnownOptions('', options, knownDemoTeamOptions, 'createDemoTeam');
  const { world, seed, attacked, latencyMs = 0, members = demoTeam } = options;
  return members.map((member) =>
    createSimulatedAgent({
      identity: member.identity,
      profile:
        attacked && member.adversarial
          ? { ...member.profile, adversary: { strategy: 'payload', claimAgreement: true } }
          : member.profile,
      world,
      seed,
      latencyMs,
    }),
  );
}
