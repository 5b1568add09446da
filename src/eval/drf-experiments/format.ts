// Plain-text tables for the DRF experiments (what `repute drf <experiment>` prints).
import type { BudgetExperimentResult, BudgetRow } from './budget.js';
import type { CapabilityExperimentResult } from './capability.js';
import type { CollusionExperimentResult } from './collusion.js';
import type { CostExperimentResult } from './cost.js';
import type { SignExperimentResult } from './sign.js';
import type { MeanInterval } from './stats.js';

/** Renders rows as a left-aligned text table with a header rule. */
export function renderTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] as number))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** `0.412 [0.380, 0.444]` with `digits` decimals. */
export function formatInterval(interval: MeanInterval, digits = 3): string {
  return `${interval.mean.toFixed(digits)} [${interval.low.toFixed(digits)}, ${interval.high.toFixed(digits)}]`;
}

/**
 * A correlation over seeds: its interval, with the seeds it was undefined in when some were (the
 * reputation ρ counts them in its own column, so it passes 0), or `undefined in all N seeds`.
 */
function formatCorrelation(interval: MeanInterval | null, undefinedSeeds: number, seeds: number): string {
  if (interval === null) return `undefined in all ${seeds} seeds`;
  return undefinedSeeds === 0 ? formatInterval(interval) : `${formatInterval(interval)}, ${undefinedSeeds} undefined`;
}

/** The `sign` experiment's table. */
export function formatSignTable(result: SignExperimentResult): string {
  const { settings } = result;
  const table = renderTable(
    ['selection rule', 'mean cost of selected', 'team accuracy', 'true accuracy of selected'],
    result.rows.map((row) => [
      row.rule === 'printed'
        ? 'printed Eq. 9 (+cost)'
        : row.rule === 'corrected'
          ? 'corrected Eq. 9 (-cost)'
          : row.rule === 'random'
            ? 'random k'
            : 'all printed (Eqs. 8, 9)',
      formatInterval(row.meanSelectedCost),
      formatInterval(row.accuracy),
      formatInterval(row.selectedCapability),
    ]),
  );
  return [
    `DRF sign experiment: ${settings.agents} agents, ${settings.tasks} tasks, k = ${settings.k}, costs ~ U(0,1) ${settings.costs === 'per-round' ? 'per agent and round (Section 5.1)' : 'per agent, fixed'}, skills ~ U(${settings.skillLow},${settings.skillHigh}), delta = ${settings.delta}, seeds ${settings.baseSeed}..${settings.baseSeed + settings.seeds - 1}; the first three rules use the review's reputation rules`,
    table,
    `printed - corrected (paired): cost ${formatInterval(result.printedMinusCorrected.meanSelectedCost)}, accuracy ${formatInterval(result.printedMinusCorrected.accuracy)}`,
    `intervals: ${settings.interval}`,
  ].join('\n');
}

