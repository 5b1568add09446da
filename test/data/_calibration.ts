// Shared by the simulator calibration test and docs: the same statistics computed on the real
// ZeroEval MATH level-5 recordings and on a simulated population that mirrors them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSimulatedAgent, type SimulatedProfile } from '../../src/agents/simulated-agent.js';
import { createSimulationWorld } from '../../src/agents/simulation-world.js';
import { simulatedAccuracy } from '../../src/agents/simulated-agent.js';
import type { ReferencedTask } from '../../src/core/task.js';

/** One recorded (or simulated) proposal: the answer key (`null` = none) and whether it is right. */
export interface Cell {
  readonly answer: string | null;
  readonly correct: boolean;
}

/** A population: agents with their clone group, and per task the proposals of the agents present. */
export interface Population {
  readonly agents: ReadonlyArray<{ readonly id: string; readonly family: string }>;
  readonly tasks: ReadonlyArray<ReadonlyMap<string, Cell>>;
}

/** The calibration statistics. */
export interface PopulationStats {
  readonly agents: number;
  readonly tasks: number;
  /** Per-agent accuracy: mean, population standard deviation, min, max. */
  readonly accuracy: { readonly mean: number; readonly sd: number; readonly min: number; readonly max: number };
  /** Mean share of unparseable proposals. */
  readonly parseFailure: number;
  /** P(same answer) over pairs of parseable proposals, same family vs different families. */
  readonly agreeSame: number;
  readonly agreeCross: number;
  /** P(same answer | both wrong and parseable): how often wrong answers collide. */
  readonly wrongCollideSame: number;
  readonly wrongCollideCross: number;
  /** P(both right or both wrong) over pairs of parseable proposals. */
  readonly correctnessAgreeSame: number;
  readonly correctnessAgreeCross: number;
  /** Per task with ≥ 2 wrong answers: distinct wrong answers / wrong answers, and the top wrong answer's share. */
  readonly distinctWrongRatio: number;
  readonly topWrongShare: number;
}

/** Light normalisation of recorded answers: whitespace, `$`, a surrounding `\boxed{}` and `\left`/`\right`. */
export function normalizeRecorded(answer: string): string {
  let text = answer
    .replace(/\s+/g, '')
    .replace(/\$/g, '')
    .replace(/\\left|\\right/g, '')
    .replace(/\\dfrac|\\tfrac/g, '\\frac');
  const boxed = /^\\boxed\{(.*)\}$/.exec(text);
  if (boxed) text = boxed[1] as string;
  return text;
}

/** Reads zeroeval-math-l5 as a population (families from models.json). */
export function readZeroEvalPopulation(dir: string): Population {
  const models = JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')) as {
    models: Array<{ model: string; family: string }>;
  };
  const agents = models.models.map((entry) => ({ id: entry.model, family: entry.family }));
  const tasks = readFileSync(join(dir, 'proposals.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const record = JSON.parse(line) as { proposals: Record<string, { answer: string | null; correct: boolean }> };
      return new Map(
        Object.entries(record.proposals).map(([agent, proposal]) => [
          agent,
          { answer: proposal.answer === null ? null : normalizeRecorded(proposal.answer), correct: proposal.correct },
        ]),
      );
    });
  return { agents, tasks };
}

/** Computes {@link PopulationStats}. */
export function populationStats({ agents, tasks }: Population): PopulationStats {
  const family = new Map(agents.map((agent) => [agent.id, agent.family]));
  const accuracies = agents.map((agent) => {
    let seen = 0;
    let right = 0;
    for (const task of tasks) {
      const cell = task.get(agent.id);
      if (!cell) continue;
      seen++;
      if (cell.correct) right++;
    }
    return seen === 0 ? 0 : right / seen;
  });
  let cells = 0;
  let unparsed = 0;
  const counters = {
    agreeSame: [0, 0],
    agreeCross: [0, 0],
    wrongSame: [0, 0],
    wrongCross: [0, 0],
    corrSame: [0, 0],
    corrCross: [0, 0],
  } as Record<string, [number, number]>;
  const bump = (key: string, hit: boolean) => {
    const counter = counters[key] as [number, number];
    counter[1]++;
    if (hit) counter[0]++;
  };
  const distinct: number[] = [];
  const top: number[] = [];
  for (const task of tasks) {
    const entries = [...task.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [, cell] of entries) {
      cells++;
      if (cell.answer === null) unparsed++;
    }
    for (let i = 0; i < entries.length; i++) {
      for (let j = i + 1; j < entries.length; j++) {
        const [agentA, a] = entries[i] as [string, Cell];
        const [agentB, b] = entries[j] as [string, Cell];
        if (a.answer === null || b.answer === null) continue;
        const same = family.get(agentA) === family.get(agentB);
        bump(same ? 'agreeSame' : 'agreeCross', a.answer === b.answer);
        bump(same ? 'corrSame' : 'corrCross', a.correct === b.correct);
        if (!a.correct && !b.correct) bump(same ? 'wrongSame' : 'wrongCross', a.answer === b.answer);
      }
    }
    const wrong = entries
      .filter(([, cell]) => !cell.correct && cell.answer !== null)
      .map(([, cell]) => cell.answer as string);
    if (wrong.length >= 2) {
      const counts = new Map<string, number>();
      for (const answer of wrong) counts.set(answer, (counts.get(answer) ?? 0) + 1);
      distinct.push(counts.size / wrong.length);
      top.push(Math.max(...counts.values()) / wrong.length);
    }
  }
  const rate = (key: string) => {
    const [hits, total] = counters[key] as [number, number];
    return total === 0 ? Number.NaN : hits / total;
  };
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const accuracyMean = mean(accuracies);
  return {
    agents: agents.length,
    tasks: tasks.length,
    accuracy: {
      mean: accuracyMean,
      sd: Math.sqrt(mean(accuracies.map((value) => (value - accuracyMean) ** 2))),
      min: Math.min(...accuracies),
      max: Math.max(...accuracies),
    },
    parseFailure: unparsed / cells,
    agreeSame: rate('agreeSame'),
    agreeCross: rate('agreeCross'),
    wrongCollideSame: rate('wrongSame'),
    wrongCollideCross: rate('wrongCross'),
    correctnessAgreeSame: rate('corrSame'),
    correctnessAgreeCross: rate('corrCross'),
    distinctWrongRatio: mean(distinct),
    topWrongShare: mean(top),
  };
}

