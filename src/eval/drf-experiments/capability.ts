// Experiment `capability`: does DRF's reputation recover capability it is never told? Agents'
// skills stay inside the simulator; the protocol sees only proposals and peer ratings. We report
// the Spearman correlation between each agent's final reputation and its true accuracy.
import type { AgentId } from '../../core/agent-identity.js';
import { resolveOptions } from '../../core/options.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import { assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { drfDefaults, type DrfVariant } from '../../reputation/drf.js';
import { runDrf } from '../../protocols/drf/run-drf.js';
import { drfTaskAccuracies } from '../../protocols/drf/task-accuracy.js';
import {
  drfConfigParts,
  drfEquationVariant,
  drfReviewConfig,
  drfStandardConfigs,
  type DrfExperimentConfig,
} from './drf-config.js';
import type { ExperimentHooks } from './experiment-hooks.js';
import { signedUnitRange, spearman, tInterval, unitRange, type MeanInterval } from './stats.js';
import { buildSimulatedSetting } from './simulated-pool.js';

/** Options of {@link runCapabilityExperiment}. */
export interface CapabilityExperimentOptions extends ExperimentHooks {
  /** Independent seeds, ≥ 2. @default 20 */
  readonly seeds?: number;
  /** First seed. @default 2027 */
  readonly baseSeed?: number;
  /** Pool size. @default 10 */
  readonly agents?: number;
  /** Tasks (DRF rounds) per seed. @default 60 */
  readonly tasks?: number;
  /** Team size k. @default 4 */
  readonly k?: number;
  /** Lower end of the skill range: skills are drawn from U(skillLow, skillHigh), skillLow in (0, 1). @default 0.2 */
  readonly skillLow?: number;
  /** Upper end of the skill range, in [skillLow, 1). @default 0.9 */
  readonly skillHigh?: number;
  /** Weight δ of reputation against cost (all costs equal here). @default 0.7 */
  readonly delta?: number;
  /** Filter threshold on reputation. @default 0.3 */
  readonly threshold?: number;
  /** DRF configurations to compare, one row each. @default drfStandardConfigs */
  readonly configs?: readonly DrfExperimentConfig[];
}

/** Correlations for one reputation-rule variant. */
export interface CapabilityRow {
  /** Name of the DRF configuration of the row's runs. */
  readonly config: string;
  /** Whether the configuration runs the printed or the corrected equations. */
  readonly variant: DrfVariant;
  /**
   * Spearman ρ between final reputation and true accuracy, over seeds (seeds with a constant side
   * are left out and counted); null when ρ is undefined in every seed.
   */
  readonly spearman: MeanInterval | null;
  /** Seeds where ρ was undefined (all reputations equal). */
  readonly undefinedSeeds: number;
  /**
   * Spearman ρ between times selected and true accuracy (does selection follow capability?); null
   * when undefined in every seed, as when tasks·k is a multiple of the pool size and every agent
   * is selected equally often.
   */
  readonly selectionSpearman: MeanInterval | null;
  /** Seeds where the times-selected ρ was undefined (every agent selected equally often). */
  readonly selectionUndefinedSeeds: number;
  /**
   * Spearman ρ between the mean rating each agent received over the run and true accuracy: how
   * much the ratings themselves knew; null when undefined in every seed.
   */
  readonly meanRatingSpearman: MeanInterval | null;
  /** Seeds where the mean-rating ρ was undefined (every agent received the same mean rating). */
  readonly meanRatingUndefinedSeeds: number;
  /** Form of Eq. 2 the row reports its accuracy A_i^t with (the configuration's Eq. 2). */
  readonly eq2: DrfVariant;
  /**
   * Spearman ρ between each agent's mean Eq. 2 accuracy A_i^t (from its task scores against w0 =
   * 0.5, in the row's Eq. 2 form) and true accuracy; null when undefined in every seed.
   */
  readonly taskAccuracySpearman: MeanInterval | null;
  /** Seeds where the Eq. 2 accuracy ρ was undefined. */
  readonly taskAccuracyUndefinedSeeds: number;
  /** The team's mean Eq. 2 accuracy per round (the objective's accuracy term), in [0, 1]. */
  readonly teamTaskAccuracy: MeanInterval;
  /** Team accuracy over the run. */
  readonly accuracy: MeanInterval;
}

