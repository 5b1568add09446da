// Read models of teams: which teams the store knows, and each saved reputation with every agent's
// explanation (`ReputationModel.explain`).
import { NotFoundError } from '../core/errors.js';
import type { ScoreExplanation } from '../core/reputation-model.js';
import { allDebateMethodNames } from '../protocols/debate/methods.js';
import { createReputationModel, isReputationModelName } from '../reputation/registry.js';
import type { Store } from '../store/store.js';

/** A team the store knows. */
export interface TeamSummary {
  /** Team key. */
  readonly name: string;
  /** Agent ids in saved order. */
  readonly agents: readonly string[];
  /** Runs of the team in the store. */
  readonly runs: number;
  /** Methods with a saved team reputation. */
  readonly methods: readonly string[];
}

/** Names under which team reputation may be saved: every debate method plus `extra`. */
function reputationNames(extra: readonly string[]): string[] {
  return [...new Set<string>([...allDebateMethodNames, ...extra])];
}

/** Teams with runs or saved agents, plus `known` (e.g. the served team file), sorted by name. */
export function listTeams(
  store: Store,
  known: readonly string[] = [],
  extraMethods: readonly string[] = [],
): TeamSummary[] {
  const runs = store.listRuns();
  const names = new Set<string>(known);
  for (const run of runs) if (run.team !== null) names.add(run.team);
  return [...names].sort().map((name) => ({
    name,
    agents: (store.loadTeam(name) ?? []).map((agent) => agent.id),
    runs: runs.filter((run) => run.team === name).length,
    methods: reputationNames(extraMethods).filter(
      (method) => store.loadReputation({ scope: { team: name }, name: method }) !== undefined,
    ),
  }));
}

/** A team's saved reputation per method, each agent explained. */
export interface TeamReputationView {
  readonly team: string;
  readonly methods: ReadonlyArray<{
    readonly name: string;
    readonly model: string;
    readonly agents: readonly ScoreExplanation[];
  }>;
}

/**
 * Restores each saved team reputation into a fresh model of the same name and explains every
 * agent. Unknown teams throw `NotFoundError`.
 */
export function describeTeamReputation(
  store: Store,
  team: string,
  known: readonly string[] = [],
  extraMethods: readonly string[] = [],
): TeamReputationView {
  const agents = store.loadTeam(team);
  if (agents === undefined && !known.includes(team) && !store.listRuns({ team }).length) {
    throw new NotFoundError({
      entity: 'team',
      id: team,
      message: `unknown team ${JSON.stringify(team)}; list teams with GET /api/teams`,
    });
  }
  const methods = [];
  for (const name of reputationNames(extraMethods)) {
    const snapshot = store.loadReputation({ scope: { team }, name });
    if (snapshot === undefined || !isReputationModelName(snapshot.model)) continue;
    const ids = snapshot.agents.length > 0 ? snapshot.agents : (agents ?? []).map((agent) => agent.id);
    const byId = new Map((agents ?? []).map((agent) => [agent.id, agent]));
    const model = createReputationModel(snapshot.model, {
      agents: ids.map((id) => byId.get(id) ?? { id, model: id }),
    } as never);
    model.restore(snapshot);
    methods.push({ name, model: snapshot.model, agents: model.agentIds().map((agentId) => model.explain(agentId)) });
  }
  return { team, methods };
}
