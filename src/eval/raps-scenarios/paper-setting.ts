// `adversarial --setting paper`: RAPS (arXiv 2602.08009) in its paper's setting as far as the data
// allows. The paper's agents were GPT-4o-mini; here the honest agents replay the recorded answers of
// GPT-4o-mini-class models (GSM8K: gpt-4o-mini itself and models within 1 point of it; MMLU-Pro: the
// models closest to GPT-4o-mini's published level). Adversaries are models of the same class
// instructed to mislead: each publishes one coordinated wrong answer per task (the most common wrong
// answer the recorded models gave, a realistic distractor) but judges, audits and witnesses as its
// model would (by its own recorded answer), without a coalition. The decision is RAPS's own team
// view (mean peer reputation, no self-weight), so no agent's own answer wins ties for it; the view of
// a known-honest decider (agent-1, itself weighted 1) is reported beside it. Our harder `adversarial`
// scenario (simulated agents, lying auditors and witnesses, agent-1 deciding) is unchanged.
import type { Agent } from '../../agents/agent.js';
import { createReplayedAgent } from '../../agents/replayed-agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { canonicalAnswerKey } from '../../core/answers/answers.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, shuffle } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { assertInteger, assertKnownOptions, assertOneOf, defineOptionKeys } from '../../core/validate.js';
import { runRaps } from '../../protocols/pubsub/run-raps.js';
import type { ReplayData, ReplayItem } from '../drf-experiments/cost.js';
import { signedUnitRange, tInterval, unitRange, type MeanInterval } from '../drf-experiments/stats.js';
import { taskSplit } from '../replay/splits.js';
import { qaIntents } from './qa-team.js';

/**
 * GPT-4o-mini-class models of each staged dataset, honest ones first (accuracy on the whole
 * dataset in `models.json`): GSM8K gpt-4o-mini-2024-07-18 0.942 and the four models within 1 point;
 * MMLU-Pro (GPT-4o-mini's MMLU-Pro score is about 0.63, no run staged) the chat models from 0.63 to
 * 0.64 and then the next best complete runs.
 */
export const rapsPaperModels: Readonly<Record<'gsm8k' | 'mmlu-pro', readonly string[]>> = {
  gsm8k: ['gpt-4o-mini-2024-07-18', 'Meta-Llama-3.1-70B-Instruct', 'deepseek-chat', 'deepseek-coder', 'gemini-1.5-pro'],
  'mmlu-pro': [
    'gemini-1.5-flash-002',
    'Meta-Llama-3_1-70B-Instruct',
    'DeepSeek-Coder-V2',
    'Meta-Llama-3_1-70B',
    'Meta-Llama-3-70B',
  ],
};

/** Options of {@link runRapsPaperSetting}. */
export interface RapsPaperSettingOptions {
  /** Recorded models of the team, in roster order (the first `5 − adversaryCount` stay honest). */
  readonly models: readonly string[];
  /** First seed (seed i = seed + i; each seed draws its own tasks). @default 1 */
  readonly seed?: number;
  /** Seeds, ≥ 2 for intervals. @default 20 */
  readonly seeds?: number;
  /** Tasks per seed, drawn from the split. @default 30 */
  readonly taskCount?: number;
  /** Adversaries among the team (the last ones of `models`). @default 3 */
  readonly adversaryCount?: number;
  /** Which tasks to draw from: the declared held-out split (default), the tuning split, or all. @default 'heldout' */
  readonly split?: 'heldout' | 'tuning' | 'all';
}

/** One seed of the paper setting; accuracies in [0, 1]. */
export interface RapsPaperSeedRow {
  /** Seed of the task draw. */
  readonly seed: number;
  /** RAPS decided by its team view (the paper setting's rule). */
  readonly accuracy: number;
  /** The same run decided by agent-1's own view (itself weighted 1). */
  readonly deciderAccuracy: number;
  /** Unweighted plurality of the last answers of all agents. */
  readonly majorityAccuracy: number;
  /** RAPS (team view) with every agent honest. */
  readonly cleanAccuracy: number;
  /** RAPS (team view) with the honest agents alone. */
  readonly honestOnlyAccuracy: number;
  /** The first honest model alone (its recorded answers). */
  readonly firstHonestAlone: number;
}

/** Result of {@link runRapsPaperSetting}. */
export interface RapsPaperSettingResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Which scenario and setting. */
  readonly scenario: 'adversarial';
  /** The paper's setting, on replayed real agents. */
  readonly setting: 'paper';
  /** Replayed dataset. */
  readonly dataset: string;
  /** Team in roster order: agent id, recorded model, adversarial or not, and its accuracy on the drawn tasks of all seeds. */
  readonly team: ReadonlyArray<{
    readonly id: AgentId;
    readonly model: string;
    readonly adversarial: boolean;
    readonly accuracy: number;
  }>;
  /** Seeds run. */
  readonly seeds: readonly number[];
  /** Tasks per seed. */
  readonly tasks: number;
  /** Means with 95% Student-t intervals over seeds, and the paired gap RAPS − honest only. */
  readonly average: {
    readonly accuracy: MeanInterval;
    readonly decider: MeanInterval;
    readonly majority: MeanInterval;
    readonly clean: MeanInterval;
    readonly honestOnly: MeanInterval;
    readonly firstHonestAlone: MeanInterval;
    readonly gapToHonestOnly: MeanInterval;
  };
  /** The RAPS paper's figure under attack that this setting is compared with (83%). */
  readonly paperFigure: 0.83;
  /** One row per seed. */
  readonly perSeed: readonly RapsPaperSeedRow[];
}

