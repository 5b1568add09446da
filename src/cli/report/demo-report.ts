// Self-contained HTML report of `repute demo`: tables and inline SVG charts, no external assets.
import type { DemoSummary } from '../../eval/demo/run-demo.js';

const palette = ['#2563eb', '#059669', '#7c3aed', '#d97706', '#0891b2', '#4d7c0f', '#be185d', '#475569'];

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** Grouped bars: accuracy clean and under attack per method. */
function accuracyChart(summary: DemoSummary): string {
  const methods = summary.methodOrder;
  const width = 760;
  const height = 280;
  const left = 48;
  const bottom = 40;
  const plotHeight = height - bottom - 16;
  const group = (width - left - 10) / Math.max(1, methods.length);
  const bar = Math.min(32, group / 3);
  const y = (value: number) => 16 + plotHeight * (1 - value);
  const parts: string[] = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line x1="${left}" x2="${width - 10}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e5e7eb"/><text x="${left - 6}" y="${y(tick) + 4}" text-anchor="end" font-size="11">${tick * 100}%</text>`,
    );
  }
  methods.forEach((name, index) => {
    const result = summary.methods[name];
    if (!result) return;
    const x = left + index * group + group / 2;
    parts.push(
      `<rect x="${x - bar - 1}" y="${y(result.clean)}" width="${bar}" height="${plotHeight * result.clean}" fill="#94a3b8"><title>${escapeHtml(name)} clean ${percent(result.clean)}</title></rect>`,
    );
    parts.push(
      `<rect x="${x + 1}" y="${y(result.attacked)}" width="${bar}" height="${plotHeight * result.attacked}" fill="#dc2626"><title>${escapeHtml(name)} attacked ${percent(result.attacked)}</title></rect>`,
    );
    parts.push(
      `<text x="${x}" y="${height - bottom + 16}" text-anchor="middle" font-size="12">${escapeHtml(name)}</text>`,
    );
  });
  parts.push(
    `<rect x="${width - 190}" y="4" width="10" height="10" fill="#94a3b8"/><text x="${width - 176}" y="13" font-size="11">clean</text><rect x="${width - 130}" y="4" width="10" height="10" fill="#dc2626"/><text x="${width - 116}" y="13" font-size="11">under attack</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="Accuracy per method">${parts.join('')}</svg>`;
}

/** One line per agent: reputation after each task. */
function reputationChart(summary: DemoSummary, method: string, condition: 'clean' | 'attacked'): string {
  const series = summary.methods[method]?.reputation?.[condition];
  if (!series) return '';
  const width = 760;
  const height = 240;
  const left = 40;
  const right = 120;
  const top = 10;
  const plotHeight = height - top - 30;
  const all = Object.values(series).flat().filter(Number.isFinite);
  const max = Math.max(1e-9, ...all);
  const tasks = Math.max(1, ...Object.values(series).map((values) => values.length));
  const x = (index: number) => left + ((width - left - right) * index) / Math.max(1, tasks - 1);
  const y = (value: number) => top + plotHeight * (1 - value / max);
  const models = [...new Set(summary.agents.map((agent) => agent.model))];
  const parts: string[] = [
    `<line x1="${left}" x2="${width - right}" y1="${y(0)}" y2="${y(0)}" stroke="#9ca3af"/>`,
    `<text x="${left - 4}" y="${y(max) + 4}" text-anchor="end" font-size="10">${max.toFixed(2)}</text><text x="${left - 4}" y="${y(0) + 4}" text-anchor="end" font-size="10">0</text>`,
    `<text x="${(width - right + left) / 2}" y="${height - 6}" text-anchor="middle" font-size="11">task</text>`,
  ];
  summary.agents.forEach((agent, index) => {
    const values = series[agent.id] ?? [];
    const adversarial = agent.adversarial && condition === 'attacked';
    const color = adversarial ? '#dc2626' : (palette[models.indexOf(agent.model) % palette.length] as string);
    const points = values
      .map((value, position) => `${x(position).toFixed(1)},${y(Number.isFinite(value) ? value : 0).toFixed(1)}`)
      .join(' ');
    parts.push(
      `<polyline fill="none" stroke="${color}" stroke-width="1.6" ${adversarial ? 'stroke-dasharray="5 3"' : ''} points="${points}"><title>${escapeHtml(agent.id)} (${escapeHtml(agent.model)})</title></polyline>`,
    );
    parts.push(
      `<text x="${width - right + 6}" y="${top + 12 + index * 14}" font-size="11" fill="${color}">${escapeHtml(agent.id)}${adversarial ? ' (adversary)' : ''}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="Reputation over tasks, ${escapeHtml(method)} ${condition}">${parts.join('')}</svg>`;
}

/**
 * Renders the demo summary as one self-contained HTML page (inline CSS and SVG, no scripts).
 *
 * @example
 * writeFileSync('report.html', renderDemoReport(summary, 'repute demo --seed 2027'));
 */
export function renderDemoReport(summary: DemoSummary, command: string): string {
  const rows = summary.methodOrder
    .map((name) => {
      const result = summary.methods[name];
      if (!result) return '';
      return `<tr><td>${escapeHtml(name)}</td><td>${percent(result.clean)}</td><td>${percent(result.attacked)}</td><td>${((result.attacked - result.clean) * 100).toFixed(1)} pts</td></tr>`;
    })
    .join('');
  const team = summary.agents
    .map(
      (agent) =>
        `<tr><td>${escapeHtml(agent.id)}</td><td>${escapeHtml(agent.model)}</td><td>${agent.adversarial ? 'adversarial under attack' : 'honest'}</td></tr>`,
    )
    .join('');
  const charts = summary.methodOrder
    .filter((name) => summary.methods[name]?.reputation)
    .map(
      (name) =>
        `<h3>${escapeHtml(name)}</h3><p>Under attack</p>${reputationChart(summary, name, 'attacked')}<p>Clean</p>${reputationChart(summary, name, 'clean')}`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Repute demo report</title>
<style>body{font-family:system-ui,sans-serif;max-width:820px;margin:2em auto;color:#111827}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d1d5db;padding:4px 10px;text-align:right}td:first-child,th:first-child{text-align:left}code{background:#f3f4f6;padding:2px 4px}</style>
</head><body>
<h1>Repute demo</h1>
<p>Command: <code>${escapeHtml(command)}</code></p>
<p>${summary.agents.length} simulated agents, ${summary.tasks} built-in tasks, Propose + ${summary.rounds} debate round(s), ${summary.feedback} feedback (no ground truth reaches any decision; accuracy is graded afterwards), seed ${summary.seed}, wall time ${(summary.wallTimeMs / 1000).toFixed(1)} s.
Under attack the three adversaries push one shared wrong answer per task and claim that all other agents agree.</p>
<h2>Accuracy per method</h2>
<table><thead><tr><th>method</th><th>clean</th><th>under attack</th><th>change</th></tr></thead><tbody>${rows}</tbody></table>
${accuracyChart(summary)}
<h2>Team</h2>
<table><thead><tr><th>agent</th><th>model (clone group)</th><th>role</th></tr></thead><tbody>${team}</tbody></table>
<h2>Reputation over tasks</h2>
<p>Each line is one agent's score after each task; adversaries are dashed red.</p>
${charts}
</body></html>
`;
}