/** The `collusion` experiment's table. */
export function formatCollusionTable(result: CollusionExperimentResult): string {
  const { settings } = result;
  const review = result.conditions.filter((condition) => condition.config === 'review (default)');
  const [plain, defended] = review.length === 2 ? review : result.conditions;
  if (!plain || !defended) return '';
  const rows = plain.windows.map((window, index) => {
    const other = defended.windows[index] as (typeof defended.windows)[number];
    return [
      `${window.fromRound}-${window.toRound}`,
      window.colluderReputation.mean.toFixed(3),
      other.colluderReputation.mean.toFixed(3),
      window.colluderSelectionRate.mean.toFixed(3),
      other.colluderSelectionRate.mean.toFixed(3),
      window.honestReputation.mean.toFixed(3),
      other.honestReputation.mean.toFixed(3),
      window.accuracy.mean.toFixed(3),
      other.accuracy.mean.toFixed(3),
    ];
  });
  const table = renderTable(
    [
      'rounds',
      'colluder rep (none)',
      'colluder rep (cred.)',
      'colluder sel. (none)',
      'colluder sel. (cred.)',
      'honest rep (none)',
      'honest rep (cred.)',
      'acc (none)',
      'acc (cred.)',
    ],
    rows,
  );
  const summary = renderTable(
    [
      'configuration',
      'defence',
      'final colluder rep',
      'final honest rep',
      'both colluders excluded',
      'an honest agent excluded',
      'accuracy',
    ],
    result.conditions.map((condition) => [
      condition.config,
      condition.defence,
      formatInterval(condition.finalColluderReputation),
      formatInterval(condition.finalHonestReputation),
      `${(condition.bothExcluded * 100).toFixed(0)}% of seeds`,
      `${(condition.honestExcluded * 100).toFixed(0)}% of seeds`,
      formatInterval(condition.accuracy),
    ]),
  );
  return [
    `DRF collusion experiment: honest skills ${settings.honestSkills.join(', ')} + 2 colluders (skill ${settings.colluderSkill}) rating each other 1 and everyone else 0; k = ${settings.k}, ${settings.tasks} tasks, threshold ${settings.threshold}, seeds ${settings.baseSeed}..${settings.baseSeed + settings.seeds - 1}`,
    `per window of rounds, ${plain.config} (means over seeds):`,
    table,
    '',
    summary,
    `intervals: ${settings.interval}`,
  ].join('\n');
}

/** The `capability` experiment's table. */
export function formatCapabilityTable(result: CapabilityExperimentResult): string {
  const { settings } = result;
  const table = renderTable(
    [
      'configuration',
      'Spearman(reputation, true acc.)',
      'Spearman(times selected, true acc.)',
      'Spearman(mean rating received, true acc.)',
      'Eq. 2',
      'Spearman(mean Eq. 2 accuracy, true acc.)',
      'team Eq. 2 accuracy',
      'team accuracy',
      'undefined seeds',
    ],
    result.rows.map((row) => [
      row.config,
      formatCorrelation(row.spearman, 0, settings.seeds),
      formatCorrelation(row.selectionSpearman, row.selectionUndefinedSeeds, settings.seeds),
      formatCorrelation(row.meanRatingSpearman, row.meanRatingUndefinedSeeds, settings.seeds),
      row.eq2,
      formatCorrelation(row.taskAccuracySpearman, row.taskAccuracyUndefinedSeeds, settings.seeds),
      formatInterval(row.teamTaskAccuracy),
      formatInterval(row.accuracy),
      String(row.undefinedSeeds),
    ]),
  );
  const example = renderTable(
    ['agent', 'true accuracy', 'final reputation', 'times selected'],
    result.example.map((row) => [
      row.agentId,
      row.trueAccuracy.toFixed(3),
      row.reputation.toFixed(3),
      String(row.timesSelected),
    ]),
  );
  return [
    `DRF capability experiment: ${settings.agents} agents, skills ~ U(${settings.skillLow},${settings.skillHigh}) hidden from the protocol, k = ${settings.k}, ${settings.tasks} tasks, seeds ${settings.baseSeed}..${settings.baseSeed + settings.seeds - 1}`,
    table,
    // The seed table shows the `review (default)` configuration; a grid without it (tune) has none.
    ...(result.example.length > 0 ? ['', `seed ${settings.baseSeed}, review's rules (default):`, example] : []),
    `intervals: ${settings.interval}`,
  ].join('\n');
}