const knownPaperOptions = defineOptionKeys<RapsPaperSettingOptions>()([
  'models',
  'seed',
  'seeds',
  'taskCount',
  'adversaryCount',
  'split',
]);

/**
 * Runs RAPS on replayed GPT-4o-mini-class agents with 3 of 5 adversarial (by default), the clean
 * team and the honest agents alone, over `seeds` task draws, and summarises with 95% intervals.
 *
 * @example
 * const data = await loadDataset('../shared/data/zeroeval-gsm8k');
 * const result = await runRapsPaperSetting(data, { models: rapsPaperModels.gsm8k });
 */
export async function runRapsPaperSetting(
  data: ReplayData,
  options: RapsPaperSettingOptions,
): Promise<RapsPaperSettingResult> {
  assertKnownOptions('', options, knownPaperOptions, 'runRapsPaperSetting');
  const { models, seed = 1, seeds = 20, taskCount = 30, adversaryCount = 3, split = 'heldout' } = options;
  assertInteger('seeds', seeds, 2, 10_000, 'intervals need at least 2 seeds');
  assertInteger('taskCount', taskCount, 1, 100_000);
  assertInteger('adversaryCount', adversaryCount, 0, models.length - 1);
  assertOneOf('split', split, ['heldout', 'tuning', 'all']);
  for (const model of models) {
    if (!data.agents.some((agent) => agent.id === model))
      throw new InvalidArgumentError({
        parameter: 'models',
        value: model,
        message: `${data.name} has no recorded agent ${JSON.stringify(model)}; choose from ${data.agents.map((agent) => agent.id).join(', ')}`,
      });
  }
  // Tasks every team model answered, of the chosen split.
  const pool = data.tasks.filter(
    (task) =>
      (split === 'all' || taskSplit(task.id) === split) && models.every((model) => task.proposals[model] !== undefined),
  );
  if (pool.length < taskCount)
    throw new InvalidArgumentError({
      parameter: 'taskCount',
      value: taskCount,
      message: `${data.name} has ${pool.length} ${split} tasks answered by every team model; pass a taskCount of at most ${pool.length}`,
    });
  const keyOf = (item: ReplayItem, answer: string | null | undefined): string | null => {
    if (answer === undefined || answer === null) return null;
    try {
      return canonicalAnswerKey(item.kind as AnswerKind, answer);
    } catch {
      return null;
    }
  };
  const ids = models.map((_, index) =>
    index >= models.length - adversaryCount ? `adv-${index + 1}` : `agent-${index + 1}`,
  );
  const honestIds = ids.filter((id) => id.startsWith('agent-'));
  const rows: RapsPaperSeedRow[] = [];
  const modelCorrect = models.map(() => ({ right: 0, total: 0 }));
  for (let index = 0; index < seeds; index++) {
    const current = seed + index;
    const items = shuffle(createRng(deriveSeed(current, 'raps-paper-tasks')), pool).slice(0, taskCount);
    const correct = new Map<string, Set<string>>();
    const payloads = new Map<string, string>();
    for (const item of items) {
      const right = new Set<string>();
      const wrong = new Map<string, number>();
      for (const proposal of Object.values(item.proposals)) {
        const key = keyOf(item, proposal.answer);
        if (key === null) continue;
        if (proposal.correct === true) right.add(key);
        else wrong.set(key, (wrong.get(key) ?? 0) + 1);
      }
      correct.set(item.id, right);
      // the most common wrong recorded answer (ties by key), else a key no model gave
      const distractor = [...wrong]
        .filter(([key]) => !right.has(key))
        .sort(([leftKey, left], [rightKey, rightCount]) => rightCount - left || (leftKey < rightKey ? -1 : 1))[0]?.[0];
      payloads.set(item.id, distractor ?? `not-${[...right][0] ?? 'answered'}`);
    }
    const isCorrect = (taskId: string, answer: string | null) =>
      answer !== null && (correct.get(taskId)?.has(answer) ?? false);
    const tasks: Task[] = items.map((item) => ({
      id: item.id,
      kind: item.kind as AnswerKind,
      prompt: item.prompt ?? '',
    }));
    const answersOf = (model: string) =>
      new Map(
        items.map((item) => {
          const key = keyOf(item, item.proposals[model]?.answer);
          return [item.id, { text: key ?? '(no parsable answer)', answer: key }];
        }),
      );
    models.forEach((model, position) => {
      for (const item of items) {
        const entry = modelCorrect[position] as { right: number; total: number };
        entry.total += 1;
        if (isCorrect(item.id, keyOf(item, item.proposals[model]?.answer))) entry.right += 1;
      }
    });
    const build = (adversaries: number): Agent[] =>
      models.map((model, position) => {
        const id = ids[position] as string;
        const replayed = createReplayedAgent({ identity: { id, model }, answers: answersOf(model) });
        return position >= models.length - adversaries ? misleading(replayed, payloads) : replayed;
      });
    const runTeam = async (agents: readonly Agent[], runId: string) =>
      runRaps({
        agents: agents.map((agent) => agent.identity),
        subscriptions: Object.fromEntries(
          agents.map((agent, position) => [agent.identity.id, qaIntents[position % qaIntents.length] as string]),
        ),
        tasks,
        runId,
        decider: 'agent-1',
        topK: 3,
        floor: 0.02,
        maxRounds: 4,
        witness: true,
        hostAgents: agents,
      });
    const score = (decisions: ReadonlyArray<{ taskId: string; answer: string | null }>) =>
      decisions.filter((decision) => isCorrect(decision.taskId, decision.answer)).length / decisions.length;
    const teamView = (result: Awaited<ReturnType<typeof runTeam>>) =>
      score(
        result.decisions.map((decision) => ({ taskId: decision.taskId, answer: decision.teamView?.answer ?? null })),
      );
    const attacked = await runTeam(build(adversaryCount), `paper-${current}`);
    const clean = await runTeam(build(0), `paper-${current}-clean`);
    const honest = await runTeam(
      build(adversaryCount).filter((agent) => honestIds.includes(agent.identity.id)),
      `paper-${current}-honest`,
    );
    rows.push({
      seed: current,
      accuracy: teamView(attacked),
      deciderAccuracy: score(attacked.decisions),
      majorityAccuracy: score(
        attacked.decisions.map((decision) => ({ taskId: decision.taskId, answer: plurality(ids, decision.answers) })),
      ),
      cleanAccuracy: teamView(clean),
      honestOnlyAccuracy: teamView(honest),
      firstHonestAlone: score(
        items.map((item) => ({ taskId: item.id, answer: keyOf(item, item.proposals[models[0] as string]?.answer) })),
      ),
    });
  }
  const interval = (pick: (row: RapsPaperSeedRow) => number) => tInterval(rows.map(pick), 0.95, unitRange);
  return {
    schemaVersion: 1,
    scenario: 'adversarial',
    setting: 'paper',
    dataset: data.name,
    team: models.map((model, position) => ({
      id: ids[position] as string,
      model,
      adversarial: position >= models.length - adversaryCount,
      accuracy:
        (modelCorrect[position] as { right: number }).right / (modelCorrect[position] as { total: number }).total,
    })),
    seeds: rows.map((row) => row.seed),
    tasks: taskCount,
    average: {
      accuracy: interval((row) => row.accuracy),
      decider: interval((row) => row.deciderAccuracy),
      majority: interval((row) => row.majorityAccuracy),
      clean: interval((row) => row.cleanAccuracy),
      honestOnly: interval((row) => row.honestOnlyAccuracy),
      firstHonestAlone: interval((row) => row.firstHonestAlone),
      gapToHonestOnly: tInterval(
        rows.map((row) => row.accuracy - row.honestOnlyAccuracy),
        0.95,
        signedUnitRange,
      ),
    },
    paperFigure: 0.83,
    perSeed: rows,
  };
}

