import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import { createRng, deriveSeed, shuffle } from '../core/rng.js';
import type { ReferencedTask, Task, TaskId } from '../core/task.js';
import type { Message } from '../core/message.js';
import { canonicalAnswerKey } from '../core/answers/answers.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';

/**
 * The ground truth behind simulated agents: reference answers, plausible wrong answers and the
 * adversaries' coordinated payloads. Only simulated agents read it (to decide whether they answer
 * right); protocols, selectors, aggregators and reputation models never receive a world.
 */
export interface SimulationWorld {
  /** Seed the world derived its distractors and payloads from. */
  readonly seed: number;
  /** The task as decision paths see it (no reference). Throws `NotFoundError` for unknown ids. */
  task(taskId: TaskId): Task;
  /** Canonical reference answer key of a task. Throws `NotFoundError` for unknown ids. */
  reference(taskId: TaskId): string;
  /**
   * Plausible wrong answers of a task, most plausible first (near-miss values: off by one, sign,
   * factor, digit swap), never equivalent to the reference, distinct.
   */
  distractors(taskId: TaskId): readonly string[];
  /** A wrong answer that no distractor list contains, for idiosyncratic mistakes; `draw` in [0, 1). */
  idiosyncratic(taskId: TaskId, draw: number): string;
  /** The wrong answer a coalition of adversaries pushes on a task (same for every member). */
  payload(taskId: TaskId, coalition?: string): string;
  /** True when `answer` is the reference answer key. */
  isCorrect(taskId: TaskId, answer: string | null): boolean;
  /** Whether a message is reliable, judged from its answer (simulation ground truth). */
  isReliable(message: Message): boolean;
}

/** Options of {@link createSimulationWorld}. */
export interface SimulationWorldOptions {
  /** Tasks with their references. */
  readonly tasks: readonly ReferencedTask[];
  /** Seed for distractor order and payloads. */
  readonly seed: number;
  /** Number of plausible wrong answers per task, ≥ 1. @default 6 */
  readonly distractorCount?: number;
  /**
   * Turns a raw reference into the canonical answer key agents report. @default trims whitespace
   * and a surrounding `$...$`/`\boxed{}`.
   */
  readonly answerKey?: (task: Task, reference: string) => string;
}

const knownSimulationWorldOptions = defineOptionKeys<SimulationWorldOptions>()([
  'tasks',
  'seed',
  'distractorCount',
  'answerKey',
]);

/**
 * Builds a {@link SimulationWorld} over referenced tasks.
 *
 * @example
 * const world = createSimulationWorld({ tasks: generateTasks({ count: 100, seed: 1 }), seed: 1 });
 * world.distractors(world.task('gen-0001').id); // ['13', '11', '-12', ...]
 */
export function createSimulationWorld(options: SimulationWorldOptions): SimulationWorld {
  assertKnownOptions('', options, knownSimulationWorldOptions, 'createSimulationWorld');
  const { tasks, seed, distractorCount = 6, answerKey = defaultAnswerKey } = options;
  if (!Number.isInteger(distractorCount) || distractorCount < 1) {
    throw new InvalidArgumentError({
      parameter: 'distractorCount',
      value: distractorCount,
      message: `distractorCount must be an integer >= 1, got ${distractorCount}; pass e.g. 6`,
    });
  }
  const byId = new Map<TaskId, { task: Task; reference: string; distractors: string[] }>();
  tasks.forEach((referenced, index) => {
    const id = referenced?.task?.id;
    if (typeof id !== 'string' || id.length === 0) {
      throw new InvalidArgumentError({
        parameter: `tasks[${index}].task.id`,
        value: id,
        message: `tasks[${index}].task.id must be a non-empty string, got ${JSON.stringify(id)}; give every task an id such as 'q1'`,
      });
    }
    if (byId.has(id)) {
      throw new InvalidArgumentError({
        parameter: `tasks[${index}].task.id`,
        value: id,
        message: `duplicate task id ${JSON.stringify(id)}; task ids must be unique`,
      });
    }
    if (typeof referenced.reference !== 'string' || referenced.reference.trim() === '') {
      throw new InvalidArgumentError({
        parameter: `tasks[${index}].reference`,
        value: referenced.reference,
        message: `task ${id} has no reference answer; simulated agents need one to decide whether they answer right`,
      });
    }
    const reference = answerKey(referenced.task, referenced.reference);
    const candidates = nearMisses(reference).filter((candidate) => candidate !== reference);
    const unique = [...new Set(candidates)];
    // The most plausible near-misses (off by one, sign) stay first; the tail is shuffled per task.
    const head = unique.slice(0, 2);
    const tail = shuffle(createRng(deriveSeed(seed, 'distractors', id)), unique.slice(2));
    byId.set(id, { task: referenced.task, reference, distractors: [...head, ...tail].slice(0, distractorCount) });
  });
  const entry = (taskId: TaskId) => {
    const found = byId.get(taskId);
    if (!found)
      throw new NotFoundError({
        entity: 'task',
        id: taskId,
        message: `the simulation world has no task ${JSON.stringify(taskId)}; build it from the same task list the team works on`,
      });
    return found;
  };
  return {
    seed,
    task: (taskId) => entry(taskId).task,
    reference: (taskId) => entry(taskId).reference,
    distractors: (taskId) => entry(taskId).distractors,
    idiosyncratic(taskId, draw) {
      const { reference, distractors } = entry(taskId);
      const offset = 11 + Math.floor(draw * 9000);
      const numeric = parseNumber(reference);
      let candidate = numeric === undefined ? `${reference}+${offset}` : formatNumber(numeric + offset);
      while (candidate === reference || distractors.includes(candidate)) candidate = `${candidate}1`;
      return candidate;
    },
    payload(taskId, coalition = 'adversaries') {
      const { distractors } = entry(taskId);
      // The coalition pushes one of the less obvious distractors, so that it rarely coincides with
      // an honest near-miss and is chosen per task, not fixed.
      const pick = Math.floor(createRng(deriveSeed(seed, 'payload', coalition, taskId))() * distractors.length);
      return distractors[(pick + 2) % distractors.length] as string;
    },
    isCorrect: (taskId, answer) => answer !== null && answer === entry(taskId).reference,
    isReliable(message) {
      if (message.taskId === undefined || message.answer === undefined || message.answer === null)
        return !/ignore (all|previous)|everyone agrees|all other agents agree/i.test(message.text);
      const found = byId.get(message.taskId);
      return found === undefined ? true : message.answer === found.reference;
    },
  };
}