/** The `cost` (replay) experiment's table. */
export function formatCostTable(result: CostExperimentResult): string {
  const { settings } = result;
  const percent = (value: number) => `${(100 * value).toFixed(0)}%`;
  const table = renderTable(
    [
      'method',
      'agents asked/task',
      'accuracy',
      'relative to full team',
      'LLM calls/task',
      'share of calls',
      'batched calls/task',
      'batched share',
    ],
    result.rows.map((row) => [
      row.method,
      row.meanTeamSize.toFixed(2),
      formatInterval(row.accuracy),
      formatInterval(row.relativeAccuracy),
      row.callsPerTask.toFixed(2),
      percent(row.callShare),
      row.batchedCallsPerTask.toFixed(2),
      percent(row.batchedCallShare),
    ]),
  );
  const verdict = (holds: boolean, rows: readonly string[]) =>
    holds ? `holds for ${rows.join('; ')}` : 'does not hold for any k <= 5';
  return [
    `DRF replay on ${result.dataset}: ${settings.split} tasks (${settings.taskCount}), ${settings.rating === 'agreement' ? "ratings = agreement with the rater's own answer" : `ratings = simulated judge of accuracy ${settings.judgeAccuracy}`}, costs ${settings.costs === 'per-round' ? 'c_i^t ~ U(0,1) per round' : 'equal per agent'}, threshold ${settings.threshold}, seeds ${settings.baseSeed}..${settings.baseSeed + settings.seeds - 1} (task orders)`,
    `pool: ${settings.poolChoice}:`,
    `  ${result.pool.map((entry) => `${entry.agentId} (${entry.accuracy.toFixed(3)})`).join(', ')}`,
    table,
    `best single pool agent: ${result.bestSingle.agentId} ${result.bestSingle.accuracy.toFixed(3)}; coverage (some pool agent right): ${result.coverage.toFixed(3)}`,
    `claim ">= 98% of the full team's accuracy at <= 50% of its calls": every call counted: ${verdict(result.claim.holds, result.claim.rows)}; ratings batched: ${verdict(result.claim.holdsBatched, result.claim.rowsBatched)}`,
    `intervals: ${settings.interval}`,
  ].join('\n');
}

/** The `budget` experiment's table (printed by `repute drf replay` after the cost table). */
export function formatBudgetTable(result: BudgetExperimentResult): string {
  const { settings } = result;
  const percent = (value: number) => `${(100 * value).toFixed(0)}%`;
  const label: Record<BudgetRow['method'], string> = {
    majority: 'majority (random m)',
    'llm-debate': 'LLM-Debate-style (2 rounds)',
    dylan: 'DyLAN-style importance filter',
    drf: 'DRF (review)',
  };
  const table = renderTable(
    [
      'budget (calls/task)',
      'method',
      'ratings',
      'agents',
      'calls/task',
      'call ratio',
      'accuracy',
      'accuracy ratio',
      'ours: >=98% at <=50%',
    ],
    result.rows.map((row) => [
      `${row.budget} (${percent(row.budgetShare)})`,
      label[row.method],
      row.rating,
      row.agents === 0 ? 'none fits' : String(row.agents),
      row.callsPerTask.toFixed(2),
      percent(row.callRatio),
      row.accuracy === null ? '-' : formatInterval(row.accuracy),
      row.accuracyRatio === null ? '-' : formatInterval(row.accuracyRatio),
      row.meetsOurClaim ? 'yes' : 'no',
    ]),
  );
  return [
    `DRF against the baselines at equal call budgets on ${result.dataset}: ${settings.split} tasks (${settings.taskCount}), pool of ${settings.poolSize} (full team plurality ${formatInterval(result.fullTeam)}), ratings counted ${settings.callCounting === 'batched' ? 'one call per rater' : 'one call per rating'}, judge accuracy ${settings.judgeAccuracy}, DyLAN warm-up ${settings.warmup} tasks, seeds ${settings.baseSeed}..${settings.baseSeed + settings.seeds - 1}`,
    table,
    `${settings.claim}: DRF meets it at ${result.drfMeetsOurClaimAt.length === 0 ? 'no budget' : `budget(s) ${result.drfMeetsOurClaimAt.join(', ')}`}`,
    `LLM-Debate-style: recorded answers cannot be re-asked, so the revision round repeats each answer (its calls are counted, its gain is not measured)`,
    `intervals: ${settings.interval}`,
  ].join('\n');
}
