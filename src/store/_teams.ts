import { assertAgentId, type AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { assertNonEmptyString } from '../core/validate.js';
import { type StoreContext, toJson } from './_store-context.js';
import type { Store } from './types.js';

/** The `team_agents` table: a team's agent identities in order, replaced on save. */
export function createTeamsTable({
  db,
  now,
  guard,
  transaction,
  lock,
}: StoreContext): Pick<Store, 'saveTeam' | 'loadTeam'> {
  const statements = {
    deleteTeam: db.prepare('DELETE FROM team_agents WHERE team = ?'),
    insertTeamAgent: db.prepare(
      'INSERT INTO team_agents (team, agent_id, position, identity, updated_at) VALUES (?, ?, ?, ?, ?)',
    ),
    loadTeam: db.prepare('SELECT identity FROM team_agents WHERE team = ? ORDER BY position'),
  };
  return {
    saveTeam(team, agents) {
      guard();
      assertNonEmptyString('team', team, "pass a team key such as 'math-team'");
      if (!Array.isArray(agents)) {
        throw new InvalidArgumentError({
          parameter: 'agents',
          value: agents,
          message: 'agents must be an array of AgentIdentity',
        });
      }
      const seen = new Set<string>();
      agents.forEach((agent, index) => {
        assertAgentId(`agents[${index}].id`, agent?.id);
        if (seen.has(agent.id)) {
          throw new InvalidArgumentError({
            parameter: `agents[${index}].id`,
            value: agent.id,
            message: `duplicate agent id ${JSON.stringify(agent.id)} in team ${JSON.stringify(team)}`,
          });
        }
        seen.add(agent.id);
      });
      transaction(() => {
        lock(`team:${team}`);
        statements.deleteTeam.run(team);
        const updatedAt = now();
        agents.forEach((agent, index) =>
          statements.insertTeamAgent.run(team, agent.id, index, toJson(`agents[${index}]`, agent), updatedAt),
        );
      });
    },

    loadTeam(team) {
      guard();
      const rows = statements.loadTeam.all(team) as { identity: string }[];
      return rows.length === 0 ? undefined : rows.map((row) => JSON.parse(row.identity) as AgentIdentity);
    },
  };
}
