import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { Proposal } from '../../core/proposal.js';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import type { Evidence } from '../../reputation/reputation-model.js';
import { InternalError } from '../../core/errors.js';
import type { AnswerOps } from './answer-ops.js';
import { adaptAttackers, adaptEligible, type AttackPlan } from './attacks.js';
import type { ReplayMethod } from './method.js';
import { replayMethods } from './methods.js';
import { planGrid, type ConditionPlan, type GridPlan } from './plan-grid.js';
import { createSimulatedVerifier } from '../../aggregation/simulated-verifier.js';
import type { Verifier } from '../../aggregation/verifier.js';
import type {
  Condition,
  ConditionResult,
  FeedbackMode,
  KeyScore,
  MethodRun,
  PreparedReplay,
  PreparedTask,
  ReplayVerifierSettings,
} from './types.js';

/** Settings shared by every condition of a run. */
export interface ConditionSettings {
  /** Run seed; each (condition, method) and each selection draw derive their own seed from it. */
  readonly seed: number;
  /** Post-task feedback every stateful method receives. */
  readonly feedback: FeedbackMode;
  /**
   * The verifier judging every team proposal before aggregation (MiniRep down-weights proposals
   * judged wrong) and, with `verifier` feedback, after the decision for every stateful method.
   */
  readonly verifier: ReplayVerifierSettings;
  /**
   * Answer operations: plan the attacks when no {@link GridPlan} is given, and score a key the plan
   * does not cover. Worker threads run without them (pure table lookups). @default undefined
   */
  readonly ops?: AnswerOps;
}

/** Score of a decided key: the dataset's grade for honest keys, the kind's scoring otherwise (payloads). */
export function scoreKey(task: PreparedTask, key: string | null, ops: AnswerOps): KeyScore {
  if (key === null) return { exact: 0, f1: 0 };
  return (Object.hasOwn(task.scores, key) ? task.scores[key] : undefined) ?? ops.score(task.kind, key, task.reference);
}

/**
 * Per-participant success fed back after the decision: agreement with the decided answer
 * (`consensus`), the verifier's verdict on the proposal (`verifier`; the same verdict MiniRep saw
 * before aggregation), or exact correctness (`truth`).
 */
export function feedbackSuccess(
  mode: FeedbackMode,
  {
    key,
    decided,
    truth,
    verdict,
  }: { key: string | null; decided: string | null; truth: number; verdict: number | undefined },
): number {
  if (mode === 'truth') return truth;
  if (mode === 'consensus') return key !== null && key === decided ? 1 : 0;
  if (verdict === undefined)
    throw new InternalError('replay: verifier feedback without a verdict; the run needs verifier.kind simulated');
  return verdict;
}

function normalise(weights: Readonly<Record<AgentId, number>>, team: readonly AgentId[]): Record<AgentId, number> {
  let total = 0;
  for (const agent of team) total += Math.max(0, weights[agent] ?? 0);
  const result: Record<AgentId, number> = {};
  for (const agent of team) result[agent] = total > 0 ? Math.max(0, weights[agent] ?? 0) / total : 1 / team.length;
  return result;
}

const inactive: AttackPlan = { active: false, payloads: {} };
const zero: KeyScore = { exact: 0, f1: 0 };

/** The attack on task `taskIndex`, given the running method's normalised pre-task weights (only ADAPT's driver reads them). */
type AttackAt = (taskIndex: number, before: Readonly<Record<AgentId, number>>) => AttackPlan;

/** Whether a participant's proposal entered the aggregation pool: MiniRep's `pooled` flag where given, else a positive final weight. */
function inPool(reason: { weight: number; components?: Readonly<Record<string, number>> } | undefined): boolean {
  if (reason === undefined) return false;
  const pooled = reason.components?.pooled;
  return pooled === undefined ? reason.weight > 0 : pooled > 0;
}

