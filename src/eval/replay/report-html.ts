import type { ConditionRow } from './metrics.js';
import { describeKinds, mixedKeyThreshold } from './audit-keys.js';
import type { ReplaySummary } from './run-replay.js';
import { attackNames } from './types.js';

const palette = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A percentage; `—` for a metric no condition defines. */
const percent = (value: number | null) => (value === null ? '—' : `${(100 * value).toFixed(1)}`);

/** Grouped bar chart: accuracy per method (bars) per attack (groups, plus clean). */
function accuracyChart(summary: ReplaySummary): string {
  const methods = Object.keys(summary.methods);
  const groups = ['clean', ...attackNames];
  const width = 900;
  const height = 320;
  const left = 40;
  const bottom = 40;
  const plotHeight = height - bottom - 20;
  const groupWidth = (width - left) / groups.length;
  const barWidth = Math.max(2, (groupWidth - 10) / Math.max(1, methods.length));
  const parts: string[] = [];
  for (let tick = 0; tick <= 4; tick++) {
    const y = 20 + plotHeight - (tick / 4) * plotHeight;
    parts.push(
      `<line x1="${left}" x2="${width}" y1="${y}" y2="${y}" stroke="#ddd"/><text x="${left - 4}" y="${y + 4}" text-anchor="end" font-size="10">${tick * 25}%</text>`,
    );
  }
  groups.forEach((group, groupIndex) => {
    const x0 = left + groupIndex * groupWidth + 5;
    methods.forEach((method, methodIndex) => {
      const summaryOf = summary.methods[method];
      const value = group === 'clean' ? (summaryOf?.clean ?? 0) : (summaryOf?.byAttack[group] ?? 0);
      const barHeight = value * plotHeight;
      parts.push(
        `<rect x="${(x0 + methodIndex * barWidth).toFixed(1)}" y="${(20 + plotHeight - barHeight).toFixed(1)}" width="${(barWidth - 1).toFixed(1)}" height="${barHeight.toFixed(1)}" fill="${palette[methodIndex % palette.length]}"><title>${escapeHtml(method)} · ${group}: ${percent(value)}%</title></rect>`,
      );
    });
    parts.push(
      `<text x="${(x0 + groupWidth / 2 - 5).toFixed(1)}" y="${height - bottom + 18}" text-anchor="middle" font-size="11">${group}</text>`,
    );
  });
  const legend = methods
    .map(
      (method, index) =>
        `<rect x="${left + index * 110}" y="${height - 14}" width="10" height="10" fill="${palette[index % palette.length]}"/><text x="${left + index * 110 + 14}" y="${height - 5}" font-size="11">${escapeHtml(method)}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height + 10}" role="img" aria-label="accuracy per method per attack">${parts.join('')}${legend}</svg>`;
}

/** Small line chart per method: mean normalised weight of attackers (red) and honest members (blue) over tasks. */
function trajectoryChart(method: string, attackers: readonly number[], honest: readonly number[]): string {
  const width = 280;
  const height = 150;
  const pad = 28;
  const maximum = Math.max(0.2, ...attackers, ...honest);
  const path = (values: readonly number[]) =>
    values
      .map(
        (value, index) =>
          `${index === 0 ? 'M' : 'L'}${(pad + (index / Math.max(1, values.length - 1)) * (width - pad - 6)).toFixed(1)},${(height - pad - (value / maximum) * (height - pad - 16)).toFixed(1)}`,
      )
      .join(' ');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="weights over tasks for ${escapeHtml(method)}">
<text x="${pad}" y="12" font-size="12" font-weight="bold">${escapeHtml(method)}</text>
<line x1="${pad}" x2="${width - 6}" y1="${height - pad}" y2="${height - pad}" stroke="#999"/><line x1="${pad}" x2="${pad}" y1="16" y2="${height - pad}" stroke="#999"/>
<text x="${pad - 3}" y="20" font-size="9" text-anchor="end">${maximum.toFixed(2)}</text><text x="${pad - 3}" y="${height - pad}" font-size="9" text-anchor="end">0</text>
<text x="${width - 6}" y="${height - pad + 12}" font-size="9" text-anchor="end">task ${attackers.length}</text>
<path d="${path(honest)}" fill="none" stroke="#4e79a7" stroke-width="1.5"/><path d="${path(attackers)}" fill="none" stroke="#e15759" stroke-width="1.5"/>
</svg>`;
}

/** Answer kind and why, the flags' own limits on the sample, and the merged-answer audit with its examples. */
function dataAuditHtml(summary: ReplaySummary): string {
  const { data } = summary;
  const rate = data.keyGroups === 0 ? 0 : data.mixedKeys / data.keyGroups;
  const flags =
    data.flagLimits === null
      ? ''
      : ` The dataset's flags on the same sample: coverage ${percent(data.flagLimits.coverage)}%, best single ${percent(data.flagLimits.bestSingle)}% (${escapeHtml(data.flagLimits.bestSingleAgent)}).`;
  const warning =
    rate > mixedKeyThreshold
      ? ` <b>Above ${100 * mixedKeyThreshold}%: the answer kind merges answers the dataset tells apart; replay with <code>--kind</code>.</b>`
      : '';
  const examples = data.mixedKeyExamples
    .map(
      (example) =>
        `<tr><td>${escapeHtml(example.task)}</td><td><code>${escapeHtml(example.key)}</code></td><td>${example.correct}</td><td>${example.wrong}</td><td class="desc">${escapeHtml(example.answers.join(' | '))}</td></tr>`,
    )
    .join('\n');
  return `<p>Answer kind: <b>${escapeHtml(describeKinds(data.kinds))}</b> (${escapeHtml(data.kindSource)})${data.literalFallbacks > 0 ? `; ${data.literalFallbacks} literal answers were no Python literal and were keyed as text` : ''}.${flags}</p>
<p>Merged-answer audit: ${data.mixedKeys} of ${data.keyGroups} (task, key) groups mix proposals flagged correct and wrong (${(100 * rate).toFixed(2)}%).${warning}</p>
${examples === '' ? '' : `<table><tr><th>task</th><th>key</th><th>✓</th><th>✗</th><th>answers</th></tr>\n${examples}</table>`}`;
}

/**
 * A self-contained HTML report (no external assets): the summary table, dataset limits, an inline
 * SVG bar chart of accuracy per method per attack, and per-method line charts of the attackers' and
 * honest members' mean weight over tasks.
 */
export function formatReplayHtml(summary: ReplaySummary, rows: readonly ConditionRow[]): string {
  const methodRows = Object.entries(summary.methods)
    .map(
      ([name, method]) =>
        `<tr><td>${escapeHtml(name)}</td><td>${percent(method.clean)}</td><td>${percent(method.attacked)}</td><td>${percent(method.loss)}</td><td>${percent(method.relativeDrop)}</td><td>${name in summary.retention ? percent(summary.retention[name] ?? 0) : ''}</td><td>${Number.isInteger(method.strictWins) ? method.strictWins : method.strictWins.toFixed(1)}</td><td>${percent(method.poolExp)}</td><td>${percent(method.payloadHit)}</td><td>${percent(method.nextExcl)}</td><td>${percent(method.cfHarm)}</td><td class="desc">${escapeHtml(method.description)}</td></tr>`,
    )
    .join('\n');
  const attackRows = Object.entries(summary.methods)
    .map(
      ([name, method]) =>
        `<tr><td>${escapeHtml(name)}</td>${attackNames.map((attack) => `<td>${percent(method.byAttack[attack] ?? 0)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const trajectories = Object.entries(summary.trajectories)
    .map(([method, trajectory]) => trajectoryChart(method, trajectory.attackers, trajectory.honest))
    .join('\n');
  const { data, limits, options } = summary;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Repute replay: ${escapeHtml(data.name)}</title>
<style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right;font-size:13px}td:first-child,th:first-child,.desc{text-align:left}.desc{font-size:11px;color:#555;max-width:360px}</style></head>
<body>
<h1>Attack replay: ${escapeHtml(data.name)}</h1>
<p>${data.datasetTasks} tasks × ${data.agents} agents (${data.proposals} proposals, ${data.missingProposals} missing, ${data.unparseable} unparseable; correctness: ${escapeHtml(data.correctness)}); ${data.sampledTasks} tasks sampled from the ${options.split} split with seed${options.seeds.length === 1 ? '' : 's'} ${options.seeds.join(', ')}; feedback <b>${options.feedback}</b>; verifier <b>${options.verifier.kind}</b>${options.verifier.kind === 'simulated' ? ` (sensitivity ${options.verifier.sensitivity}, specificity ${options.verifier.specificity})` : ''}; ${summary.grid.clean} clean + ${summary.grid.attacked} attacked conditions (${rows.length} rows).</p>
<p>Definitions: the MiniRep paper's §C.3 (see docs/replay.md); figures are means over seeds. Limits on the sample: coverage ${percent(limits.coverage)}%, majority of all ${data.agents} agents ${percent(limits.majorityAll)}%, best single agent ${percent(limits.bestSingle)}% (${escapeHtml(limits.bestSingleAgent)}).</p>
${dataAuditHtml(summary)}
<h2>Methods (accuracy in %)</h2>
<table><tr><th>method</th><th>clean</th><th>attacked</th><th>loss</th><th>rel. drop</th><th>R<sub>b</sub> (MiniRep vs it)</th><th>strict wins</th><th>PoolExp</th><th>PayloadHit</th><th>NextExcl</th><th>CF-Harm</th><th>composition</th></tr>
${methodRows}</table>
<h2>Accuracy per method per attack</h2>
${accuracyChart(summary)}
<table><tr><th>method</th>${attackNames.map((attack) => `<th>${attack}</th>`).join('')}</tr>
${attackRows}</table>
<h2>Reputation over tasks: attackers (red) vs honest members (blue)</h2>
<p>Mean normalised pre-task weight over every attacked condition; an equal split is 0.1 per member.</p>
<div>${trajectories}</div>
</body></html>
`;
}
