import type { AgentId } from '../../core/agent-identity.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import type { Rng } from '../../core/rng.js';
import { createRng, deriveSeed, randomInt, seedDeriver, shuffle } from '../../core/rng.js';
import { InternalError } from '../../core/errors.js';
import type { AnswerOps } from './answer-ops.js';
import type { AttackName, AttackPlan, PreparedTask } from './types.js';

export type { AttackPlan } from './types.js';

/** First task index (0-based) at which ONOFF attackers may attack. @default 30 */
export const onOffStart = 30;
/** ONOFF period after the start: attack for `onOffOn` tasks, then stay honest for the rest of the period. */
export const onOffPeriod = 10;
/** ONOFF attacking tasks per period. */
export const onOffOn = 5;
/** First task index (0-based) at which ADAPT attackers may attack (the paper: after task 30). @default 30 */
export const adaptStart = 30;
/**
 * ADAPT (ours; the paper does not give the rule): an attacker attacks on task t ≥ {@link adaptStart}
 * while MiniRep's normalised weight on it is at least this share of its weight at task 30.
 * @default 0.9
 */
export const adaptRetention = 0.9;

/** What an attack needs to mutate one task's proposals. */
export interface AttackInput {
  /** The attack to apply. */
  readonly attack: AttackName;
  /** Run seed. */
  readonly seed: number;
  /** Condition id (seeds are per seed, condition, task and agent, never per method). */
  readonly conditionId: string;
  /** 0-based position of the task in the replay order. */
  readonly taskIndex: number;
  /** The prepared task whose proposals the attack replaces. */
  readonly task: PreparedTask;
  /** Team members, in team order. */
  readonly team: readonly AgentId[];
  /** Corrupted team members. */
  readonly attackers: readonly AgentId[];
  /** Each team member's honest canonical key (`null` = unparseable or missing); only DIV, ARITH and BOUND read it. */
  readonly honest: Readonly<Record<AgentId, string | null>>;
  /** ADAPT only: the attackers the ADAPT rule ({@link adaptAttackers}) chose for this task. @default [] */
  readonly adaptive?: readonly AgentId[];
  /** Answer operations used to build and check payload keys. */
  readonly ops: AnswerOps;
}

const numberPattern = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** Parses a plain decimal key to a number, or `undefined` when the key is not a plain number. */
export function plainNumber(key: string | null | undefined): number | undefined {
  if (key === null || key === undefined) return undefined;
  const cleaned = key.replace(/,/g, '').trim();
  if (!numberPattern.test(cleaned)) return undefined;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : undefined;
}

/** Formats a number as a plain decimal key (at most 12 significant digits, no exponent for integers). */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(12)));
}

function letterIndex(key: string | null): number | undefined {
  if (key === null || !/^[A-Z]$/.test(key)) return undefined;
  return key.charCodeAt(0) - 65;
}

function letter(index: number): string {
  return String.fromCharCode(65 + index);
}

/**
 * A payload is admissible when it parses, is not equivalent to the reference and is not a key the
 * dataset grades correct on this task (the flags can be more lenient than equivalence).
 */
export function isWrongPayload(task: PreparedTask, key: string | null, ops: AnswerOps): key is string {
  if (key === null || key.length === 0) return false;
  if ((task.scores[key]?.exact ?? 0) > 0) return false;
  if (ops.equivalent(task.kind, key, task.reference)) return false;
  return ops.score(task.kind, key, task.reference).exact === 0;
}

// A number candidate is formatted only when reached: the first admissible one usually ends the walk.
function firstWrong(task: PreparedTask, candidates: readonly (string | number)[], ops: AnswerOps): string | undefined {
  for (const candidate of candidates) {
    const raw = typeof candidate === 'number' ? formatNumber(candidate) : candidate;
    const key = ops.canonical(task.kind, raw);
    if (isWrongPayload(task, key, ops)) return key;
  }
  return undefined;
}

function labelVocabulary(task: PreparedTask): string[] {
  const labels = new Set<string>();
  for (const key of [task.reference, ...task.keys]) {
    if (key === null) continue;
    for (const label of key.split(',')) if (label.trim()) labels.add(label.trim());
  }
  return [...labels].sort();
}

/**
 * A uniformly random wrong answer for the task's kind: a letter other than the reference for
 * `choice`; an integer in [-M, M] with M = max(20, 2·|reference|) for `number`/`number-zeroeval`/`math`; a random
 * non-empty label subset for `labels`; a tagged token for `exact`/`code`. Redraws until admissible.
 */
