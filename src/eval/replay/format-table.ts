import { describeKinds, mixedKeyThreshold } from './audit-keys.js';
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
  lines.push(...formatDataAudit(summary.data));
  return `${lines.join('\n')}\n`;
}

/**
 * The answer-kind lines of the table: which kind and why, the flags' own coverage and best single
 * agent on the sample, and the merged-answer audit (rate and up to five examples).
 */
export function formatDataAudit(data: ReplaySummary['data']): string[] {
  const lines = [`answer kind: ${describeKinds(data.kinds)} (${data.kindSource})${data.literalFallbacks > 0 ? `; ${data.literalFallbacks} literal answers are no Python literal and were keyed as text` : ''}`];
  if (data.flagLimits !== null) {
    lines.push(`the dataset's flags on the same sample: coverage ${(100 * data.flagLimits.coverage).toFixed(1)}%, best single ${(100 * data.flagLimits.bestSingle).toFixed(1)}% (${data.flagLimits.bestSingleAgent})`);
  }
  const rate = data.keyGroups === 0 ? 0 : data.mixedKeys / data.keyGroups;
  lines.push(`merged-answer audit: ${data.mixedKeys} of ${data.keyGroups} (task, key) groups mix correct and wrong flags (${(100 * rate).toFixed(2)}%)${rate > mixedKeyThreshold ? ` — above ${100 * mixedKeyThreshold}%: the kind merges answers the dataset tells apart; try --kind` : ''}`);
  for (const example of data.mixedKeyExamples) lines.push(`  ${example.task}  key ${example.key}  ${example.correct} ✓ / ${example.wrong} ✗: ${example.answers.join(' | ')}`);
  return lines;
}
