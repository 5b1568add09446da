// Experiment `sign`: DRF's Eq. 9 as printed adds the cost term, S_i = δ·r_i + (1−δ)·c_i + x_i, so
// with equal reputation it prefers the expensive agent. Compare it with the corrected
// S_i = δ·r_i − (1−δ)·c_i + x_i and with random selection on a simulated pool.
import { resolveOptions } from '../../core/options.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import { assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { runDrf } from '../../protocols/drf/run-drf.js';
import { createExperimentSelector } from './experiment-selector.js';
import { drfConfigParts, drfPrintedConfig, drfReviewConfig } from './drf-config.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { ExperimentHooks, ExperimentSelectorKind } from './experiment-hooks.js';
import { buildSimulatedSetting } from './simulated-pool.js';
import { nonNegativeRange, signedUnitRange, tInterval, unitRange, type MeanInterval } from './stats.js';

/** Options of {@link runSignExperiment}. */
export interface SignExperimentOptions extends ExperimentHooks {
  /** Independent seeds (pools, costs, tasks), ≥ 2. @default 20 */
  readonly seeds?: number;
  /** First seed; seed i is `baseSeed + i`. @default 2027 */
  readonly baseSeed?: number;
  /** Pool size. @default 6 */
  readonly agents?: number;
  /** Tasks (DRF rounds) per seed. @default 30 */
  readonly tasks?: number;
  /** Team size k. @default 3 */
  readonly k?: number;
  /** Weight δ of reputation against cost in Eq. 9, in [0, 1]. @default 0.7 */
  readonly delta?: number;
  /** Lower end of the skill range: agents' skills are drawn from U(skillLow, skillHigh), skillLow in (0, 1). @default 0.3 */
  readonly skillLow?: number;
  /** Upper end of the skill range, in [skillLow, 1). @default 0.9 */
  readonly skillHigh?: number;
  /**
   * Costs: `'per-round'` draws c_i^t ~ U(0, 1) per agent and round (the paper's Section 5.1);
   * `'per-agent'` draws one price per agent, fixed over the run. @default 'per-round'
   */
  readonly costs?: 'per-round' | 'per-agent';
}

/** One selection rule's results over seeds. */
export interface SignRow {
  /**
   * Selection rule: printed Eq. 9, corrected Eq. 9, or the random-k baseline (all three with the
   * review's reputation rules), or `all-printed`: every equation as printed (Eqs. 8, 9; Eq. 2 is reported, it never changes ratings).
   */
  readonly rule: 'printed' | 'corrected' | 'random' | 'all-printed';
  /** Mean cost c_i^t of the selected agents (costs ~ U(0, 1)), averaged over rounds. */
  readonly meanSelectedCost: MeanInterval;
  /** Fraction of tasks whose team answer is correct. */
  readonly accuracy: MeanInterval;
  /** Mean true accuracy of the selected agents (capability actually chosen). */
  readonly selectedCapability: MeanInterval;
}

/** Result of the sign experiment. */
export interface SignExperimentResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Name of the experiment that produced the result. */
  readonly experiment: 'sign';
  /** Resolved settings of the run plus a description of the interval reported. */
  readonly settings: Required<Omit<SignExperimentOptions, 'selectorFactory'>> & { readonly interval: string };
  /** One row per rule, in the order printed, corrected, random, all-printed. */
  readonly rows: readonly SignRow[];
  /** Paired per-seed differences (printed − corrected). */
  readonly printedMinusCorrected: { readonly meanSelectedCost: MeanInterval; readonly accuracy: MeanInterval };
}

const defaults: Required<Omit<SignExperimentOptions, 'selectorFactory'>> = {
  seeds: 20,
  baseSeed: 1,
  agents: 6,
  tasks: 30,
  k: 3,
  delta: 0.7,
  skillLow: 0.3,
  skillHigh: 0.9,
  costs: 'per-round',
};

const knownSignOptions = defineOptionKeys<SignExperimentOptions>()([
  'seeds',
  'baseSeed',
  'agents',
  'tasks',
  'k',
  'delta',
  'skillLow',
  'skillHigh',
  'costs',
  'selectorFactory',
]);

/**
 * Runs DRF with the printed Eq. 9, the corrected Eq. 9 and random-k selection (the review's
 * reputation rules) and with every equation printed, on the same seeded pools (costs ~ U(0, 1) per
 * round or per agent, skills ~ U(skillLow, skillHigh), both hidden from the protocol) and
 * reports mean selected cost and accuracy with 95% Student-t intervals over seeds.
 *
 * @example
 * const result = await runSignExperiment({ seeds: 20 });
 * result.rows.find((row) => row.rule === 'printed')?.meanSelectedCost.mean;
 */
