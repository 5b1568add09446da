import { InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, randomInt, sample } from '../../core/rng.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import type { ProposalsDataset } from '../proposals/format.js';
import { loadDataset } from '../proposals/load-dataset.js';
import type { AnswerOps } from '../replay/answer-ops.js';
import { createDefaultAnswerOps } from '../replay/default-answer-ops.js';
import { memoizeAnswerOps } from '../replay/_memo-answer-ops.js';
import { attackersFor } from '../replay/grid.js';
import type { ReplayMethod } from '../replay/method.js';
import { replayMethodNames, resolveReplayMethods } from '../replay/methods.js';
import { planGrid } from '../replay/plan-grid.js';
import { prepareReplay, type SplitChoice } from '../replay/prepare.js';
import { runCondition } from '../replay/run-condition.js';
import { quantile } from '../replay/seeds.js';
import type { AttackName, Condition, FeedbackMode, PreparedReplay } from '../replay/types.js';
import { attackNames, feedbackModes } from '../replay/types.js';
import { simulateTeamDataset } from './simulated-team.js';
import {
  buildRecordedTeam,
  issueTeams,
  recordedShapeNames,
  simulatedProfiles,
  simulatedShapeNames,
  type RecordedShapeName,
  type SimulatedShapeName,
} from './zoo-teams.js';

/** Team sizes of the zoo. */
export const zooSizes: readonly number[] = [3, 4, 5, 7, 10, 20, 40];

/** The methods the zoo compares by default: the replay's default methods, MiniRep-DS, the served default MiniRep-RT+IC+ES, and MiniRep-DS+IC+ES. */
export const zooMethodNames: readonly string[] = [
  ...replayMethodNames,
  'minirep-ds',
  'minirep-rt-ic-es',
  'minirep-ds-ic-es',
];

/** A mean over seeds with a 95 % percentile-bootstrap interval over the seeds. */
export interface ZooInterval {
  readonly mean: number;
  readonly low: number;
  readonly high: number;
}

/** One zoo team (a source, shape and size): accuracy in [0, 1] per method, clean and attacked, per seed. */
export interface ZooRow {
  /** Dataset name, or `simulated`. */
  readonly source: string;
  readonly shape: string;
  readonly size: number;
  /** Seeds the team could be built with (a pool too small for the shape skips it). */
  readonly seeds: readonly number[];
  /** Per method, the clean accuracy per seed (aligned with `seeds`). */
  readonly clean: Readonly<Record<string, readonly number[]>>;
  /** Per method, the mean accuracy over the attacked conditions per seed (0 when no attack is run). */
  readonly attacked: Readonly<Record<string, readonly number[]>>;
  /** The team's best member's accuracy on the same tasks, per seed. */
  readonly bestMember: readonly number[];
}

/** What {@link runZoo} returns (also written as `zoo.json`). */
export interface ZooSummary {
  readonly schemaVersion: 1;
  readonly seeds: readonly number[];
  readonly split: SplitChoice;
  readonly tasks: number;
  readonly feedback: FeedbackMode;
  readonly attacks: readonly AttackName[];
  readonly methods: readonly string[];
  readonly rows: readonly ZooRow[];
}

