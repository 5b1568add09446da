import type { SeededConditionRow } from './run-replay.js';

const columns: readonly (keyof SeededConditionRow)[] = [
  'seed',
  'condition',
  'composition',
  'placement',
  'attack',
  'method',
  'accuracy',
  'exact',
  'loss',
  'relativeDrop',
  'activeTasks',
  'poolExp',
  'payloadHit',
  'nextExcl',
  'cfHarm',
  'attackerWeightShare',
  'strictWin',
  'significantWin',
];

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(6);
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Renders the per-condition rows as CSV (one row per seed × condition × method; empty cell = metric
 * not defined for the condition, e.g. PoolExp on a clean run).
 */
export function formatConditionsCsv(rows: readonly SeededConditionRow[]): string {
  return `${[columns.join(','), ...rows.map((row) => columns.map((column) => cell(row[column])).join(','))].join('\n')}\n`;
}