/**
 * An adversary of the paper setting: a replayed model that publishes the task's coordinated wrong
 * answer in every round, and rates, audits and refines its subscription as the model would.
 */
function misleading(agent: Agent, payloads: ReadonlyMap<string, string>): Agent {
  const mislead = (taskId: string, round: number) => {
    const answer = payloads.get(taskId) ?? null;
    return {
      value: { agentId: agent.identity.id, taskId, round, text: answer ?? '', answer },
      usage: { inputTokens: 0, outputTokens: 0, cost: 0, cached: false },
    };
  };
  return {
    ...agent,
    propose: async ({ task }) => mislead(task.id, 0),
    revise: async ({ task, round }) => mislead(task.id, round),
  };
}

/** Unweighted plurality of the agents' answers (ties to the smallest key), or null. */
function plurality(order: readonly AgentId[], answers: Readonly<Record<AgentId, string | null>>): string | null {
  const counts = new Map<string, number>();
  for (const agentId of order) {
    const answer = answers[agentId];
    if (answer !== null && answer !== undefined) counts.set(answer, (counts.get(answer) ?? 0) + 1);
  }
  let best: string | null = null;
  let bestCount = 0;
  for (const [answer, count] of [...counts].sort(([left], [right]) => (left < right ? -1 : 1)))
    if (count > bestCount) {
      best = answer;
      bestCount = count;
    }
  return best;
}