export function randomWrongAnswer(task: PreparedTask, rng: Rng, ops: AnswerOps): string {
  // What every draw of the task shares is worked out once.
  const numeric = task.kind === 'number' || task.kind === 'number-zeroeval' || task.kind === 'math';
  const bound = numeric ? Math.max(20, Math.ceil(2 * Math.abs(plainNumber(task.reference) ?? 0))) : 0;
  const vocabulary = task.kind === 'labels' ? labelVocabulary(task) : [];
  for (let attempt = 0; attempt < 64; attempt++) {
    let candidate: string;
    if (task.kind === 'choice') {
      candidate = letter(randomInt(rng, task.options ?? 10));
    } else if (numeric) {
      candidate = String(randomInt(rng, 2 * bound + 1) - bound);
    } else if (task.kind === 'labels') {
      const picked = vocabulary.filter(() => rng() < 0.5);
      candidate = (picked.length > 0 ? picked : [`label-${randomInt(rng, 1000)}`]).join(',');
    } else {
      candidate = `wrong-${randomInt(rng, 1_000_000)}`;
    }
    const key = ops.canonical(task.kind, candidate);
    if (isWrongPayload(task, key, ops)) return key;
  }
  // Every draw collided with a correct key (tiny option sets): walk a deterministic sequence.
  const fallback = fallbackWrong(task, ops);
  return fallback;
}

function fallbackWrong(task: PreparedTask, ops: AnswerOps): string {
  const candidates: string[] = [];
  if (task.kind === 'choice') for (let index = 0; index < 26; index++) candidates.push(letter(index));
  for (let index = 0; index < 1000; index++) candidates.push(String(987_654_321 + index), `wrong-${index}`);
  const key = firstWrong(task, candidates, ops);
  if (key === undefined) throw new InternalError(`no admissible wrong payload for task ${task.id}`);
  return key;
}

/** Operator mutations of a value (ARITH): +1, −1, ×2, sign flip, ÷2, ×10. */
function arithmeticCandidates(
  kind: AnswerKind,
  base: string,
  rng: Rng,
  options: number | undefined,
): (string | number)[] {
  const index = letterIndex(base);
  if (kind === 'choice' && index !== undefined) {
    const count = options ?? 10;
    return shuffle(rng, [1, -1, 2, -2]).map((step) => letter((((index + step) % count) + count) % count));
  }
  const value = plainNumber(base);
  if (value !== undefined) {
    // Numbers, formatted by firstWrong when reached; the values in operator order (x + 1, x − 1,
    // 2x, −x) shuffle exactly as the operators would.
    return [...shuffle(rng, [value + 1, value - 1, 2 * value, -value]), value / 2, 10 * value, value + 2];
  }
  // Symbolic answers: wrap the expression in the same operators.
  return shuffle(rng, [`${base}+1`, `${base}-1`, `2\\cdot(${base})`, `-(${base})`]).concat([`(${base})+2`]);
}

/**
 * Boundary / off-by-one values around the attacker's own honest answer (BOUND): base ± 1 first (seeded
 * order), then 0, 1, base ± 2; adjacent letters, then the first/last option, for `choice`.
 */
function boundaryCandidates(
  kind: AnswerKind,
  base: string,
  rng: Rng,
  options: number | undefined,
): (string | number)[] {
  const index = letterIndex(base);
  if (kind === 'choice' && index !== undefined) {
    const count = options ?? 10;
    const around = shuffle(rng, [index + 1, index - 1]);
    return [...around, 0, count - 1, index + 2, index - 2].filter((value) => value >= 0 && value < count).map(letter);
  }
  const value = plainNumber(base);
  if (value !== undefined) {
    return [...shuffle(rng, [value + 1, value - 1]), 0, 1, value + 2, value - 2];
  }
  return [...shuffle(rng, [`${base}+1`, `${base}-1`]), '0', '1'];
}

/** The attack's shared per-task payload (STRONG, ONOFF, ADAPT, and DIV's fallback). */
export function sharedPayload(input: Pick<AttackInput, 'seed' | 'conditionId' | 'taskIndex' | 'task' | 'ops'>): string {
  return randomWrongAnswer(
    input.task,
    createRng(deriveSeed(input.seed, input.conditionId, input.taskIndex, 'shared')),
    input.ops,
  );
}

/** ONOFF schedule: honest before task {@link onOffStart}, then on for 5 tasks, off for 5, repeating. */
export function onOffActive(taskIndex: number): boolean {
  return taskIndex >= onOffStart && (taskIndex - onOffStart) % onOffPeriod < onOffOn;
}

/** ADAPT's window: honest before task {@link adaptStart}, eligible from then on. */
export function adaptEligible(taskIndex: number): boolean {
  return taskIndex >= adaptStart;
}

/**
 * ADAPT's rule (ours; the paper says the attackers read MiniRep's state but not how): on a task
 * t ≥ {@link adaptStart}, attacker a attacks when MiniRep's normalised pre-task weight on it is at
 * least {@link adaptRetention} × its weight at task 30 (`reference`), i.e. while MiniRep has not cut
 * it down; a cut attacker answers honestly until its weight recovers. Returns the chosen attackers in
 * the order given. Before task 30 nobody attacks.
 *
 * @example
 * adaptAttackers({ taskIndex: 40, weights: { a: 0.05, b: 0.1 }, reference: { a: 0.1, b: 0.1 }, attackers: ['a', 'b'] }); // ['b']
 */
