// Experiment `collusion`: two low-capability agents rate each other 1.0 and everyone else 0.0.
// DRF's Eq. 6 weights a rating by the rater's reputation only, so the pair props itself up and drags
// honest agents down. Does DRF still exclude them, without and with the rater-credibility defence?
import type { AgentId } from '../../core/agent-identity.js';
import { resolveOptions } from '../../core/options.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import { assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import type { DrfDefence } from '../../protocols/drf/drf-round.js';
import { runDrf } from '../../protocols/drf/run-drf.js';
import { drfConfigParts, drfEquationVariant, drfStandardConfigs, type DrfExperimentConfig } from './drf-config.js';
import type { ExperimentHooks } from './experiment-hooks.js';
import { tInterval, unitRange, type MeanInterval } from './stats.js';
import { buildSimulatedSetting, colludingRater, type SimulatedMember } from './simulated-pool.js';

/** Options of {@link runCollusionExperiment}. */
export interface CollusionExperimentOptions extends ExperimentHooks {
  /** Independent seeds, ≥ 2. @default 20 */
  readonly seeds?: number;
  /** First seed. @default 2027 */
  readonly baseSeed?: number;
  /** Tasks (DRF rounds) per seed. @default 60 */
  readonly tasks?: number;
  /** Team size k. @default 4 */
  readonly k?: number;
  /** Rounds per reported window, at most `tasks`. @default min(10, tasks) */
  readonly window?: number;
  /** Skills of the honest agents. @default [0.55, 0.65, 0.75, 0.85] */
  readonly honestSkills?: readonly number[];
  /** Skill of each of the two colluders. @default 0.2 */
  readonly colluderSkill?: number;
  /** Weight δ of reputation against cost (all costs equal here). @default 0.7 */
  readonly delta?: number;
  /** Filter threshold on reputation. @default 0.3 */
  readonly threshold?: number;
  /** DRF configurations to run, each without and with the defence. @default drfStandardConfigs */
  readonly configs?: readonly DrfExperimentConfig[];
}

/** One window of rounds under one defence, averaged over seeds. */
export interface CollusionWindow {
  /** 1-based first and last round of the window. */
  readonly fromRound: number;
  /** 1-based last round of the window (inclusive; the last window may be shorter). */
  readonly toRound: number;
  /** Mean reputation of the two colluders at the end of the window. */
  readonly colluderReputation: MeanInterval;
  /** Mean reputation of the honest agents at the end of the window. */
  readonly honestReputation: MeanInterval;
  /** Fraction of (colluder, round) pairs in the window where the colluder was on the team. */
  readonly colluderSelectionRate: MeanInterval;
  /** Fraction of the window's tasks answered correctly. */
  readonly accuracy: MeanInterval;
}

/** Results of one configuration and defence setting. */
export interface CollusionCondition {
  /** Name of the DRF configuration. */
  readonly config: string;
  /** Collusion defence DRF ran with: `none` or `rater-credibility`. */
  readonly defence: DrfDefence;
  /** Consecutive windows of `window` rounds each, in round order. */
  readonly windows: readonly CollusionWindow[];
  /** Fraction of seeds in which both colluders end below the threshold (excluded). */
  readonly bothExcluded: number;
  /** Fraction of seeds in which at least one honest agent ends below the threshold. */
  readonly honestExcluded: number;
  /** Mean final reputation of the two colluders, in [0, 1]. */
  readonly finalColluderReputation: MeanInterval;
  /** Mean final reputation of the honest agents, in [0, 1]. */
  readonly finalHonestReputation: MeanInterval;
  /** Fraction of all tasks of a run answered correctly, in [0, 1]. */
  readonly accuracy: MeanInterval;
}

/** Result of the collusion experiment. */
export interface CollusionExperimentResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Name of the experiment that produced the result. */
  readonly experiment: 'collusion';
  /** Resolved settings of the run plus a description of the interval reported. */
  readonly settings: Required<Omit<CollusionExperimentOptions, 'selectorFactory' | 'configs'>> & {
    readonly interval: string;
  };
  /** One condition per configuration and defence: per configuration `none` first, then `rater-credibility`. */
  readonly conditions: readonly CollusionCondition[];
}

const defaults: Required<Omit<CollusionExperimentOptions, 'selectorFactory' | 'configs'>> = {
  seeds: 20,
  baseSeed: 1,
  tasks: 60,
  k: 4,
  window: 10,
  honestSkills: [0.55, 0.65, 0.75, 0.85],
  colluderSkill: 0.2,
  delta: 0.7,
  threshold: 0.3,
};

const knownCollusionOptions = defineOptionKeys<CollusionExperimentOptions>()([
  'seeds',
  'baseSeed',
  'tasks',
  'k',
  'window',
  'honestSkills',
  'colluderSkill',
  'delta',
  'threshold',
  'configs',
  'selectorFactory',
]);

/**
 * Runs DRF (each configuration, UCB with equal costs) on a pool of honest simulated agents plus two
 * low-capability colluders, once without a defence and once with rater credibility, on the same
 * seeds, and reports the colluders' reputation and selection rate per window of rounds.
 *
 * @example
 * const result = await runCollusionExperiment({ seeds: 20 });
 * result.conditions[1]?.bothExcluded; // fraction of seeds where DRF excluded both colluders
 */