/** Result of the capability experiment. */
export interface CapabilityExperimentResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Name of the experiment that produced the result. */
  readonly experiment: 'capability';
  /** Resolved settings of the run plus a description of the interval reported. */
  readonly settings: Required<Omit<CapabilityExperimentOptions, 'selectorFactory' | 'configs'>> & {
    readonly interval: string;
  };
  /** One row per configuration, in the order given. */
  readonly rows: readonly CapabilityRow[];
  /** The first seed's agents: true accuracy against final reputation (the review's rules), for illustration. */
  readonly example: ReadonlyArray<{
    readonly agentId: AgentId;
    readonly trueAccuracy: number;
    readonly reputation: number;
    readonly timesSelected: number;
  }>;
}

const defaults: Required<Omit<CapabilityExperimentOptions, 'selectorFactory' | 'configs'>> = {
  seeds: 20,
  baseSeed: 1,
  agents: 10,
  tasks: 60,
  k: 4,
  skillLow: 0.2,
  skillHigh: 0.9,
  delta: 0.7,
  threshold: 0.3,
};

const knownCapabilityOptions = defineOptionKeys<CapabilityExperimentOptions>()([
  'seeds',
  'baseSeed',
  'agents',
  'tasks',
  'k',
  'skillLow',
  'skillHigh',
  'delta',
  'threshold',
  'configs',
  'selectorFactory',
]);

/**
 * Runs DRF on seeded simulated pools with hidden skills and correlates final reputation with true
 * accuracy (Spearman), for each DRF configuration (the paper as printed, the review's corrections,
 * each equation printed alone, each of our options), and the same for each agent's mean Eq. 2
 * accuracy A_i^t (the quantity the paper's objective is written in).
 *
 * @example
 * const result = await runCapabilityExperiment({ seeds: 20 });
 * result.rows[0]?.spearman.mean; // e.g. 0.8
 */