export function adaptAttackers({
  taskIndex,
  weights,
  reference,
  attackers,
}: {
  taskIndex: number;
  weights: Readonly<Record<AgentId, number>>;
  reference: Readonly<Record<AgentId, number>>;
  attackers: readonly AgentId[];
}): AgentId[] {
  if (!adaptEligible(taskIndex)) return [];
  // w_a(t) ≥ ρ · w_a(30), ρ = adaptRetention, with a 1e-12 tolerance for equal weights
  return attackers.filter((agent) => (weights[agent] ?? 0) >= adaptRetention * (reference[agent] ?? 0) - 1e-12);
}

/** The most common wrong key among honest (uncorrupted) team members; ties go to the key that sorts first. */
export function mostPlausibleWrong(
  input: Pick<AttackInput, 'task' | 'team' | 'attackers' | 'honest' | 'ops'>,
): string | undefined {
  const attackerSet = new Set(input.attackers);
  const counts = new Map<string, number>();
  for (const agent of input.team) {
    if (attackerSet.has(agent)) continue;
    const key = input.honest[agent] ?? null;
    if (!isWrongPayload(input.task, key, input.ops)) continue;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let best: string | undefined;
  let bestCount = 0;
  for (const key of [...counts.keys()].sort()) {
    const count = counts.get(key) ?? 0;
    if (count > bestCount) {
      best = key;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Plans one attack on one task: a pure function of its input (no state, no method internals; ADAPT
 * gets its chosen attackers in `adaptive`), seeded per (seed, condition, task, agent).
 * - RAND: each attacker an independent random wrong answer.
 * - STRONG: every attacker the same random wrong answer (one per task).
 * - DIV: every attacker the most common wrong answer among the honest members (else STRONG's payload).
 * - ARITH: an operator mutation (+1, −1, ×2, sign flip) of the attacker's own honest answer (ours:
 *   of the reference when its own answer does not parse).
 * - BOUND: an off-by-one or boundary value around the attacker's own honest answer (own ± 1, then 0,
 *   1, own ± 2; ours: around the reference when its own answer does not parse).
 * - ONOFF: STRONG's payload on the {@link onOffActive} schedule (from task 30), honest otherwise.
 * - ADAPT: STRONG's payload from the attackers in `adaptive` (chosen by {@link adaptAttackers} from
 *   MiniRep's state; one plan per condition, applied to every method), honest otherwise.
 *
 * @example
 * const plan = planAttack({ attack: 'STRONG', seed: 2027, conditionId: 'all-strong/B/STRONG', taskIndex: 0, task, team, attackers, honest, ops });
 */
export function planAttack(input: AttackInput): AttackPlan {
  const { attack, task, attackers, ops } = input;
  if (attackers.length === 0) return { active: false, payloads: {} };
  if (attack === 'ONOFF' && !onOffActive(input.taskIndex)) return { active: false, payloads: {} };
  const adaptive = input.adaptive ?? [];
  if (attack === 'ADAPT' && (!adaptEligible(input.taskIndex) || adaptive.length === 0))
    return { active: false, payloads: {} };
  // deriveSeed(seed, condition, task, agent, attack), with the shared prefix hashed once per task.
  const taskSeed = seedDeriver(input.seed, input.conditionId, input.taskIndex);
  const agentRng = (agent: AgentId) => createRng(taskSeed(agent, attack));
  const payloads: Record<AgentId, string> = {};
  if (attack === 'STRONG' || attack === 'ONOFF') {
    const shared = sharedPayload(input);
    for (const agent of attackers) payloads[agent] = shared;
  } else if (attack === 'ADAPT') {
    const shared = sharedPayload(input);
    for (const agent of adaptive) if (attackers.includes(agent)) payloads[agent] = shared;
  } else if (attack === 'DIV') {
    const shared = mostPlausibleWrong(input) ?? sharedPayload(input);
    for (const agent of attackers) payloads[agent] = shared;
  } else if (attack === 'RAND') {
    for (const agent of attackers) payloads[agent] = randomWrongAnswer(task, agentRng(agent), ops);
  } else {
    // ARITH and BOUND: the first wrong candidate around the attacker's own answer (else the reference).
    const candidates = attack === 'ARITH' ? arithmeticCandidates : boundaryCandidates;
    for (const agent of attackers) {
      const rng = agentRng(agent);
      const own = input.honest[agent] ?? null;
      const base = own ?? ops.canonical(task.kind, task.reference) ?? task.reference;
      payloads[agent] =
        firstWrong(task, candidates(task.kind, base, rng, task.options), ops) ?? randomWrongAnswer(task, rng, ops);
    }
  }
  return { active: true, payloads };
}
