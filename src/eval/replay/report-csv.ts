import type { ConditionRow } from './metrics.js';

const columns: readonly (keyof ConditionRow)[] = ['condition', 'composition', 'placement', 'attack', 'method', 'accuracy', 'exact', 'loss', 'poolExp', 'payloadHit', 'nextExcl', 'cfHarm', 'strictWin'];

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(6);
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Renders the per-condition rows as CSV (one row per condition × method; empty cell = metric not
 * defined for the condition, e.g. PoolExp on a clean run).
 */
export function formatConditionsCsv(rows: readonly ConditionRow[]): string {
  return `${[columns.join(','), ...rows.map((row) => columns.map((column) => cell(row[column])).join(','))].join('\n')}\n`;
}
