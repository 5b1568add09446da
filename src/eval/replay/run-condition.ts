import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { Proposal } from '../../core/proposal.js';
import { createRng, deriveSeed, seedDeriver } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import type { Evidence } from '../../reputation/reputation-model.js';
import type { WeightReason } from '../../core/trace.js';
import { InternalError } from '../../core/errors.js';
import type { AnswerOps } from './answer-ops.js';
import { adaptAttackers, adaptEligible, type AttackPlan } from './attacks.js';
import type { ReplayMethod } from './method.js';
import { replayMethods } from './methods.js';
import { planGrid, type GridPlan } from './plan-grid.js';
import { createReplayJudge } from './replay-verifier.js';
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
    throw new InternalError(
      'replay: verifier feedback without a verdict; the run needs a verifier (simulated or judge)',
    );
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
const noVotes: Readonly<Record<AgentId, number>> = {};

/**
 * The attack on task `taskIndex`, given the running method's pre-task model weights (`undefined`
 * without a model or attackers; only ADAPT's driver reads them).
 */
type AttackAt = (taskIndex: number, raw: Readonly<Record<AgentId, number>> | undefined) => AttackPlan;

/** Whether a participant's proposal entered the aggregation pool: MiniRep's `pooled` flag where given, else a positive final weight. */
function inPool(reason: { weight: number; components?: Readonly<Record<string, number>> } | undefined): boolean {
  if (reason === undefined) return false;
  const pooled = reason.components?.pooled;
  return pooled === undefined ? reason.weight > 0 : pooled > 0;
}

/** What every method of a condition sees on one task: the team's proposals under that task's attack. */
interface TaskView {
  /** One proposal per team member, in team order. */
  readonly proposals: readonly Proposal[];
  /** The attackers with a payload on this task (`Object.keys(attack.payloads)`). */
  readonly attacked: readonly AgentId[];
}

/** Per-condition state shared by all methods of the condition, built once in {@link runCondition}. */
interface ConditionFrame {
  readonly prepared: PreparedReplay;
  readonly condition: Condition;
  readonly settings: ConditionSettings;
  readonly payloadScores: GridPlan['payloadScores'];
  readonly identities: readonly AgentIdentity[];
  /** Pool index of each team member. */
  readonly positions: readonly number[];
  readonly attackerSet: ReadonlySet<AgentId>;
  /** The `Task` every decision path gets, per sampled task. */
  readonly tasks: readonly Task[];
  /** Flat reputation for selectors of methods without a model. */
  readonly flat: Readonly<Record<AgentId, number>>;
}

const taskCache = new WeakMap<PreparedReplay, readonly Task[]>();
function tasksOf(prepared: PreparedReplay): readonly Task[] {
  let tasks = taskCache.get(prepared);
  if (tasks === undefined) {
    tasks = prepared.tasks.map((task) => ({ id: task.id, kind: task.kind, prompt: task.prompt }));
    taskCache.set(prepared, tasks);
  }
  return tasks;
}

function scoreIn(frame: ConditionFrame, task: PreparedTask, taskIndex: number, key: string | null): KeyScore {
  if (key === null) return zero;
  if (Object.hasOwn(task.scores, key)) return task.scores[key] as KeyScore;
  const known = frame.payloadScores[taskIndex]?.get(key);
  if (known !== undefined) return known;
  const ops = frame.settings.ops;
  if (ops === undefined)
    throw new InternalError(
      `replay: key ${JSON.stringify(key)} of task ${task.id} is neither an honest key nor a planned payload, and no answer ops were given to score it`,
    );
  return ops.score(task.kind, key, task.reference);
}

// Each pool member's honest proposal on each task, built once per prepared replay and shared by every
// condition and method (proposals are read-only inputs of the decision paths). One flat table, task-major
// (task t, pool position p at t·n + p): rows filled in different orders would be arrays of different
// element kinds, and the optimised task loop would be deoptimised at every switch between them.
const honestCache = new WeakMap<PreparedReplay, (Proposal | undefined)[]>();
function honestProposal(prepared: PreparedReplay, taskIndex: number, position: number): Proposal {
  let table = honestCache.get(prepared);
  if (table === undefined) {
    table = new Array<Proposal | undefined>(prepared.tasks.length * prepared.agents.length).fill(undefined);
    honestCache.set(prepared, table);
  }
  const at = taskIndex * prepared.agents.length + position;
  let proposal = table[at];
  if (proposal === undefined) {
    const task = prepared.tasks[taskIndex] as PreparedTask;
    proposal = {
      agentId: (prepared.agents[position] as AgentIdentity).id,
      taskId: task.id,
      round: 0,
      text: task.texts[position] ?? '',
      answer: task.keys[position] ?? null,
    };
    table[at] = proposal;
  }
  return proposal;
}