/** Options of {@link runZoo}. */
export interface ZooOptions {
  /** Recorded datasets (directories or proposals files). @default [] */
  datasets?: readonly string[];
  /** Run the simulated profiles (and the issue's three small teams). @default true */
  simulated?: boolean;
  /** Team sizes. @default zooSizes */
  sizes?: readonly number[];
  /** Recorded shapes. @default recordedShapeNames */
  shapes?: readonly RecordedShapeName[];
  /** Simulated profiles. @default simulatedShapeNames */
  profiles?: readonly SimulatedShapeName[];
  /** Seeds; figures are means over them with bootstrap intervals. @default [1, 2, 3] */
  seeds?: readonly number[];
  /** Side of the declared task split the tasks come from. @default 'heldout' */
  split?: SplitChoice;
  /** Tasks per team and seed. @default 100 */
  tasks?: number;
  /** Attacks run against every team (⌈0.3·n⌉ seeded random members corrupted). @default ['STRONG'] */
  attacks?: readonly AttackName[];
  /** Replay methods by name, or method objects. @default zooMethodNames */
  methods?: readonly (string | ReplayMethod)[];
  /** Post-task feedback of the stateful methods (`verifier` is not offered: the zoo runs no verifier). @default 'consensus' */
  feedback?: Exclude<FeedbackMode, 'verifier'>;
  /** Called after each team (progress): teams done, teams in all, the team's label. @default undefined */
  onProgress?: (done: number, total: number, label: string) => void;
  /** Answer operations (tests inject their own). @default createDefaultAnswerOps() */
  ops?: AnswerOps;
}

const knownZooOptions = defineOptionKeys<ZooOptions>()([
  'datasets',
  'simulated',
  'sizes',
  'shapes',
  'profiles',
  'seeds',
  'split',
  'tasks',
  'attacks',
  'methods',
  'feedback',
  'onProgress',
  'ops',
]);

/** One team to replay on one seed. */
interface ZooJob {
  readonly source: string;
  readonly shape: string;
  readonly size: number;
  readonly seed: number;
  /** The prepared tasks (shared by a dataset's teams of one seed) and the team. */
  readonly prepare: () => { prepared: PreparedReplay; team: string[] } | undefined;
}

/**
 * The team zoo: every method on many team shapes and sizes, clean and attacked, on recorded datasets
 * and simulated profiles. Per (source, shape, size) and seed it replays one clean condition and one
 * condition per attack (the same ⌈0.3·n⌉ seeded random members corrupted), each with fresh state, and
 * records every method's accuracy and the team's best member's on the same tasks.
 *
 * @example
 * const summary = await runZoo({ datasets: ['../shared/data/zeroeval-math-l5'], seeds: [1, 2, 3] });
 */
