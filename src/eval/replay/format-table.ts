import { describeKinds, mixedKeyThreshold } from './audit-keys.js';
import type { ReplaySummary } from './run-replay.js';
import type { Interval } from './seeds.js';

/** A percentage in a 6-wide column; `—` for a metric no condition defines. */
const pct = (value: number | null) => (value === null ? '—' : (100 * value).toFixed(1)).padStart(6);
const wins = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1)).padStart(5);
const range = (interval: Interval | undefined, scale = 100, digits = 1) =>
  interval === undefined
    ? ''
    : `${(scale * interval.mean).toFixed(digits)} [${(scale * interval.low).toFixed(digits)}, ${(scale * interval.high).toFixed(digits)}]`;

/** The run's verifier as the table's footer names it, with its measured rates. */
function describeVerifier(summary: ReplaySummary): string {
  const verifier = summary.options.verifier;
  if (verifier.kind === 'none') return 'none';
  const measured = summary.verifier?.measured;
  const rates =
    measured === undefined
      ? ''
      : `; measured sensitivity ${pct(measured.sensitivity).trim()}%, specificity ${pct(measured.specificity).trim()}%`;
  if (verifier.kind === 'judge') return `judge:${verifier.judge ?? ''} (out of the pool${rates})`;
  return `simulated, ${verifier.model} (sensitivity ${verifier.sensitivity}, specificity ${verifier.specificity}${rates})`;
}

/**
 * The summary as plain-text tables: one row per method with clean and attacked accuracy, loss,
 * relative drop, strict wins, significant wins (`sig`: strict wins whose paired bootstrap interval
 * over tasks to the best other method excludes 0), PoolExp, PayloadHit, NextExcl and CF-Harm (paper definitions, % except
 * wins); the MiniRep-vs-baseline retention table (R_b = loss_b − loss_minirep, points); clean /
 * attacked / wins per composition; 95% bootstrap intervals; then the dataset limits.
 */
