import { seedInterval, type ZooInterval, type ZooRow, type ZooSummary } from './run-zoo.js';

/** The zoo's headline figures per method, over every team (row). */
export interface ZooHeadline {
  /** Per method: mean over teams of the clean accuracy, with a bootstrap interval over seeds. */
  readonly clean: Readonly<Record<string, ZooInterval>>;
  /** Per method: mean over teams of the attacked accuracy, with a bootstrap interval over seeds. */
  readonly attacked: Readonly<Record<string, ZooInterval>>;
  /** Per method: the lowest (method − majority) clean accuracy over teams, in points of [0, 1], and that team. */
  readonly worstVsMajority: Readonly<Record<string, { readonly gap: number; readonly team: string }>>;
  /** Per method: teams whose clean accuracy is more than 1 point below majority's. */
  readonly belowMajority: Readonly<Record<string, number>>;
  /**
   * Per method: teams more than 1 point below majority clean beyond seed noise: the upper end of the
   * team's 95 % bootstrap interval of (method − majority), paired over seeds, is below −1 point.
   */
  readonly clearlyBelowMajority: Readonly<Record<string, number>>;
  /**
   * Per method, when the run has `single-metric` and `beta` (they learn from the same feedback): teams
   * whose clean accuracy is more than 1 point below the better of the two on that team (by its mean),
   * and of those, the teams below it beyond seed noise (as for majority); undefined otherwise.
   */
  readonly belowLearners?: Readonly<Record<string, { readonly teams: number; readonly clearly: number }>>;
  /**
   * Per method: its attacked mean minus the best other method's (the best by attacked mean among the
   * rest), paired over seeds, with a bootstrap interval; undefined with one method.
   */
  readonly attackedVsBestOther: Readonly<
    Record<string, { readonly against: string; readonly difference: ZooInterval }>
  >;
}

/** A team's label in tables: `source shape n=size`. */
export function zooTeamLabel(row: Pick<ZooRow, 'source' | 'shape' | 'size'>): string {
  return `${row.source} ${row.shape} n=${row.size}`;
}

/** Per seed, the mean over the teams run with that seed of `values(row)`'s entry for the seed. */
function perSeedMeans(summary: ZooSummary, values: (row: ZooRow) => readonly number[]): number[] {
  return summary.seeds.map((seed) => {
    let total = 0;
    let count = 0;
    for (const row of summary.rows) {
      const at = row.seeds.indexOf(seed);
      if (at < 0) continue;
      total += values(row)[at] ?? 0;
      count++;
    }
    return count === 0 ? 0 : total / count;
  });
}

const meanOf = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;

/** One point of accuracy, with slack for the rounding of means of per-task accuracies. */
const onePoint = 0.01 + 1e-12;

/** Whether `mine` is more than 1 point below `theirs` on a team: by the mean, and beyond seed noise. */
function shortfall(mine: readonly number[], theirs: readonly number[]): { below: boolean; clearly: boolean } {
  const differences = mine.map((value, index) => value - (theirs[index] ?? 0));
  const below = meanOf(differences) < -onePoint;
  return { below, clearly: below && seedInterval(differences).high < -onePoint };
}

/**
 * Headline figures of a zoo run: each method's mean clean and attacked accuracy over the teams (95 %
 * bootstrap intervals over seeds), its worst clean gap to majority and the teams more than 1 point
 * below it, and its attacked mean against the best other method, paired over seeds.
 */