export async function runZoo(options: ZooOptions = {}): Promise<ZooSummary> {
  assertKnownOptions('options', options, knownZooOptions, 'runZoo');
  const {
    datasets = [],
    simulated = true,
    sizes = zooSizes,
    shapes = recordedShapeNames,
    profiles = simulatedShapeNames,
    seeds = [1, 2, 3],
    split = 'heldout',
    tasks = 100,
    attacks = ['STRONG'],
    methods: methodList = zooMethodNames,
    feedback = 'consensus',
    onProgress,
  } = options;
  for (const [index, size] of sizes.entries())
    if (!Number.isInteger(size) || size < 3)
      throw new InvalidArgumentError({
        parameter: `sizes[${index}]`,
        value: size,
        message: `team sizes must be integers >= 3, got ${size}; pass e.g. --sizes 3,4,5,7,10`,
      });
  for (const [index, attack] of attacks.entries())
    if (!attackNames.includes(attack))
      throw new InvalidArgumentError({
        parameter: `attacks[${index}]`,
        value: attack,
        message: `unknown attack ${JSON.stringify(attack)}; use any of ${attackNames.join(', ')}`,
      });
  for (const [index, shape] of shapes.entries())
    if (!recordedShapeNames.includes(shape))
      throw new InvalidArgumentError({
        parameter: `shapes[${index}]`,
        value: shape,
        message: `unknown team shape ${JSON.stringify(shape)}; use any of ${recordedShapeNames.join(', ')}`,
      });
  for (const [index, profile] of profiles.entries())
    if (!simulatedShapeNames.includes(profile))
      throw new InvalidArgumentError({
        parameter: `profiles[${index}]`,
        value: profile,
        message: `unknown simulated profile ${JSON.stringify(profile)}; use any of ${simulatedShapeNames.join(', ')}`,
      });
  if (!feedbackModes.includes(feedback) || (feedback as FeedbackMode) === 'verifier')
    throw new InvalidArgumentError({
      parameter: 'feedback',
      value: feedback,
      message: `the zoo's feedback must be consensus or truth, got ${JSON.stringify(feedback)}`,
    });
  if (seeds.length === 0)
    throw new InvalidArgumentError({ parameter: 'seeds', value: seeds, message: 'pass at least one seed, e.g. 1' });
  const methods = methodList.map((method) =>
    typeof method === 'string' ? (resolveReplayMethods([method])[0] as ReplayMethod) : method,
  );
  const methodNames = methods.map((method) => method.name);
  const ops = memoizeAnswerOps(options.ops ?? createDefaultAnswerOps());
  const jobs: ZooJob[] = [];
  for (const path of datasets) {
    const dataset = await loadDataset(path);
    const preparedBySeed = new Map<number, PreparedReplay>();
    const preparedFor = (seed: number): PreparedReplay => {
      let prepared = preparedBySeed.get(seed);
      if (prepared === undefined) {
        preparedBySeed.clear();
        prepared = prepareReplay({ dataset, ops, seed, tasks, split, file: path, minAgents: 3 }).prepared;
        preparedBySeed.set(seed, prepared);
      }
      return prepared;
    };
    for (const seed of seeds)
      for (const shape of shapes)
        for (const size of sizes)
          jobs.push({
            source: dataset.name,
            shape,
            size,
            seed,
            prepare: () => {
              const prepared = preparedFor(seed);
              const team = buildRecordedTeam(shape, prepared.agents, size, seed);
              return team === undefined ? undefined : { prepared, team };
            },
          });
  }
  if (simulated) {
    const simulatedTeam = (dataset: (seed: number) => ProposalsDataset) => (seed: number) => {
      const prepared = prepareReplay({ dataset: dataset(seed), ops, seed, tasks, split, minAgents: 3 }).prepared;
      return { prepared, team: prepared.agents.map((agent) => agent.id) };
    };
    // Generated tasks: enough that the split's side holds `tasks` of them (the held-out side is ~4/5, the tuning side ~1/5).
    const generated = tasks * 6 + 50;
    for (const seed of seeds) {
      for (const [name, team] of Object.entries(issueTeams)) {
        const prepare = simulatedTeam((at) =>
          simulateTeamDataset({ name, profiles: team, tasks: generated, seed: at }),
        );
        jobs.push({ source: 'simulated', shape: name, size: team.length, seed, prepare: () => prepare(seed) });
      }
      for (const profile of profiles)
        for (const size of sizes) {
          const prepare = simulatedTeam((at) =>
            simulateTeamDataset({
              name: profile,
              profiles: simulatedProfiles(profile, size),
              tasks: generated,
              seed: at,
            }),
          );
          jobs.push({ source: 'simulated', shape: profile, size, seed, prepare: () => prepare(seed) });
        }
    }
  }
  const rows = new Map<string, { row: ZooRow; clean: Record<string, number[]>; attacked: Record<string, number[]> }>();
  let done = 0;
  for (const job of jobs) {
    const label = `${job.source} ${job.shape} n=${job.size} seed ${job.seed}`;
    const built = job.prepare();
    done++;
    if (built !== undefined) {
      const { prepared, team } = built;
      const result = replayTeam({ prepared, team, seed: job.seed, attacks, methods, feedback, ops, label });
      const key = `${job.source}\u0000${job.shape}\u0000${job.size}`;
      let entry = rows.get(key);
      if (entry === undefined) {
        const clean: Record<string, number[]> = {};
        const attacked: Record<string, number[]> = {};
        for (const method of methodNames) {
          clean[method] = [];
          attacked[method] = [];
        }
        entry = {
          row: { source: job.source, shape: job.shape, size: job.size, seeds: [], clean, attacked, bestMember: [] },
          clean,
          attacked,
        };
        rows.set(key, entry);
      }
      (entry.row.seeds as number[]).push(job.seed);
      (entry.row.bestMember as number[]).push(result.bestMember);
      for (const method of methodNames) {
        entry.clean[method]?.push(result.clean[method] ?? 0);
        entry.attacked[method]?.push(result.attacked[method] ?? 0);
      }
    }
    onProgress?.(done, jobs.length, label);
  }
  return {
    schemaVersion: 1,
    seeds: [...seeds],
    split,
    tasks,
    feedback,
    attacks: [...attacks],
    methods: [...methodNames],
    rows: [...rows.values()].map((entry) => entry.row),
  };
}