export function formatReplayTable(summary: ReplaySummary): string {
  const header = `${'method'.padEnd(14)} ${'clean'.padStart(6)} ${'attack'.padStart(6)} ${'loss'.padStart(6)} ${'drop'.padStart(6)} ${'wins'.padStart(5)} ${'sig'.padStart(5)} ${'PoolEx'.padStart(6)} ${'PayHit'.padStart(6)} ${'NxtExc'.padStart(6)} ${'CFHarm'.padStart(6)}`;
  const lines = [header, '-'.repeat(header.length)];
  for (const [name, method] of Object.entries(summary.methods)) {
    lines.push(
      `${name.padEnd(14)} ${pct(method.clean)} ${pct(method.attacked)} ${pct(method.loss)} ${pct(method.relativeDrop)} ${wins(method.strictWins)} ${wins(method.significantWins ?? 0)} ${pct(method.poolExp)} ${pct(method.payloadHit)} ${pct(method.nextExcl)} ${pct(method.cfHarm)}`,
    );
  }
  const miniRep = summary.methods.minirep;
  if (miniRep !== undefined && Object.keys(summary.retention).length > 0) {
    lines.push(
      '',
      `MiniRep vs baseline: R_b = loss_b − loss_minirep (points; > 0: MiniRep loses fewer), paired differences with 95% intervals`,
    );
    const retentionHeader = `${'baseline'.padEnd(14)} ${'loss_b'.padStart(6)} ${'loss_M'.padStart(6)} ${'R_b'.padStart(6)}  ${'R_b [95%]'.padEnd(22)} ${'Δclean [95%]'.padEnd(22)} ${'Δattacked [95%]'.padEnd(22)}`;
    lines.push(retentionHeader, '-'.repeat(retentionHeader.length));
    for (const [baseline, advantage] of Object.entries(summary.retention)) {
      const paired = summary.intervals.paired[baseline];
      lines.push(
        `${baseline.padEnd(14)} ${pct(summary.methods[baseline]?.loss ?? 0)} ${pct(miniRep.loss)} ${pct(advantage)}  ${range(paired?.retention).padEnd(22)} ${range(paired?.clean).padEnd(22)} ${range(paired?.attacked).padEnd(22)}`,
      );
    }
  }
  const compositions = Object.keys(summary.byComposition);
  const names = Object.keys(summary.methods);
  if (compositions.length > 0) {
    lines.push(
      '',
      `per composition: clean / attacked / strict wins (of ${summary.grid.attacked / Math.max(1, compositions.length)})`,
    );
    lines.push(`${'method'.padEnd(14)} ${compositions.map((composition) => composition.padStart(19)).join(' ')}`);
    for (const name of names) {
      const cells = compositions.map((composition) => {
        const cell = summary.byComposition[composition]?.[name];
        return cell === undefined
          ? ''.padStart(19)
          : `${(100 * cell.clean).toFixed(1)}/${(100 * cell.attacked).toFixed(1)}/${wins(cell.strictWins).trim()}`.padStart(
              19,
            );
      });
      lines.push(`${name.padEnd(14)} ${cells.join(' ')}`);
    }
  }
  const { seeds } = summary.options;
  lines.push(
    '',
    `95% bootstrap intervals over ${seeds.length} seed${seeds.length === 1 ? '' : 's'} and conditions (${summary.intervals.resamples} resamples)`,
  );
  const intervalHeader = `${'method'.padEnd(14)} ${'clean'.padEnd(20)} ${'attacked'.padEnd(20)} ${'loss'.padEnd(20)} ${'strict wins'.padEnd(22)}`;
  lines.push(intervalHeader, '-'.repeat(intervalHeader.length));
  for (const [name, interval] of Object.entries(summary.intervals.methods)) {
    lines.push(
      `${name.padEnd(14)} ${range(interval.clean).padEnd(20)} ${range(interval.attacked).padEnd(20)} ${range(interval.loss).padEnd(20)} ${range(interval.strictWins, 1).padEnd(22)}`,
    );
  }
  const { limits, data, grid, options } = summary;
  lines.push('');
  lines.push(
    `limits on ${data.sampledTasks} sampled ${options.split} tasks: coverage ${(100 * limits.coverage).toFixed(1)}%, majority of all ${data.agents} agents ${(100 * limits.majorityAll).toFixed(1)}%, best single ${(100 * limits.bestSingle).toFixed(1)}% (${limits.bestSingleAgent}); best member per team ${Object.entries(
      limits.bestSingleInTeam,
    )
      .map(([name, value]) => `${name} ${(100 * value).toFixed(1)}%`)
      .join(', ')}`,
  );
  lines.push(
    `${data.name}: ${data.datasetTasks} tasks (${data.splitTasks} in split ${options.split}) × ${data.agents} agents, ${grid.clean} clean + ${grid.attacked} attacked conditions per seed, feedback ${options.feedback}, verifier ${describeVerifier(summary)}, seed${seeds.length === 1 ? '' : 's'} ${seeds.join(',')}; accuracies in %, wins = strict wins of ${grid.attacked}, sig = significant wins (mean over seeds)`,
  );
  lines.push(...formatDataAudit(summary.data));
  return `${lines.join('\n')}\n`;
}

/**
 * The answer-kind lines of the table: which kind and why, the flags' own coverage and best single
 * agent on the sample, and the merged-answer audit (rate and up to five examples).
 */
export function formatDataAudit(data: ReplaySummary['data']): string[] {
  const lines = [
    `answer kind: ${describeKinds(data.kinds)} (${data.kindSource})${data.literalFallbacks > 0 ? `; ${data.literalFallbacks} literal answers are no Python literal and were keyed as text` : ''}`,
  ];
  if (data.flagLimits !== null) {
    lines.push(
      `the dataset's flags on the same sample: coverage ${(100 * data.flagLimits.coverage).toFixed(1)}%, best single ${(100 * data.flagLimits.bestSingle).toFixed(1)}% (${data.flagLimits.bestSingleAgent})`,
    );
  }
  const rate = data.keyGroups === 0 ? 0 : data.mixedKeys / data.keyGroups;
  lines.push(
    `merged-answer audit: ${data.mixedKeys} of ${data.keyGroups} (task, key) groups mix correct and wrong flags (${(100 * rate).toFixed(2)}%)${rate > mixedKeyThreshold ? ` — above ${100 * mixedKeyThreshold}%: the kind merges answers the dataset tells apart; try --kind` : ''}`,
  );
  for (const example of data.mixedKeyExamples)
    lines.push(
      `  ${example.task}  key ${example.key}  ${example.correct} ✓ / ${example.wrong} ✗: ${example.answers.join(' | ')}`,
    );
  return lines;
}