export async function runSignExperiment(options: SignExperimentOptions = {}): Promise<SignExperimentResult> {
  assertKnownOptions('', options, knownSignOptions, 'runSignExperiment');
  const { selectorFactory: makeSelector = createExperimentSelector, ...rest } = options;
  const settings = resolveOptions(defaults, rest);
  assertInteger('seeds', settings.seeds, 2, 10_000, 'intervals need at least 2 seeds');
  assertInteger('agents', settings.agents, 2, 1000);
  assertInteger('tasks', settings.tasks, 1, 100_000);
  assertInteger('k', settings.k, 1, settings.agents);
  // δ is also Eq. 7's increment coefficient, which must be positive.
  assertInRange('delta', settings.delta, 0, 1, { minExclusive: true });
  assertInRange('skillLow', settings.skillLow, 0, 1, { minExclusive: true, maxExclusive: true });
  assertInRange('skillHigh', settings.skillHigh, settings.skillLow, 1, { maxExclusive: true });
  if (settings.costs !== 'per-round' && settings.costs !== 'per-agent') {
    throw new InvalidArgumentError({
      parameter: 'costs',
      value: settings.costs,
      message: `costs must be 'per-round' (Section 5.1) or 'per-agent', got ${JSON.stringify(settings.costs)}`,
    });
  }
  const rules: Array<SignRow['rule']> = ['printed', 'corrected', 'random', 'all-printed'];
  const perRule = new Map(
    rules.map((rule) => [rule, { cost: [] as number[], accuracy: [] as number[], capability: [] as number[] }]),
  );
  for (let index = 0; index < settings.seeds; index++) {
    const seed = settings.baseSeed + index;
    const draw = createRng(deriveSeed(seed, 'sign-pool'));
    const members = Array.from({ length: settings.agents }, (_, agent) => ({
      id: `a${agent + 1}`,
      skill: settings.skillLow + (settings.skillHigh - settings.skillLow) * draw(),
      cost: draw(),
    }));
    for (const rule of rules) {
      const setting = buildSimulatedSetting({ members, taskCount: settings.tasks, seed });
      const kind: ExperimentSelectorKind =
        rule === 'random' ? 'random' : rule === 'printed' || rule === 'all-printed' ? 'ucb-printed' : 'ucb-corrected';
      const ids = setting.pool.map((agent) => agent.identity.id);
      const parts = drfConfigParts(rule === 'all-printed' ? drfPrintedConfig : drfReviewConfig, ids, {
        delta: settings.delta,
      });
      const result = await runDrf({
        pool: setting.pool,
        tasks: setting.tasks,
        k: settings.k,
        costNormalization: 'none',
        costModel: settings.costs,
        costSeed: deriveSeed(seed, 'sign-cost'),
        ...parts,
        selector: makeSelector(kind, settings.delta),
        rng: createRng(deriveSeed(seed, 'sign-select', rule)),
      });
      const bucket = perRule.get(rule) as { cost: number[]; accuracy: number[]; capability: number[] };
      // c_i^t of the selected agents as used by the selector (per-round draws or the fixed prices)
      bucket.cost.push(
        average(result.rounds.map((round) => average(round.team.map((agentId) => round.teamCosts[agentId] as number)))),
      );
      bucket.accuracy.push(
        average(result.rounds.map((round) => (setting.world.isCorrect(round.taskId, round.decision.answer) ? 1 : 0))),
      );
      bucket.capability.push(
        average(
          result.rounds.map((round) => average(round.team.map((agentId) => setting.trueAccuracy[agentId] as number))),
        ),
      );
    }
  }
  const printed = perRule.get('printed') as { cost: number[]; accuracy: number[] };
  const corrected = perRule.get('corrected') as { cost: number[]; accuracy: number[] };
  return {
    schemaVersion: 1,
    experiment: 'sign',
    settings: { ...settings, interval: '95% Student-t interval over seeds (mean ± t(0.975, n−1)·sd/√n)' },
    rows: rules.map((rule) => {
      const bucket = perRule.get(rule) as { cost: number[]; accuracy: number[]; capability: number[] };
      return {
        rule,
        meanSelectedCost: tInterval(bucket.cost, 0.95, nonNegativeRange),
        accuracy: tInterval(bucket.accuracy, 0.95, unitRange),
        selectedCapability: tInterval(bucket.capability, 0.95, unitRange),
      };
    }),
    printedMinusCorrected: {
      meanSelectedCost: tInterval(printed.cost.map((value, index) => value - (corrected.cost[index] as number))),
      accuracy: tInterval(
        printed.accuracy.map((value, index) => value - (corrected.accuracy[index] as number)),
        0.95,
        signedUnitRange,
      ),
    },
  };
}

function average(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