/** Replays one team: its clean condition and one condition per attack, every method. */
function replayTeam({
  prepared,
  team,
  seed,
  attacks,
  methods,
  feedback,
  ops,
  label,
}: {
  prepared: PreparedReplay;
  team: readonly string[];
  seed: number;
  attacks: readonly AttackName[];
  methods: readonly ReplayMethod[];
  feedback: FeedbackMode;
  ops: AnswerOps;
  label: string;
}): { clean: Record<string, number>; attacked: Record<string, number>; bestMember: number } {
  const attackers = sample(createRng(deriveSeed(seed, 'zoo-attackers', label)), team, attackersFor(team.length));
  const attackerSet = new Set(attackers);
  const conditions: Condition[] = [
    { index: 0, id: `${label}/clean`, composition: 'random', placement: null, attack: null, team, attackers: [] },
    ...attacks.map((attack, index) => ({
      index: index + 1,
      id: `${label}/${attack}`,
      composition: 'random' as const,
      placement: 'R1' as const,
      attack,
      team,
      attackers: team.filter((agent) => attackerSet.has(agent)),
    })),
  ];
  const plan = planGrid({ prepared, conditions, seed, ops });
  const settings = {
    seed,
    feedback,
    verifier: { kind: 'none' as const, model: 'correlated' as const, sensitivity: 0.85, specificity: 0.8 },
    ops,
  };
  const mean = (values: Float64Array) =>
    values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
  const clean: Record<string, number> = {};
  const attacked: Record<string, number> = {};
  for (const condition of conditions) {
    const result = runCondition({ prepared, condition, methods, settings, plan });
    for (const run of result.runs) {
      if (condition.attack === null) clean[run.method] = mean(run.exact);
      else attacked[run.method] = (attacked[run.method] ?? 0) + mean(run.exact) / attacks.length;
    }
  }
  const position = new Map(prepared.agents.map((agent, index) => [agent.id, index]));
  let bestMember = 0;
  for (const agent of team) {
    const at = position.get(agent) ?? -1;
    let correct = 0;
    for (const task of prepared.tasks) {
      const key = task.keys[at] ?? null;
      correct += key === null ? 0 : (task.scores[key]?.exact ?? 0);
    }
    bestMember = Math.max(bestMember, prepared.tasks.length === 0 ? 0 : correct / prepared.tasks.length);
  }
  return { clean, attacked, bestMember };
}

/**
 * The mean of per-seed values with a 95 % percentile-bootstrap interval (2000 seeded resamples of the
 * seeds); a single seed gives a zero-width interval.
 */
export function seedInterval(values: readonly number[], bootstrapSeed = 0): ZooInterval {
  const count = values.length;
  const mean = count === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / count;
  if (count <= 1) return { mean, low: mean, high: mean };
  const rng = createRng(deriveSeed(bootstrapSeed, 'zoo-bootstrap'));
  const draws: number[] = [];
  for (let resample = 0; resample < 2000; resample++) {
    let total = 0;
    for (let draw = 0; draw < count; draw++) total += values[randomInt(rng, count)] ?? 0;
    draws.push(total / count);
  }
  draws.sort((left, right) => left - right);
  return { mean, low: quantile(draws, 0.025), high: quantile(draws, 0.975) };
}
