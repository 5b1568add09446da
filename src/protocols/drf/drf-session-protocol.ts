// DRF (arXiv 2509.05764) as a registered protocol (`protocol: { type: drf, ... }` in a team file):
// one persisted session (runDrfSession's runner), the compared aggregators on its proposals, and the
// spend against the full team.
import { comparedMethodFigures, type Protocol } from '../protocol.js';
import { type DrfTeamConfig, drfTeamConfigSchema } from './drf-protocol-schema.js';
import { createDrfSessionRunner, DRF_METHOD, drfCompareAggregators, type DrfTaskRecord } from './run-drf-session.js';

/**
 * DRF over a live team. The team size is `protocol.k`, else the team file's top-level `k` (the
 * agents per task `repute serve` uses too), else min(3, agents); giving both with different values
 * is refused.
 */
export const drfProtocol: Protocol<DrfTeamConfig, DrfTaskRecord> = {
  type: 'drf',
  description: 'DRF: reputation filter, UCB with cost, rating network (arXiv 2509.05764)',
  configSchema: drfTeamConfigSchema,
  methods: { names: drfCompareAggregators, defaults: [] },
  checkTeam({ config, agentIds, k }) {
    if (k !== undefined && config.k !== undefined && k !== config.k)
      return {
        field: 'k',
        message: `the team size ${k} differs from protocol.k ${config.k}; give DRF's team size once (protocol.k, or k for every command)`,
      };
    const size = config.k ?? k;
    if (size !== undefined && size > agentIds.length)
      return {
        field: config.k === undefined ? 'k' : 'protocol.k',
        message: `the team size exceeds the ${agentIds.length} agents listed; use k <= ${agentIds.length}`,
      };
    if (config.minEligible !== undefined && config.minEligible > agentIds.length)
      return {
        field: 'protocol.minEligible',
        message: `exceeds the ${agentIds.length} agents listed; use 1 (strict filter) up to ${agentIds.length}`,
      };
    return undefined;
  },
  create({ agents, config, methods, k, seed, runId, team, reputationStart, grade, prices }) {
    // `type` chose this protocol; the rest of the block is the session's protocol.
    const { type: _type, ...settings } = config;
    return {
      sessions: [
        {
          method: DRF_METHOD,
          // The session builds its own model: a team state changed by a server is kept, not merged.
          reputation: null,
          open: async () =>
            createDrfSessionRunner({
              runId,
              team,
              agents,
              protocol: { ...settings, k: settings.k ?? k },
              prices,
              compare: methods,
              seed,
              grade,
              reputationStart,
            }),
        },
      ],
      report: ({ sessions }) => {
        const records = sessions.flatMap((session) => session.records);
        const resumed = sessions.reduce((sum, session) => sum + session.resumedTasks, 0);
        return {
          methods: comparedMethodFigures(DRF_METHOD, records, resumed, methods),
          spend: drfSpend(
            records,
            agents.map((agent) => agent.identity.id),
          ),
        };
      },
    };
  },
};

/** DRF's list-price spend: each selected member's metered calls; the full team as every record's counterfactual. */
function drfSpend(records: readonly DrfTaskRecord[], agentIds: readonly string[]) {
  const agents = agentIds.map((agentId) => {
    let inputTokens = 0;
    let outputTokens = 0;
    let listCost = 0;
    let selected = 0;
    for (const record of records) {
      const usage = record.usage[agentId];
      if (record.team.includes(agentId)) selected++;
      if (!usage) continue;
      inputTokens += usage.inputTokens;
      outputTokens += usage.outputTokens;
      listCost += usage.listCost;
    }
    return { agentId, inputTokens, outputTokens, listCost, tasks: selected };
  });
  const listCost = agents.reduce((sum, agent) => sum + agent.listCost, 0);
  return {
    agents,
    methods: [
      {
        method: DRF_METHOD,
        listCost,
        note: `k = ${records[0]?.team.length ?? 0} of ${agentIds.length} agents per task`,
      },
    ],
    fullTeam: {
      agents: agentIds.length,
      listCost: records.reduce((sum, record) => sum + record.fullTeamListCost, 0),
      note: 'every agent proposes and rates every other on every task',
    },
  };
}