function runMethod(
  prepared: PreparedReplay,
  condition: Condition,
  method: ReplayMethod,
  settings: ConditionSettings,
  attackAt: AttackAt,
  payloadScores: GridPlan['payloadScores'],
): MethodRun {
  const { seed, ops } = settings;
  const score = (task: PreparedTask, taskIndex: number, key: string | null): KeyScore => {
    if (key === null) return zero;
    if (Object.hasOwn(task.scores, key)) return task.scores[key] as KeyScore;
    const known = payloadScores[taskIndex]?.get(key);
    if (known !== undefined) return known;
    if (ops === undefined)
      throw new InternalError(
        `replay: key ${JSON.stringify(key)} of task ${task.id} is neither an honest key nor a planned payload, and no answer ops were given to score it`,
      );
    return ops.score(task.kind, key, task.reference);
  };
  const index = new Map(prepared.agents.map((agent, position) => [agent.id, position]));
  const identities: AgentIdentity[] = condition.team.map((id) => prepared.agents[index.get(id) ?? -1] as AgentIdentity);
  const parts = method.create({ team: identities, seed: deriveSeed(seed, condition.id, method.name) });
  const attackerSet = new Set(condition.attackers);
  // One verifier per condition, seeded by (seed, condition) only: every method sees the same verdicts.
  let current: { task: PreparedTask; index: number } | undefined;
  const verifier: Verifier | undefined =
    settings.verifier.kind === 'simulated'
      ? createSimulatedVerifier({
          seed: deriveSeed(seed, condition.id, 'verifier'),
          sensitivity: settings.verifier.sensitivity,
          specificity: settings.verifier.specificity,
          isCorrect: (_task, proposal) =>
            current !== undefined && score(current.task, current.index, proposal.answer).exact > 0.5,
        })
      : undefined;
  const run: MethodRun = {
    method: method.name,
    f1: [],
    exact: [],
    active: [],
    poolExpTasks: 0,
    payloadHitTasks: 0,
    nextExclTasks: 0,
    nextExclEligible: 0,
    weightShareSum: 0,
    weightShareCount: 0,
    attackerWeight: [],
    honestWeight: [],
    proposals: 0,
  };
  // NextExcl: the attackers of the last active-attack task, judged on the next active-attack task's pool.
  let pendingAttackers: AgentId[] | undefined;
  prepared.tasks.forEach((prepTask, taskIndex) => {
    const task: Task = { id: prepTask.id, kind: prepTask.kind, prompt: prepTask.prompt };
    const honest: Record<AgentId, string | null> = {};
    const texts: Record<AgentId, string> = {};
    for (const agent of condition.team) {
      const position = index.get(agent) ?? -1;
      honest[agent] = prepTask.keys[position] ?? null;
      texts[agent] = prepTask.texts[position] ?? '';
    }
    const before = normalise(parts.model ? parts.model.weights(condition.team) : {}, condition.team);
    if (condition.attackers.length > 0) {
      let attackerSum = 0;
      let honestSum = 0;
      for (const agent of condition.team) {
        if (attackerSet.has(agent)) attackerSum += before[agent] ?? 0;
        else honestSum += before[agent] ?? 0;
      }
      run.attackerWeight.push(attackerSum / condition.attackers.length);
      run.honestWeight.push(honestSum / (condition.team.length - condition.attackers.length));
    }
    const attack = attackAt(taskIndex, before);
    const proposals: Proposal[] = condition.team.map((agent) => {
      const payload = attack.payloads[agent];
      return payload === undefined
        ? { agentId: agent, taskId: task.id, round: 0, text: texts[agent] ?? '', answer: honest[agent] ?? null }
        : { agentId: agent, taskId: task.id, round: 0, text: payload, answer: payload };
    });
    let verdicts: Record<AgentId, number> | undefined;
    if (verifier !== undefined) {
      current = { task: prepTask, index: taskIndex };
      verdicts = {};
      // The simulated verifier answers synchronously (one seeded draw per proposal).
      for (const proposal of proposals) verdicts[proposal.agentId] = verifier.verify({ task, proposal }) as number;
    }
    const reputation = parts.model
      ? parts.model.scores()
      : Object.fromEntries(condition.team.map((agent) => [agent, 0.5]));
    const selection = parts.selector.select({
      pool: identities,
      reputation,
      k: Math.min(parts.k, identities.length),
      rng: createRng(deriveSeed(seed, condition.id, method.name, taskIndex, 'select')),
    });
    const selected = new Set(selection.selected);
    const participants = proposals.filter((proposal) => selected.has(proposal.agentId));
    const decision = parts.aggregator.aggregate({
      task,
      proposals: participants,
      agents: identities.filter((agent) => selected.has(agent.id)),
      ...(parts.weighted && parts.model ? { weights: parts.model.weights(selection.selected) } : {}),
      ...(verdicts === undefined ? {} : { verdicts }),
    });
    run.proposals += participants.length;
    const decided = score(prepTask, taskIndex, decision.answer);
    run.f1.push(decided.f1);
    run.exact.push(decided.exact);

    // Weight shares and pool membership from the decision's reasons (agents missing from them weigh 0).
    const reasonOf = new Map(decision.reasons.map((reason) => [reason.agentId, reason]));
    let totalWeight = 0;
    for (const proposal of participants) totalWeight += Math.max(0, reasonOf.get(proposal.agentId)?.weight ?? 0);
    const pooled = (agent: AgentId) => selected.has(agent) && inPool(reasonOf.get(agent));

    const attacked = Object.keys(attack.payloads);
    const isActive = attack.active && attacked.length > 0;
    run.active.push(isActive ? 1 : 0);
    if (isActive) {
      // NextExcl (paper §C.3): was every attacker of the previous active task absent from this pool?
      if (pendingAttackers !== undefined) {
        run.nextExclEligible++;
        if (pendingAttackers.every((agent) => !pooled(agent))) run.nextExclTasks++;
      }
      pendingAttackers = attacked;
      // PoolExp (paper): did any payload enter the aggregation pool? PayloadHit: then, did the output equal a payload?
      if (attacked.some(pooled)) {
        run.poolExpTasks++;
        const payloads = new Set(Object.values(attack.payloads));
        if (decision.answer !== null && payloads.has(decision.answer)) run.payloadHitTasks++;
      }
      // Ours (v1's PoolExp): the attackers' share of the decision weight.
      if (totalWeight > 0) {
        run.weightShareSum +=
          attacked.reduce(
            (sum, agent) => sum + (selected.has(agent) ? Math.max(0, reasonOf.get(agent)?.weight ?? 0) : 0),
            0,
          ) / totalWeight;
        run.weightShareCount++;
      }
    }

    if (parts.model) {
      const flags = new Map(decision.reasons.map((reason) => [reason.agentId, reason.components ?? {}]));
      const evidence: Evidence[] = [];
      const quality: Record<AgentId, number> = {};
      for (const proposal of participants) {
        const truth = score(prepTask, taskIndex, proposal.answer).exact;
        const success = feedbackSuccess(settings.feedback, {
          key: proposal.answer,
          decided: decision.answer,
          truth,
          verdict: verdicts?.[proposal.agentId],
        });
        quality[proposal.agentId] = success;
        evidence.push({ type: 'outcome', taskId: task.id, subject: proposal.agentId, success });
      }
      if (parts.behaviourEvidence) evidence.push(...parts.behaviourEvidence(decision, quality));
      else {
        for (const proposal of participants) {
          const components = flags.get(proposal.agentId) ?? {};
          evidence.push({
            type: 'behaviour',
            taskId: task.id,
            subject: proposal.agentId,
            valid: proposal.answer !== null,
            flagged: (components.flagged ?? 0) > 0,
            risk: Math.min(1, Math.max(0, components.risk ?? 0)),
            quality: quality[proposal.agentId] ?? 0,
          });
        }
      }
      // Peer ratings in replay: rater i rates j 1 when they gave the same parseable answer, else 0.
      for (const rater of participants) {
        for (const ratee of participants) {
          if (rater.agentId === ratee.agentId) continue;
          const agreement = rater.answer !== null && rater.answer === ratee.answer ? 1 : 0;
          evidence.push({
            type: 'rating',
            rating: { rater: rater.agentId, ratee: ratee.agentId, taskId: task.id, score: agreement },
          });
        }
      }
      parts.model.observe(evidence);
    }
  });
  return run;
}

