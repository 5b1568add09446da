// The spend table of `repute run` for DRF and RAPS teams: money per agent and per method, and what
// the full team would have cost on the same tasks.
import type { ProtocolSpend } from '../../protocols/protocol.js';

/**
 * Spend of a run, per agent and per method, with the full-team counterfactual: the protocol's list
 * prices (`ProtocolSpend`) with what the store's ledger booked per agent.
 */
export type SpendReport = Omit<ProtocolSpend, 'agents'> & {
  /** One row per team member, in team-file order. */
  readonly agents: ReadonlyArray<
    ProtocolSpend['agents'][number] & {
      /** LLM calls booked in the store's ledger for this run (cache hits included). */
      readonly calls: number;
      /** Calls served from the record/replay cache. */
      readonly cachedCalls: number;
      /** Money actually spent (the ledger's booking; cache hits cost 0). */
      readonly cost: number;
    }
  >;
};

const money = (value: number) => value.toFixed(6);

/** Formats a {@link SpendReport} as the plain-text tables `repute run` prints. */
export function formatSpendTable(spend: SpendReport, compared: readonly string[] = []): string {
  const lines = [
    `${'spend per agent'.padEnd(20)}${'tasks'.padStart(7)}${'calls'.padStart(7)}${'cached'.padStart(8)}${'tokens in'.padStart(11)}${'tokens out'.padStart(12)}${'spent'.padStart(12)}${'list price'.padStart(12)}`,
  ];
  for (const agent of spend.agents) {
    lines.push(
      `${agent.agentId.padEnd(20)}${String(agent.tasks).padStart(7)}${String(agent.calls).padStart(7)}${String(agent.cachedCalls).padStart(8)}${String(agent.inputTokens).padStart(11)}${String(agent.outputTokens).padStart(12)}${money(agent.cost).padStart(12)}${money(agent.listCost).padStart(12)}`,
    );
  }
  const spent = spend.agents.reduce((sum, agent) => sum + agent.cost, 0);
  lines.push('', `${'spend per method'.padEnd(20)}${'spent'.padStart(12)}${'list price'.padStart(12)}`);
  for (const method of spend.methods)
    lines.push(
      `${method.method.padEnd(20)}${money(spent).padStart(12)}${money(method.listCost).padStart(12)}  ${method.note}`,
    );
  for (const name of compared)
    lines.push(`${name.padEnd(20)}${money(0).padStart(12)}${money(0).padStart(12)}  same proposals, no extra calls`);
  const own = spend.methods[0]?.listCost ?? 0;
  const share =
    spend.fullTeam.listCost > 0 ? ` (${((own / spend.fullTeam.listCost) * 100).toFixed(1)}% of it used)` : '';
  lines.push(
    `${`full team (${spend.fullTeam.agents})`.padEnd(20)}${'-'.padStart(12)}${money(spend.fullTeam.listCost).padStart(12)}  ${spend.fullTeam.note}${share}`,
  );
  return lines.join('\n');
}