/**
 * Default canonical key: the answer kind's canonical key (the same key `extractAnswer` gives live
 * agents' replies, e.g. `\frac{3}{4}` → `0.75`), or, when the kind cannot key it, the reference
 * trimmed, without `$...$` and `\boxed{...}` and thousands separators, `\frac{p}{q}` as `p/q`.
 */
export function defaultAnswerKey(task: Task, reference: string): string {
  let key: string | null = null;
  try {
    key = canonicalAnswerKey(task.kind, reference);
  } catch {
    key = null;
  }
  return key ?? normalizeReference(reference);
}

function normalizeReference(reference: string): string {
  let text = reference.trim();
  const boxed = /^\\boxed\{(.*)\}$/s.exec(text);
  if (boxed) text = (boxed[1] as string).trim();
  if (text.startsWith('$') && text.endsWith('$') && text.length > 1) text = text.slice(1, -1).trim();
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(text)) text = text.replace(/,/g, '');
  const fraction = /^(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}$/.exec(text);
  if (fraction) text = `${fraction[1]}${fraction[2]}/${fraction[3]}`;
  return text;
}

function parseNumber(text: string): number | undefined {
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
}

/** Near-miss wrong answers of a reference, most plausible first. */
function nearMisses(reference: string): string[] {
  const numeric = parseNumber(reference);
  if (numeric !== undefined) {
    const out = [
      numeric + 1,
      numeric - 1,
      -numeric,
      numeric * 2,
      numeric + 2,
      numeric - 2,
      numeric * 10,
      numeric + 10,
      numeric - 10,
      numeric / 2,
      numeric * numeric,
      numeric + 3,
    ].map(formatNumber);
    const digits = reference.replace('-', '');
    if (digits.length >= 2 && !digits.includes('.')) {
      const swapped = digits.slice(0, -2) + digits.at(-1) + digits.at(-2);
      out.splice(4, 0, (numeric < 0 ? '-' : '') + String(Number(swapped)));
    }
    return out;
  }
  const fraction = /^(-?)(\d+)\/(\d+)$/.exec(reference) ?? /^(-?)\\frac\{(\d+)\}\{(\d+)\}$/.exec(reference);
  if (fraction) {
    const [, sign, top, bottom] = fraction as unknown as [string, string, string, string];
    const p = Number(top);
    const q = Number(bottom);
    const negated = sign === '-' ? '' : '-';
    return [
      `${sign}${q}/${p}`,
      `${sign}${p + 1}/${q}`,
      `${negated}${p}/${q}`,
      `${sign}${p}/${q + 1}`,
      `${sign}${p - 1}/${q}`,
      `${sign}${2 * p}/${q}`,
      `${sign}${p}/${2 * q}`,
      `${sign}${p + q}/${q}`,
    ];
  }
  return [
    `${reference}+1`,
    `-(${reference})`,
    `2(${reference})`,
    `${reference}-1`,
    `(${reference})/2`,
    `${reference}^2`,
    `${reference}+2`,
    `1/(${reference})`,
  ];
}