function viewOf(frame: ConditionFrame, taskIndex: number, attack: AttackPlan): TaskView {
  const taskId = (frame.prepared.tasks[taskIndex] as PreparedTask).id;
  const team = frame.condition.team;
  // Pushed, not written into `new Array(n)`: a packed array, like the filtered participants of
  // methods that select, so the task loop sees one kind of array.
  const proposals: Proposal[] = [];
  for (let slot = 0; slot < team.length; slot++) {
    const agent = team[slot] as AgentId;
    const payload = attack.payloads[agent];
    proposals.push(
      payload === undefined
        ? honestProposal(frame.prepared, taskIndex, frame.positions[slot] as number)
        : { agentId: agent, taskId, round: 0, text: payload, answer: payload },
    );
  }
  return { proposals, attacked: Object.keys(attack.payloads) };
}

function ratingsOf(participants: readonly Proposal[], taskId: string): Evidence[] {
  // Peer ratings in replay: rater i rates j 1 when they gave the same parseable answer, else 0.
  const ratings: Evidence[] = [];
  for (const rater of participants) {
    for (const ratee of participants) {
      if (rater.agentId === ratee.agentId) continue;
      const agreement = rater.answer !== null && rater.answer === ratee.answer ? 1 : 0;
      ratings.push({
        type: 'rating',
        rating: { rater: rater.agentId, ratee: ratee.agentId, taskId, score: agreement },
      });
    }
  }
  return ratings;
}

/** One method replaying one condition, a task at a time: `step(t)` decides task t and feeds back; `run` holds the counts. */
interface MethodStepper {
  readonly run: MethodRun;
  step(taskIndex: number): void;
}

