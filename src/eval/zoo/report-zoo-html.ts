import { escapeHtml } from '../replay/report-html.js';
import type { ZooSummary } from './run-zoo.js';
import { summariseZoo, zooTeamLabel } from './summarise-zoo.js';

const points = (value: number) => (100 * value).toFixed(1);
const meanOf = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * A self-contained HTML report of a zoo run (no external assets): the headline per method, then one
 * row per team with the best member and every method's clean and attacked accuracy; a clean figure
 * more than 1 point below majority's is marked red, the best attacked figure of a team bold.
 */
export function formatZooHtml(summary: ZooSummary): string {
  const { methods } = summary;
  const headline = summariseZoo(summary);
  const interval = (value: { mean: number; low: number; high: number }) =>
    `${points(value.mean)} <small>[${points(value.low)}, ${points(value.high)}]</small>`;
  const headlineRows = methods
    .map((method) => {
      const worst = headline.worstVsMajority[method];
      const versus = headline.attackedVsBestOther[method];
      const learners = headline.belowLearners?.[method];
      return `<tr><td>${escapeHtml(method)}</td><td>${interval(headline.clean[method] ?? { mean: 0, low: 0, high: 0 })}</td><td>${interval(headline.attacked[method] ?? { mean: 0, low: 0, high: 0 })}</td><td>${worst === undefined ? '' : `${points(worst.gap)} <small>${escapeHtml(worst.team)}</small>`}</td><td>${headline.belowMajority[method] ?? 0} <small>(${headline.clearlyBelowMajority[method] ?? 0} clearly)</small></td><td>${learners === undefined ? '—' : `${learners.teams} <small>(${learners.clearly} clearly)</small>`}</td><td>${versus === undefined ? '' : `${interval(versus.difference)} <small>vs ${escapeHtml(versus.against)}</small>`}</td></tr>`;
    })
    .join('\n');
  const teamRows = summary.rows
    .map((row) => {
      const majority = meanOf(row.clean.majority ?? []);
      const bestAttacked = Math.max(...methods.map((method) => meanOf(row.attacked[method] ?? [])));
      const clean = methods
        .map((method) => {
          const value = meanOf(row.clean[method] ?? []);
          return `<td${value < majority - 0.01 - 1e-12 ? ' class="low"' : ''}>${points(value)}</td>`;
        })
        .join('');
      const attacked = methods
        .map((method) => {
          const value = meanOf(row.attacked[method] ?? []);
          return `<td${value >= bestAttacked - 1e-12 ? ' class="top"' : ''}>${points(value)}</td>`;
        })
        .join('');
      return `<tr><td>${escapeHtml(zooTeamLabel(row))}</td><td>${points(meanOf(row.bestMember))}</td>${clean}${attacked}</tr>`;
    })
    .join('\n');
  const methodHeads = methods.map((method) => `<th>${escapeHtml(method)}</th>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Repute team zoo</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right;font-size:13px}td:first-child,th:first-child{text-align:left}.low{background:#f8d0d0}.top{font-weight:bold}small{color:#666}</style></head>
<body>
<h1>Team zoo</h1>
<p>${summary.rows.length} teams; ${summary.tasks} tasks of the ${escapeHtml(summary.split)} split per team and seed; seeds ${summary.seeds.join(', ')}; feedback <b>${escapeHtml(summary.feedback)}</b>; attacks ${summary.attacks.map(escapeHtml).join(', ')} with ⌈0.3·n⌉ seeded random members corrupted. Accuracy in %, means over seeds; intervals are 95% bootstrap intervals over seeds.</p>
<h2>Over all teams</h2>
<table><tr><th>method</th><th>clean</th><th>attacked</th><th>worst clean − majority</th><th>teams &gt; 1 point below majority</th><th>teams &gt; 1 point below max(single-metric, beta)</th><th>attacked − best other</th></tr>
${headlineRows}</table>
<h2>Per team</h2>
<p>Red: clean accuracy more than 1 point below majority's. Bold: the team's best attacked accuracy.</p>
<table><tr><th rowspan="2">team</th><th rowspan="2">best member</th><th colspan="${methods.length}">clean</th><th colspan="${methods.length}">attacked</th></tr>
<tr>${methodHeads}${methodHeads}</tr>
${teamRows}</table>
</body></html>
`;
}