export function summariseZoo(summary: ZooSummary): ZooHeadline {
  const clean: Record<string, ZooInterval> = {};
  const attacked: Record<string, ZooInterval> = {};
  const attackedSeeds: Record<string, number[]> = {};
  const worstVsMajority: Record<string, { gap: number; team: string }> = {};
  const belowMajority: Record<string, number> = {};
  const clearlyBelowMajority: Record<string, number> = {};
  const learners = summary.methods.includes('single-metric') && summary.methods.includes('beta');
  const belowLearners: Record<string, { teams: number; clearly: number }> = {};
  for (const method of summary.methods) {
    clean[method] = seedInterval(perSeedMeans(summary, (row) => row.clean[method] ?? []));
    attackedSeeds[method] = perSeedMeans(summary, (row) => row.attacked[method] ?? []);
    attacked[method] = seedInterval(attackedSeeds[method] ?? []);
    let worst = { gap: Number.POSITIVE_INFINITY, team: '' };
    let below = 0;
    let clearly = 0;
    const versusLearners = { teams: 0, clearly: 0 };
    for (const row of summary.rows) {
      const mine = row.clean[method] ?? [];
      const gap = meanOf(mine) - meanOf(row.clean.majority ?? []);
      if (gap < worst.gap) worst = { gap, team: zooTeamLabel(row) };
      const versusMajority = shortfall(mine, row.clean.majority ?? []);
      if (versusMajority.below) below++;
      if (versusMajority.clearly) clearly++;
      if (learners) {
        const singleMetric = row.clean['single-metric'] ?? [];
        const beta = row.clean.beta ?? [];
        const versus = shortfall(mine, meanOf(singleMetric) >= meanOf(beta) ? singleMetric : beta);
        if (versus.below) versusLearners.teams++;
        if (versus.clearly) versusLearners.clearly++;
      }
    }
    worstVsMajority[method] = summary.rows.length === 0 ? { gap: 0, team: '' } : worst;
    belowMajority[method] = below;
    clearlyBelowMajority[method] = clearly;
    if (learners) belowLearners[method] = versusLearners;
  }
  const attackedVsBestOther: Record<string, { against: string; difference: ZooInterval }> = {};
  for (const method of summary.methods) {
    const others = summary.methods.filter((other) => other !== method);
    if (others.length === 0) continue;
    const against = others.reduce((best, other) =>
      (attacked[other]?.mean ?? 0) > (attacked[best]?.mean ?? 0) ? other : best,
    );
    const mine = attackedSeeds[method] ?? [];
    const theirs = attackedSeeds[against] ?? [];
    attackedVsBestOther[method] = {
      against,
      difference: seedInterval(mine.map((value, index) => value - (theirs[index] ?? 0))),
    };
  }
  return {
    clean,
    attacked,
    worstVsMajority,
    belowMajority,
    clearlyBelowMajority,
    ...(learners ? { belowLearners } : {}),
    attackedVsBestOther,
  };
}

const points = (value: number) => (100 * value).toFixed(1);
const withInterval = (interval: ZooInterval) =>
  `${points(interval.mean)} [${points(interval.low)}, ${points(interval.high)}]`;

/** The zoo as text: one line per team (clean | attacked accuracy per method, best member), then the headline. */
export function formatZooTable(summary: ZooSummary): string {
  const methods = summary.methods;
  const lines: string[] = [];
  lines.push(
    `Team zoo: ${summary.rows.length} teams, ${summary.tasks} ${summary.split} tasks each, seeds ${summary.seeds.join(',')}, feedback ${summary.feedback}, attacks ${summary.attacks.join(',')} (⌈0.3·n⌉ members); accuracy in %, means over seeds`,
  );
  const width = Math.max(28, ...summary.rows.map((row) => zooTeamLabel(row).length));
  const cell = (text: string) => text.padStart(Math.max(7, ...methods.map((method) => method.length)) + 1);
  lines.push(
    `${'team'.padEnd(width)} ${'best'.padStart(6)} |${methods.map(cell).join('')} |${methods.map(cell).join('')}`,
  );
  lines.push(
    `${''.padEnd(width)} ${''.padStart(6)} |${cell('clean:')}${methods
      .slice(1)
      .map(() => cell(''))
      .join('')} |${cell('attacked:')}`,
  );
  for (const row of summary.rows) {
    lines.push(
      `${zooTeamLabel(row).padEnd(width)} ${points(meanOf(row.bestMember)).padStart(6)} |${methods
        .map((method) => cell(points(meanOf(row.clean[method] ?? []))))
        .join('')} |${methods.map((method) => cell(points(meanOf(row.attacked[method] ?? [])))).join('')}`,
    );
  }
  const headline = summariseZoo(summary);
  lines.push('');
  lines.push(
    'Over all teams (mean over teams; 95% bootstrap interval over seeds; "clearly": the team\'s paired interval over seeds is below −1 point too):',
  );
  for (const method of methods) {
    const worst = headline.worstVsMajority[method];
    const versus = headline.attackedVsBestOther[method];
    const learners = headline.belowLearners?.[method];
    lines.push(
      `  ${method.padEnd(14)} clean ${withInterval(headline.clean[method] as ZooInterval)}  attacked ${withInterval(headline.attacked[method] as ZooInterval)}  worst clean vs majority ${worst === undefined ? '—' : `${points(worst.gap)} (${worst.team})`}, ${headline.belowMajority[method] ?? 0} teams > 1 point below (${headline.clearlyBelowMajority[method] ?? 0} clearly)${learners === undefined ? '' : `, ${learners.teams} > 1 point below max(single-metric, beta) (${learners.clearly} clearly)`}${versus === undefined ? '' : `; attacked − ${versus.against} ${withInterval(versus.difference)}`}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