export async function runCollusionExperiment(
  options: CollusionExperimentOptions = {},
): Promise<CollusionExperimentResult> {
  assertKnownOptions('', options, knownCollusionOptions, 'runCollusionExperiment');
  const { selectorFactory: makeSelector, configs = drfStandardConfigs, ...rest } = options;
  const resolved = resolveOptions(defaults, rest);
  assertInteger('tasks', resolved.tasks, 1, 100_000);
  // The default window (10 rounds) is capped at the number of tasks, so that a short run reports
  // one window; a window passed explicitly must fit.
  const settings =
    rest.window === undefined ? { ...resolved, window: Math.min(resolved.window, resolved.tasks) } : resolved;
  assertInteger('seeds', settings.seeds, 2, 10_000, 'intervals need at least 2 seeds');
  assertInteger('window', settings.window, 1, settings.tasks, 'a window must fit in the tasks; pass a smaller window');
  assertInRange('colluderSkill', settings.colluderSkill, 0, 1, { minExclusive: true, maxExclusive: true });
  settings.honestSkills.forEach((skill, index) =>
    assertInRange(`honestSkills[${index}]`, skill, 0, 1, { minExclusive: true, maxExclusive: true }),
  );
  assertInteger('k', settings.k, 2, settings.honestSkills.length + 2, 'ratings need a team of at least 2');
  const colluders: AgentId[] = ['c1', 'c2'];
  const honest: AgentId[] = settings.honestSkills.map((_, index) => `h${index + 1}`);
  const members: SimulatedMember[] = [
    ...settings.honestSkills.map((skill, index) => ({ id: honest[index] as string, skill, cost: 0.5 })),
    { id: 'c1', skill: settings.colluderSkill, cost: 0.5, wrap: (agent) => colludingRater(agent, ['c2']) },
    { id: 'c2', skill: settings.colluderSkill, cost: 0.5, wrap: (agent) => colludingRater(agent, ['c1']) },
  ];
  const windows = Math.ceil(settings.tasks / settings.window);
  const conditions: CollusionCondition[] = [];
  for (const config of configs)
    for (const defence of ['none', 'rater-credibility'] as const) {
      const perWindow = Array.from({ length: windows }, () => ({
        colluder: [] as number[],
        honest: [] as number[],
        selection: [] as number[],
        accuracy: [] as number[],
      }));
      const finals = { colluder: [] as number[], honest: [] as number[], accuracy: [] as number[] };
      let bothExcluded = 0;
      let honestExcluded = 0;
      for (let index = 0; index < settings.seeds; index++) {
        const seed = settings.baseSeed + index;
        const setting = buildSimulatedSetting({ members, taskCount: settings.tasks, seed });
        const result = await runDrf({
          pool: setting.pool,
          tasks: setting.tasks,
          k: settings.k,
          threshold: settings.threshold,
          defence,
          ...drfConfigParts(
            config,
            setting.pool.map((agent) => agent.identity.id),
            { delta: settings.delta },
          ),
          ...(makeSelector === undefined
            ? {}
            : {
                selector: makeSelector(
                  drfEquationVariant(config, 'eq9') === 'printed' ? 'ucb-printed' : 'ucb-corrected',
                  settings.delta,
                ),
              }),
          rng: createRng(deriveSeed(seed, 'collusion-select')),
        });
        const meanOf = (ids: readonly AgentId[], scores: Readonly<Record<AgentId, number>>) =>
          ids.reduce((sum, agentId) => sum + (scores[agentId] ?? 0), 0) / ids.length;
        for (let window = 0; window < windows; window++) {
          const rounds = result.rounds.slice(window * settings.window, (window + 1) * settings.window);
          const last = rounds.at(-1);
          if (!last) continue;
          const bucket = perWindow[window] as (typeof perWindow)[number];
          bucket.colluder.push(meanOf(colluders, last.reputationAfter));
          bucket.honest.push(meanOf(honest, last.reputationAfter));
          bucket.selection.push(
            rounds.reduce((sum, round) => sum + colluders.filter((agentId) => round.team.includes(agentId)).length, 0) /
              (rounds.length * colluders.length),
          );
          bucket.accuracy.push(
            rounds.filter((round) => setting.world.isCorrect(round.taskId, round.decision.answer)).length /
              rounds.length,
          );
        }
        finals.colluder.push(meanOf(colluders, result.reputation));
        finals.honest.push(meanOf(honest, result.reputation));
        finals.accuracy.push(
          result.rounds.filter((round) => setting.world.isCorrect(round.taskId, round.decision.answer)).length /
            result.rounds.length,
        );
        if (colluders.every((agentId) => result.excluded.includes(agentId))) bothExcluded += 1;
        if (honest.some((agentId) => result.excluded.includes(agentId))) honestExcluded += 1;
      }
      conditions.push({
        config: config.name,
        defence,
        windows: perWindow.map((bucket, window) => ({
          fromRound: window * settings.window + 1,
          toRound: Math.min(settings.tasks, (window + 1) * settings.window),
          colluderReputation: tInterval(bucket.colluder),
          honestReputation: tInterval(bucket.honest),
          colluderSelectionRate: tInterval(bucket.selection, 0.95, unitRange),
          accuracy: tInterval(bucket.accuracy, 0.95, unitRange),
        })),
        bothExcluded: bothExcluded / settings.seeds,
        honestExcluded: honestExcluded / settings.seeds,
        finalColluderReputation: tInterval(finals.colluder),
        finalHonestReputation: tInterval(finals.honest),
        accuracy: tInterval(finals.accuracy, 0.95, unitRange),
      });
    }
  return {
    schemaVersion: 1,
    experiment: 'collusion',
    settings: { ...settings, interval: '95% Student-t interval over seeds' },
    conditions,
  };
}
