import type { ReplaySummary } from './run-replay.js';

const pct = (value: number) => (100 * value).toFixed(1).padStart(6);

/**
 * The summary as a plain-text table: one row per method with clean and attacked accuracy, loss,
 * relative drop, retention advantage, strict wins, PoolExp, PayloadHit, NextExcl and CF-Harm (all %
 * except wins), then the dataset limits.
 */
export function formatReplayTable(summary: ReplaySummary): string {
  const header = `${'method'.padEnd(14)} ${'clean'.padStart(6)} ${'attack'.padStart(6)} ${'loss'.padStart(6)} ${'drop'.padStart(6)} ${'retAdv'.padStart(6)} ${'wins'.padStart(5)} ${'PoolEx'.padStart(6)} ${'PayHit'.padStart(6)} ${'NxtExc'.padStart(6)} ${'CFHarm'.padStart(6)}`;
  const lines = [header, '-'.repeat(header.length)];
  for (const [name, method] of Object.entries(summary.methods)) {
    lines.push(
      `${name.padEnd(14)} ${pct(method.clean)} ${pct(method.attacked)} ${pct(method.loss)} ${pct(method.relativeDrop)} ${pct(method.retentionAdvantage)} ${String(method.strictWins).padStart(5)} ${pct(method.poolExp)} ${pct(method.payloadHit)} ${pct(method.nextExcl)} ${pct(method.cfHarm)}`,
    );
  }
  const { limits, data, grid, options } = summary;
  lines.push('');
  lines.push(`limits on ${data.sampledTasks} sampled tasks: coverage ${(100 * limits.coverage).toFixed(1)}%, majority of all ${data.agents} agents ${(100 * limits.majorityAll).toFixed(1)}%, best single ${(100 * limits.bestSingle).toFixed(1)}% (${limits.bestSingleAgent})`);
  lines.push(`${data.name}: ${data.datasetTasks} tasks × ${data.agents} agents, ${grid.clean} clean + ${grid.attacked} attacked conditions, feedback ${options.feedback}, verifier ${options.verifier.kind === 'simulated' ? `simulated (sensitivity ${options.verifier.sensitivity}, specificity ${options.verifier.specificity})` : 'none'}, seed ${options.seed}; accuracies in %, wins = strict wins of ${grid.attacked}`);
  return `${lines.join('\n')}\n`;
}