export async function runCapabilityExperiment(
  options: CapabilityExperimentOptions = {},
): Promise<CapabilityExperimentResult> {
  assertKnownOptions('', options, knownCapabilityOptions, 'runCapabilityExperiment');
  const { selectorFactory: makeSelector, configs = drfStandardConfigs, ...rest } = options;
  const settings = resolveOptions(defaults, rest);
  assertInteger('seeds', settings.seeds, 2, 10_000, 'intervals need at least 2 seeds');
  assertInteger('agents', settings.agents, 3, 1000, 'a rank correlation needs at least 3 agents');
  assertInteger('tasks', settings.tasks, 1, 100_000);
  assertInteger('k', settings.k, 2, settings.agents, 'ratings need a team of at least 2');
  assertInRange('skillLow', settings.skillLow, 0, 1, { minExclusive: true, maxExclusive: true });
  assertInRange('skillHigh', settings.skillHigh, settings.skillLow, 1, { maxExclusive: true });
  const rows: CapabilityRow[] = [];
  let example: CapabilityExperimentResult['example'] = [];
  for (const config of configs) {
    const rhos = new SeedCorrelations();
    const selectionRhos = new SeedCorrelations();
    const ratingRhos = new SeedCorrelations();
    const taskAccuracyRhos = new SeedCorrelations();
    const teamTaskAccuracies: number[] = [];
    const eq2 = drfEquationVariant(config, 'eq2');
    const accuracies: number[] = [];
    for (let index = 0; index < settings.seeds; index++) {
      const seed = settings.baseSeed + index;
      const draw = createRng(deriveSeed(seed, 'capability-pool'));
      const members = Array.from({ length: settings.agents }, (_, agent) => ({
        id: `a${agent + 1}`,
        skill: settings.skillLow + (settings.skillHigh - settings.skillLow) * draw(),
        cost: 0.5,
      }));
      const setting = buildSimulatedSetting({ members, taskCount: settings.tasks, seed });
      const ids = setting.pool.map((agent) => agent.identity.id);
      const result = await runDrf({
        pool: setting.pool,
        tasks: setting.tasks,
        k: settings.k,
        threshold: settings.threshold,
        ...drfConfigParts(config, ids, { delta: settings.delta }),
        ...(makeSelector === undefined
          ? {}
          : {
              selector: makeSelector(
                drfEquationVariant(config, 'eq9') === 'printed' ? 'ucb-printed' : 'ucb-corrected',
                settings.delta,
              ),
            }),
        rng: createRng(deriveSeed(seed, 'capability-select')),
      });
      const truth = ids.map((agentId) => setting.trueAccuracy[agentId] as number);
      const reputation = ids.map((agentId) => result.reputation[agentId] as number);
      const timesSelected = ids.map((agentId) => result.rounds.filter((round) => round.team.includes(agentId)).length);
      rhos.add(spearman(reputation, truth));
      const received = new Map<AgentId, { sum: number; count: number }>();
      for (const round of result.rounds) {
        for (const rating of round.ratings) {
          const entry = received.get(rating.ratee) ?? { sum: 0, count: 0 };
          received.set(rating.ratee, { sum: entry.sum + rating.score, count: entry.count + 1 });
        }
      }
      const meanRating = ids.map((agentId) => {
        const entry = received.get(agentId);
        return entry === undefined ? 0 : entry.sum / entry.count;
      });
      ratingRhos.add(spearman(meanRating, truth));
      // Eq. 2: A_i^t = |w0 − w_i^t| / w0 (printed) or 1 − that (corrected), averaged per agent
      const eq2Report = drfTaskAccuracies(result.rounds, { threshold: drfDefaults.w0, variant: eq2 });
      const rated = ids.filter((agentId) => eq2Report.meanByAgent[agentId] !== undefined);
      taskAccuracyRhos.add(
        spearman(
          rated.map((agentId) => eq2Report.meanByAgent[agentId] as number),
          rated.map((agentId) => setting.trueAccuracy[agentId] as number),
        ),
      );
      teamTaskAccuracies.push(eq2Report.meanTeamAccuracy ?? 0);
      selectionRhos.add(spearman(timesSelected, truth));
      accuracies.push(
        result.rounds.filter((round) => setting.world.isCorrect(round.taskId, round.decision.answer)).length /
          result.rounds.length,
      );
      if (index === 0 && config.name === drfReviewConfig.name) {
        example = ids
          .map((agentId, position) => ({
            agentId,
            trueAccuracy: truth[position] as number,
            reputation: reputation[position] as number,
            timesSelected: timesSelected[position] as number,
          }))
          .sort((left, right) => right.trueAccuracy - left.trueAccuracy);
      }
    }
    rows.push({
      config: config.name,
      variant: config.variant,
      spearman: rhos.interval(),
      undefinedSeeds: rhos.undefinedSeeds,
      selectionSpearman: selectionRhos.interval(),
      selectionUndefinedSeeds: selectionRhos.undefinedSeeds,
      meanRatingSpearman: ratingRhos.interval(),
      meanRatingUndefinedSeeds: ratingRhos.undefinedSeeds,
      eq2,
      taskAccuracySpearman: taskAccuracyRhos.interval(),
      taskAccuracyUndefinedSeeds: taskAccuracyRhos.undefinedSeeds,
      teamTaskAccuracy: tInterval(teamTaskAccuracies, 0.95, unitRange),
      accuracy: tInterval(accuracies, 0.95, unitRange),
    });
  }
  return {
    schemaVersion: 1,
    experiment: 'capability',
    settings: { ...settings, interval: '95% Student-t interval over seeds' },
    rows,
    example,
  };
}

/**
 * One correlation over seeds: the defined values and how many seeds it was undefined in (NaN, a
 * constant side), so that a figure undefined in every seed is reported as such, not averaged.
 */
class SeedCorrelations {
  private readonly values: number[] = [];
  undefinedSeeds = 0;

  add(rho: number): void {
    if (Number.isNaN(rho)) this.undefinedSeeds += 1;
    else this.values.push(rho);
  }

  /** The 95% t-interval over the seeds where it was defined; null when it was defined in none. */
  interval(): MeanInterval | null {
    return this.values.length === 0 ? null : tInterval(this.values, 0.95, signedUnitRange);
  }
}