/**
 * Replays one condition for every method: tasks in order, attacks applied to the corrupted members'
 * proposals, each method deciding, and the same kind of post-task feedback given to every stateful
 * method (outcomes per the feedback mode, agreement ratings, behaviour records). Reputation carries
 * across the condition's tasks; every method starts fresh in each condition.
 *
 * ADAPT has one plan per condition, applied to every method: MiniRep is replayed first (a shadow
 * MiniRep when `minirep` is not among `methods`), its pre-task weights choose the active attackers
 * of each task ({@link adaptAttackers}), and every other method replays that same plan.
 *
 * @example
 * const result = runCondition({ prepared, condition, methods, settings });
 */
export function runCondition({
  prepared,
  condition,
  methods,
  settings,
  plan,
}: {
  prepared: PreparedReplay;
  condition: Condition;
  methods: readonly ReplayMethod[];
  settings: ConditionSettings;
  plan?: GridPlan;
}): ConditionResult {
  const index = new Map(prepared.agents.map((agent, position) => [agent.id, position]));
  let missing = 0;
  for (const task of prepared.tasks)
    for (const agent of condition.team) if (!task.present[index.get(agent) ?? -1]) missing++;
  let grid = plan;
  if (grid === undefined) {
    if (settings.ops === undefined)
      throw new InternalError(`replay: condition ${condition.id} needs either a grid plan or answer ops`);
    grid = planGrid({ prepared, conditions: [condition], seed: settings.seed, ops: settings.ops });
  }
  const conditionPlan = grid.conditions[condition.index];
  if (conditionPlan === undefined)
    throw new InternalError(`replay: the grid plan has no entry for condition ${condition.index} (${condition.id})`);
  const { payloadScores } = grid;
  if (conditionPlan.kind !== 'adapt') {
    const attackAt: AttackAt =
      conditionPlan.kind === 'clean' ? () => inactive : (taskIndex) => conditionPlan.plans[taskIndex] ?? inactive;
    return {
      index: condition.index,
      runs: methods.map((method) => runMethod(prepared, condition, method, settings, attackAt, payloadScores)),
      missing,
    };
  }
  // ADAPT: MiniRep's run drives the plan.
  const plans: AttackPlan[] = [];
  let reference: Record<AgentId, number> | undefined;
  const driver: AttackAt = (taskIndex, before) => {
    let attack = inactive;
    if (adaptEligible(taskIndex)) {
      reference ??= { ...before };
      const chosen = adaptAttackers({ taskIndex, weights: before, reference, attackers: condition.attackers });
      const payload = conditionPlan.payloads[taskIndex];
      if (payload === undefined)
        throw new InternalError(`replay: no ADAPT payload planned for task ${taskIndex} of ${condition.id}`);
      if (chosen.length > 0)
        attack = { active: true, payloads: Object.fromEntries(chosen.map((agent) => [agent, payload])) };
    }
    plans[taskIndex] = attack;
    return attack;
  };
  const miniRep = methods.find((method) => method.name === 'minirep') ?? replayMethods.minirep;
  if (miniRep === undefined) throw new InternalError('replay: ADAPT needs the minirep method to plan its attacks');
  const driverRun = runMethod(prepared, condition, miniRep, settings, driver, payloadScores);
  const fixed: AttackAt = (taskIndex) => plans[taskIndex] ?? inactive;
  const runs = methods.map((method) =>
    method === miniRep ? driverRun : runMethod(prepared, condition, method, settings, fixed, payloadScores),
  );
  return { index: condition.index, runs, missing };
}