/** Simulator settings shared by every agent of the calibrated population. */
export interface SimulatorSettings {
  readonly slope: number;
  readonly cloneCorrelation: number;
  readonly idiosyncraticRate: number;
  readonly distractorDecay: number;
}

/** The simulator defaults (what `createSimulatedAgent` uses when a profile leaves them out). */
export const simulatorDefaults: SimulatorSettings = {
  slope: 6,
  cloneCorrelation: 0.5,
  idiosyncraticRate: 0.4,
  distractorDecay: 0.55,
};

/** Skill whose mean accuracy over uniformly spread difficulties equals `target` (bisection). */
export function skillForAccuracy(target: number, slope: number): number {
  const meanAccuracy = (skill: number) => {
    let sum = 0;
    for (let index = 0; index < 200; index++) sum += simulatedAccuracy({ skill, slope }, (index + 0.5) / 200);
    return sum / 200;
  };
  let low = 1e-6;
  let high = 1 - 1e-6;
  for (let iteration = 0; iteration < 60; iteration++) {
    const middle = (low + high) / 2;
    if (meanAccuracy(middle) < target) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/**
 * Simulates a population mirroring a real one: the same agents and families (clone groups), each
 * agent's skill set so its expected accuracy matches its real accuracy, its real parse-failure
 * rate, on `taskCount` generated-like tasks with difficulties spread evenly over [0, 1].
 */
export async function simulatePopulation(
  real: Population,
  settings: SimulatorSettings = simulatorDefaults,
  seed = 2027,
  taskCount = real.tasks.length,
): Promise<Population> {
  const realStats = new Map(
    real.agents.map((agent) => {
      let seen = 0;
      let right = 0;
      let unparsed = 0;
      for (const task of real.tasks) {
        const cell = task.get(agent.id);
        if (!cell) continue;
        seen++;
        if (cell.correct) right++;
        if (cell.answer === null) unparsed++;
      }
      return [agent.id, { accuracy: right / seen, parseFailure: unparsed / seen }];
    }),
  );
  const referenced: ReferencedTask[] = Array.from({ length: taskCount }, (_, index) => ({
    task: {
      id: `sim-${index}`,
      kind: 'number',
      prompt: `simulated task ${index}`,
      difficulty: (index + 0.5) / taskCount,
    },
    reference: String(100 + 7 * index),
  }));
  const world = createSimulationWorld({ tasks: referenced, seed });
  const agents = real.agents.map((agent) => {
    const stats = realStats.get(agent.id) as { accuracy: number; parseFailure: number };
    const profile: SimulatedProfile = {
      skill: skillForAccuracy(Math.min(0.999, stats.accuracy / Math.max(1e-9, 1 - stats.parseFailure)), settings.slope),
      slope: settings.slope,
      parseFailureRate: stats.parseFailure,
      cloneCorrelation: settings.cloneCorrelation,
      idiosyncraticRate: settings.idiosyncraticRate,
      distractorDecay: settings.distractorDecay,
    };
    return createSimulatedAgent({ identity: { id: agent.id, model: agent.family }, profile, world, seed });
  });
  const tasks: Array<Map<string, Cell>> = [];
  for (const { task } of referenced) {
    const proposals = await Promise.all(agents.map((agent) => agent.propose({ task })));
    tasks.push(
      new Map(
        proposals.map(({ value }) => [
          value.agentId,
          { answer: value.answer, correct: world.isCorrect(task.id, value.answer) },
        ]),
      ),
    );
  }
  return { agents: real.agents, tasks };
}