function createMethodStepper(frame: ConditionFrame, method: ReplayMethod, attackAt: AttackAt): MethodStepper {
  const { prepared, condition, settings, identities, attackerSet } = frame;
  const { seed } = settings;
  const team = condition.team;
  const taskCount = prepared.tasks.length;
  const parts = method.create({ team: identities, seed: deriveSeed(seed, condition.id, method.name) });
  // deriveSeed(seed, condition.id, method.name, taskIndex, 'select'), the prefix hashed once.
  const selectSeed = seedDeriver(seed, condition.id, method.name);
  const model = parts.model;
  const everyAgent = parts.everyAgent === true;
  const reads = parts.reads ?? ['outcome', 'behaviour', 'rating'];
  const readsOutcomes = reads.includes('outcome');
  const readsBehaviour = reads.includes('behaviour');
  const readsRatings = reads.includes('rating');
  // The shared post-task assessment as each peer observes it, for models that learn from observations
  // (EigenTrust, DRF); under consensus feedback the agreement ratings already carry the team's view.
  const sendsObservations = reads.includes('observation') && settings.feedback !== 'consensus';
  // The run's verifier for this condition (replay-verifier.ts): the same verdicts for every method of
  // the condition, and with the correlated model or a judge, for every condition too.
  const judge = createReplayJudge({ prepared, settings: settings.verifier, seed, conditionId: condition.id });
  const attackedCondition = condition.attackers.length > 0;
  const run: MethodRun = {
    method: method.name,
    f1: new Float64Array(taskCount),
    exact: new Float64Array(taskCount),
    active: new Uint8Array(taskCount),
    poolExpTasks: 0,
    payloadHitTasks: 0,
    nextExclTasks: 0,
    nextExclEligible: 0,
    weightShareSum: 0,
    weightShareCount: 0,
    attackerWeight: new Float64Array(attackedCondition ? taskCount : 0),
    honestWeight: new Float64Array(attackedCondition ? taskCount : 0),
    proposals: 0,
  };
  // NextExcl: the attackers of the last active-attack task, judged on the next active-attack task's pool.
  let pendingAttackers: readonly AgentId[] | undefined;
  const step = (taskIndex: number): void => {
    const prepTask = prepared.tasks[taskIndex] as PreparedTask;
    const task = frame.tasks[taskIndex] as Task;
    // Pre-task weights: read by ADAPT's driver and the trajectories, i.e. only under attack (a clean
    // condition's attack ignores them, and model reads do not change the model).
    const raw = model && attackedCondition ? model.weights(team) : undefined;
    if (attackedCondition) {
      // The trajectories: mean normalised weight of attackers and of honest members (as normalise()).
      const weights = raw ?? noVotes;
      let total = 0;
      for (const agent of team) total += Math.max(0, weights[agent] ?? 0);
      let attackerSum = 0;
      let honestSum = 0;
      for (const agent of team) {
        const share = total > 0 ? Math.max(0, weights[agent] ?? 0) / total : 1 / team.length;
        if (attackerSet.has(agent)) attackerSum += share;
        else honestSum += share;
      }
      run.attackerWeight[taskIndex] = attackerSum / condition.attackers.length;
      run.honestWeight[taskIndex] = honestSum / (team.length - condition.attackers.length);
    }
    const attack = attackAt(taskIndex, raw);
    const view = viewOf(frame, taskIndex, attack);
    const proposals = view.proposals;
    let verdicts: Record<AgentId, number> | undefined;
    if (judge !== undefined) {
      verdicts = {};
      for (const proposal of proposals)
        verdicts[proposal.agentId] = judge(
          taskIndex,
          task,
          proposal,
          () => scoreIn(frame, prepTask, taskIndex, proposal.answer).exact > 0.5,
        );
    }
    let selectedIds: readonly AgentId[];
    let participants: readonly Proposal[];
    let agents: readonly AgentIdentity[];
    let selected: ReadonlySet<AgentId> | undefined;
    if (everyAgent) {
      // The `all` selector takes the whole team, in team order, without a draw.
      selectedIds = team;
      participants = proposals;
      agents = identities;
    } else {
      const selection = parts.selector.select({
        pool: identities,
        reputation: model ? model.scores() : frame.flat,
        k: Math.min(parts.k, identities.length),
        rng: createRng(selectSeed(taskIndex, 'select')),
        // Only the team is read here; selectors skip building per-agent reasons.
        reasons: false,
      });
      const chosen = new Set(selection.selected);
      selected = chosen;
      selectedIds = selection.selected;
      participants = proposals.filter((proposal) => chosen.has(proposal.agentId));
      agents = identities.filter((agent) => chosen.has(agent.id));
    }
    const isSelected = (agent: AgentId) => selected === undefined || selected.has(agent);
    // With the whole team taking part, the aggregator's weights are the pre-task weights already read.
    const weights =
      parts.weighted && model
        ? raw !== undefined && selectedIds === team
          ? raw
          : model.weights(selectedIds)
        : undefined;
    const decision = parts.aggregator.aggregate({
      task,
      proposals: participants as Proposal[],
      agents: agents as AgentIdentity[],
      ...(weights === undefined ? {} : { weights }),
      ...(verdicts === undefined ? {} : { verdicts }),
      // Replay reads the decision's answer and reasons only: no explanation text, no support record.
      notes: false,
      support: false,
    });
    run.proposals += participants.length;
    const decided = scoreIn(frame, prepTask, taskIndex, decision.answer);
    run.f1[taskIndex] = decided.f1;
    run.exact[taskIndex] = decided.exact;

    const attacked = view.attacked;
    const isActive = attack.active && attacked.length > 0;
    run.active[taskIndex] = isActive ? 1 : 0;
    // The decision's reason for an agent (the last one where an agent has several): a scan of a team-sized
    // list, which allocates nothing, where a map built per task cost a run about 360 MB of garbage.
    const reasonOf = (agent: AgentId): WeightReason | undefined => {
      const reasons = decision.reasons;
      for (let index = reasons.length - 1; index >= 0; index--)
        if ((reasons[index] as WeightReason).agentId === agent) return reasons[index];
      return undefined;
    };
    if (isActive) {
      // Weight shares and pool membership from the decision's reasons (agents missing from them weigh 0).
      const pooled = (agent: AgentId) => isSelected(agent) && inPool(reasonOf(agent));
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
      let totalWeight = 0;
      for (const proposal of participants) totalWeight += Math.max(0, reasonOf(proposal.agentId)?.weight ?? 0);
      if (totalWeight > 0) {
        run.weightShareSum +=
          attacked.reduce(
            (sum, agent) => sum + (isSelected(agent) ? Math.max(0, reasonOf(agent)?.weight ?? 0) : 0),
            0,
          ) / totalWeight;
        run.weightShareCount++;
      }
    }

    if (model) {
      // Outcomes, behaviour records, agreement ratings and observations, in that order, of the kinds
      // the model reads.
      const evidence: Evidence[] = [];
      const successes = new Array<number>(participants.length);
      for (let index = 0; index < participants.length; index++) {
        const proposal = participants[index] as Proposal;
        // The proposal's correctness, read only under truth feedback.
        const truth = settings.feedback === 'truth' ? scoreIn(frame, prepTask, taskIndex, proposal.answer).exact : 0;
        const success = feedbackSuccess(settings.feedback, {
          key: proposal.answer,
          decided: decision.answer,
          truth,
          verdict: verdicts?.[proposal.agentId],
        });
        successes[index] = success;
        if (readsOutcomes) evidence.push({ type: 'outcome', taskId: task.id, subject: proposal.agentId, success });
      }
      if (parts.behaviourEvidence) {
        // Each participant's feedback success by agent (a later proposal of the same agent wins). Called
        // even when the model does not read behaviour: the aggregator learns from its own feedback.
        const quality: Record<AgentId, number> = {};
        for (let index = 0; index < participants.length; index++)
          quality[(participants[index] as Proposal).agentId] = successes[index] as number;
        const behaviour = parts.behaviourEvidence(decision, quality);
        if (readsBehaviour) evidence.push(...behaviour);
      } else if (readsBehaviour) {
        for (let index = 0; index < participants.length; index++) {
          const proposal = participants[index] as Proposal;
          const components = reasonOf(proposal.agentId)?.components ?? {};
          evidence.push({
            type: 'behaviour',
            taskId: task.id,
            subject: proposal.agentId,
            valid: proposal.answer !== null,
            flagged: (components.flagged ?? 0) > 0,
            risk: Math.min(1, Math.max(0, components.risk ?? 0)),
            quality: successes[index] as number,
          });
        }
      }
      const batch = readsRatings ? evidence.concat(ratingsOf(participants, task.id)) : evidence;
      if (sendsObservations) {
        // Participant i observes participant j's success (the verdict or the truth), for every i ≠ j.
        for (const observer of participants)
          for (let index = 0; index < participants.length; index++) {
            const subject = (participants[index] as Proposal).agentId;
            if (subject === observer.agentId) continue;
            batch.push({
              type: 'outcome',
              taskId: task.id,
              subject,
              observer: observer.agentId,
              success: successes[index] as number,
            });
          }
      }
      model.observe(batch);
    }
  };
  return { run, step };
}

/**
 * Steps each method through every task before the next method starts: one method's run keeps its
 * own state, code and data hot, which takes about 12% less time for the full grid than stepping all
 * methods task by task, although each method builds its own view of every task.
 */
function stepEachMethod(frame: ConditionFrame, steppers: readonly MethodStepper[]): void {
  const taskCount = frame.prepared.tasks.length;
  for (const stepper of steppers) for (let taskIndex = 0; taskIndex < taskCount; taskIndex++) stepper.step(taskIndex);
}

/**
 * Replays one condition for every method: tasks in order, attacks applied to the corrupted members'
 * proposals, each method deciding, and the same kind of post-task feedback given to every stateful
 * method (outcomes per the feedback mode, agreement ratings, behaviour records). Reputation carries
 * across the condition's tasks; every method starts fresh in each condition. Each method runs through
 * all the tasks in turn and builds each task's proposals as it reaches the task, so only the current
 * task's proposals are held, whatever the number of tasks.
 *
 * ADAPT has one plan per condition, applied to every method: MiniRep runs first (a shadow MiniRep
 * when `minirep` is not among `methods`), its pre-task weights choose the active attackers of each
 * task ({@link adaptAttackers}), and every other method then replays those same attacks. The
 * condition's methods can also be replayed in two calls: one with `reportAttacks`, whose result
 * carries the attacks MiniRep chose, and one given those `attacks`, which runs no MiniRep.
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
  attacks: chosenAttacks,
  reportAttacks = false,
}: {
  prepared: PreparedReplay;
  condition: Condition;
  methods: readonly ReplayMethod[];
  settings: ConditionSettings;
  plan?: GridPlan;
  /**
   * ADAPT only: the attacks an earlier MiniRep run of this condition chose (its result's `attacks`);
   * the methods replay them and no MiniRep drives the plan. @default undefined
   */
  attacks?: readonly AttackPlan[] | undefined;
  /** ADAPT only: return the attacks MiniRep's run chose in the result's `attacks`. @default false */
  reportAttacks?: boolean;
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
  const identities = condition.team.map((id) => prepared.agents[index.get(id) ?? -1] as AgentIdentity);
  const frame: ConditionFrame = {
    prepared,
    condition,
    settings,
    payloadScores: grid.payloadScores,
    identities,
    positions: condition.team.map((id) => index.get(id) ?? -1),
    attackerSet: new Set(condition.attackers),
    tasks: tasksOf(prepared),
    flat: Object.fromEntries(condition.team.map((agent) => [agent, 0.5])),
  };
  // Every method replays the same attack per task, fixed before any method runs.
  const replayFixed = (attackAt: AttackAt): ConditionResult => {
    const steppers = methods.map((method) => createMethodStepper(frame, method, attackAt));
    stepEachMethod(frame, steppers);
    return { index: condition.index, runs: steppers.map((stepper) => stepper.run), missing };
  };
  if (conditionPlan.kind !== 'adapt')
    return replayFixed(
      conditionPlan.kind === 'clean' ? () => inactive : (taskIndex) => conditionPlan.plans[taskIndex] ?? inactive,
    );
  if (chosenAttacks !== undefined) {
    if (chosenAttacks.length !== prepared.tasks.length)
      throw new InternalError(
        `replay: ${chosenAttacks.length} ADAPT attacks given for the ${prepared.tasks.length} tasks of ${condition.id}`,
      );
    return replayFixed((taskIndex) => chosenAttacks[taskIndex] ?? inactive);
  }
  // ADAPT: MiniRep's run drives the plan (its pre-task weights choose each task's attackers); it runs
  // first, and every other method then replays the attacks it chose, task by task.
  const attacks: AttackPlan[] = new Array(prepared.tasks.length).fill(inactive);
  let reference: Record<AgentId, number> | undefined;
  const driver: AttackAt = (taskIndex, raw) => {
    let attack = inactive;
    if (adaptEligible(taskIndex)) {
      const before = normalise(raw ?? noVotes, condition.team);
      reference ??= { ...before };
      const chosen = adaptAttackers({ taskIndex, weights: before, reference, attackers: condition.attackers });
      const payload = conditionPlan.payloads[taskIndex];
      if (payload === undefined)
        throw new InternalError(`replay: no ADAPT payload planned for task ${taskIndex} of ${condition.id}`);
      if (chosen.length > 0)
        attack = { active: true, payloads: Object.fromEntries(chosen.map((agent) => [agent, payload])) };
    }
    attacks[taskIndex] = attack;
    return attack;
  };
  const miniRep = methods.find((method) => method.name === 'minirep') ?? replayMethods.minirep;
  if (miniRep === undefined) throw new InternalError('replay: ADAPT needs the minirep method to plan its attacks');
  const driverStepper = createMethodStepper(frame, miniRep, driver);
  const chosen: AttackAt = (taskIndex) => attacks[taskIndex] as AttackPlan;
  const steppers = methods.map((method) =>
    method === miniRep ? driverStepper : createMethodStepper(frame, method, chosen),
  );
  stepEachMethod(frame, [driverStepper, ...steppers.filter((stepper) => stepper !== driverStepper)]);
  const runs = steppers.map((stepper) => stepper.run);
  return { index: condition.index, runs, missing, ...(reportAttacks ? { attacks } : {}) };
}
