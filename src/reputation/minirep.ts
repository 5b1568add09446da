// MiniRep reputation state: per agent a slow and a fast exponential moving average of quality
// (Hunter 1986, EWMA; two speeds separate long-run reliability from recent behaviour, as in
// Teacy et al. 2006, TRAVOS), a list of
// suspicious-behaviour records whose MAXIMUM is the current risk (so a high recorded risk is never
// averaged away; see the survey of Jøsang, Ismail & Boyd 2007), a cooldown after a
// flagged proposal and a decay of suspicion only after consecutive clean proposals.
//   L ← (1 − α_L)·L + α_L·q        R ← (1 − α_R)·R + α_R·q
//   risk = max(records)            H = w_L·L + (1 − w_L)·R        score = H · (1 − risk)
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { resolveOptions } from '../core/options.js';
import { assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import {
  RosterReputationModel,
  readArray,
  readCount,
  readNumber,
  readObject,
  readSnapshotEnvelope,
  readAgentId,
} from './_shared.js';
import type { Evidence, ReputationSnapshot, ScoreExplanation } from './reputation-model.js';
import { validateEvidenceBatch } from './validate-evidence.js';

/** Options of the MiniRep reputation model. */
export interface MiniRepModelOptions {
  /** Rate α_L in (0, 1] of the slow (long-term) quality average. @default 0.05 */
  readonly longTermRate?: number;
  /** Rate α_R in (0, 1] of the fast (recent) quality average. @default 0.3 */
  readonly recentRate?: number;
  /** Weight w_L in [0, 1] of long-term quality in the historical quality H. @default 0.7 */
  readonly longTermWeight?: number;
  /** Quality of an agent without evidence, in [0, 1]. @default 0.5 */
  readonly prior?: number;
  /** Tasks of cooldown after a flagged valid proposal; MiniRep requires at least 3. @default 3 */
  readonly cooldownTasks?: number;
  /** Consecutive clean proposals needed before suspicion decays, ≥ 1. @default 3 */
  readonly cleanStreak?: number;
  /** Factor in [0, 1) applied to every risk record after each run of `cleanStreak` clean proposals. @default 0.5 */
  readonly suspicionDecay?: number;
  /** A proposal is clean when it is not flagged and its risk is below this, in (0, 1]. @default 0.2 */
  readonly cleanRiskThreshold?: number;
  /** Risk recorded for a flagged proposal whose reported risk is lower, in [0, 1]. @default 0.5 */
  readonly flaggedRisk?: number;
}

/** Default MiniRep model parameters. */
export const miniRepModelDefaults: Required<MiniRepModelOptions> = {
  longTermRate: 0.05,
  recentRate: 0.3,
  longTermWeight: 0.7,
  prior: 0.5,
  cooldownTasks: 3,
  cleanStreak: 3,
  suspicionDecay: 0.5,
  cleanRiskThreshold: 0.2,
  flaggedRisk: 0.5,
};

/** One agent's MiniRep state. */
export interface MiniRepAgentState {
  /** Slow EMA of quality L, in [0, 1]. */
  readonly longTerm: number;
  /** Fast EMA of quality R, in [0, 1]. */
  readonly recent: number;
  /** Suspicious-behaviour records, each a risk in (0, 1]; the maximum is the current risk. */
  readonly records: readonly number[];
  /** Tasks of cooldown left (> 0 = in cooldown for the next task). */
  readonly cooldown: number;
  /** Consecutive clean proposals since the last suspicious one or the last decay. */
  readonly cleanStreak: number;
  /** Number of flagged proposals seen. */
  readonly flags: number;
  /** Number of (task, agent) observations applied. */
  readonly evidenceCount: number;
}

/** Records below this risk are dropped: they no longer change anything visible. */
const negligibleRisk = 1e-3;
/** At most this many records are kept (the largest ones, so the maximum is unaffected). */
const maxRecords = 16;

/**
 * Historical quality H = w_L · L + (1 − w_L) · R.
 *
 * @example
 * miniRepHistory({ longTerm: 0.8, recent: 0.2 }, 0.4); // 0.4·0.8 + 0.6·0.2 = 0.44
 */
export function miniRepHistory(
  state: Pick<MiniRepAgentState, 'longTerm' | 'recent'>,
  longTermWeight = miniRepModelDefaults.longTermWeight,
): number {
  return longTermWeight * state.longTerm + (1 - longTermWeight) * state.recent;
}

/** Current risk = max of the records (0 without records). */
export function miniRepRisk(records: readonly number[]): number {
  return records.reduce((max, value) => Math.max(max, value), 0);
}

/** One (task, agent) observation of an evidence batch, as {@link MiniRepReputationModel.observe} merges it. */
interface Observation {
  readonly subject: AgentId;
  behaviour: { valid: boolean; flagged: boolean; risk: number; quality: number; count: number } | undefined;
  /** Outcomes seen and the sum of their successes (averaged, summed left to right). */
  outcomes: number;
  outcomeSum: number;
}

const knownMiniRepModelOptions = defineOptionKeys<{ agents: unknown } & MiniRepModelOptions>()([
  'agents',
  'longTermRate',
  'recentRate',
  'longTermWeight',
  'prior',
  'cooldownTasks',
  'cleanStreak',
  'suspicionDecay',
  'cleanRiskThreshold',
  'flaggedRisk',
]);

/**
 * The `minirep` reputation model. It uses `behaviour` evidence (validity, flag, risk, quality of an
 * agent's proposal once the task's answer is fixed) and `outcome` evidence (its `success` is the
 * quality; when both arrive for the same task and agent in one batch the outcome's success replaces
 * the behaviour quality, and several outcomes are averaged; several behaviour records merge into one:
 * valid only if all are, flagged if any is, the highest risk, the mean quality). `rating` and
 * `witness` evidence are ignored. Send one batch per task, after the decision: each (task, agent) pair in a batch is one
 * observation, and the cooldown counts observations.
 *
 * Per observation with quality q, risk r, flagged f, valid v:
 * 1. L ← (1 − α_L)·L + α_L·q and R ← (1 − α_R)·R + α_R·q;
 * 2. the cooldown counts down by one; if f and v, it restarts at `cooldownTasks`;
 * 3. if f or r > 0, record max(r, f ? flaggedRisk : 0) (records are never averaged; risk = max);
 * 4. clean (not f and r < cleanRiskThreshold) extends the streak; after `cleanStreak` clean
 *    proposals in a row every record is multiplied by `suspicionDecay` and the streak restarts;
 *    anything else resets the streak to 0.
 * score = H · (1 − risk), H = w_L·L + (1 − w_L)·R, in [0, 1]. The cooldown does not enter the score;
 * `explain` reports it (`components.cooldown`) and the MiniRep aggregator applies it.
 */
export class MiniRepReputationModel extends RosterReputationModel {
  readonly name = 'minirep';
  #parameters: Required<MiniRepModelOptions>;
  #states = new Map<AgentId, MiniRepAgentState>();

  constructor(options: { agents: readonly AgentId[] } & MiniRepModelOptions) {
    assertKnownOptions('options', options, knownMiniRepModelOptions, 'new MiniRepReputationModel');
    const { agents, ...modelOptions } = options;
    const parameters = resolveMiniRepOptions(modelOptions);
    super(agents);
    this.#parameters = parameters;
  }

  /** The model's parameters. */
  get parameters(): Required<MiniRepModelOptions> {
    return { ...this.#parameters };
  }

  observe(evidence: readonly Evidence[]): void {
    validateEvidenceBatch(evidence, this.roster);
    // One observation per (task, agent), in first-seen order; a batch usually holds one task.
    const observations: Observation[] = [];
    const byTask = new Map<string, Map<AgentId, Observation>>();
    for (const item of evidence) {
      if (item.type !== 'behaviour' && item.type !== 'outcome') continue;
      let bySubject = byTask.get(item.taskId);
      if (bySubject === undefined) byTask.set(item.taskId, (bySubject = new Map()));
      let entry = bySubject.get(item.subject);
      if (entry === undefined) {
        entry = { subject: item.subject, behaviour: undefined, outcomes: 0, outcomeSum: 0 };
        bySubject.set(item.subject, entry);
        observations.push(entry);
      }
      if (item.type === 'outcome') {
        entry.outcomes++;
        entry.outcomeSum += item.success;
      } else if (entry.behaviour === undefined) {
        entry.behaviour = {
          valid: item.valid,
          flagged: item.flagged,
          risk: item.risk,
          quality: item.quality,
          count: 1,
        };
      } else {
        // Several records for one agent and task merge conservatively: any flag, the highest risk.
        const held = entry.behaviour;
        entry.behaviour = {
          valid: held.valid && item.valid,
          flagged: held.flagged || item.flagged,
          risk: Math.max(held.risk, item.risk),
          quality: (held.quality * held.count + item.quality) / (held.count + 1),
          count: held.count + 1,
        };
      }
    }
    for (const entry of observations) {
      const outcome = entry.outcomes > 0 ? entry.outcomeSum / entry.outcomes : undefined;
      const quality = outcome ?? entry.behaviour?.quality ?? this.#parameters.prior;
      this.#states.set(
        entry.subject,
        updateMiniRepState(
          this.#state(entry.subject),
          {
            quality,
            valid: entry.behaviour?.valid ?? true,
            flagged: entry.behaviour?.flagged ?? false,
            risk: entry.behaviour?.risk ?? 0,
          },
          this.#parameters,
        ),
      );
    }
  }

  /** A copy of one agent's state; unknown ids throw `NotFoundError`. */
  state(agentId: AgentId): MiniRepAgentState {
    this.roster.require(agentId);
    const state = this.#state(agentId);
    return { ...state, records: [...state.records] };
  }

  /** Historical quality H = w_L·L + (1 − w_L)·R in [0, 1], before risk. */
  history(agentId: AgentId): number {
    this.roster.require(agentId);
    return miniRepHistory(this.#state(agentId), this.#parameters.longTermWeight);
  }

  /** Current risk = max(records) in [0, 1]. */
  risk(agentId: AgentId): number {
    this.roster.require(agentId);
    return miniRepRisk(this.#state(agentId).records);
  }

  /** Tasks of cooldown left; > 0 means the agent's next proposal is in cooldown. */
  cooldown(agentId: AgentId): number {
    this.roster.require(agentId);
    return this.#state(agentId).cooldown;
  }

  score(agentId: AgentId): number {
    this.roster.require(agentId);
    const state = this.#state(agentId);
    // score = H · (1 − risk)
    return clamp01(miniRepHistory(state, this.#parameters.longTermWeight) * (1 - miniRepRisk(state.records)));
  }

  explain(agentId: AgentId): ScoreExplanation {
    const score = this.score(agentId);
    const state = this.#state(agentId);
    const history = miniRepHistory(state, this.#parameters.longTermWeight);
    const risk = miniRepRisk(state.records);
    return {
      agentId,
      score,
      components: {
        longTerm: state.longTerm,
        recent: state.recent,
        history,
        risk,
        cooldown: state.cooldown,
        cleanStreak: state.cleanStreak,
        records: state.records.length,
        flags: state.flags,
      },
      evidenceCount: state.evidenceCount,
      summary:
        `${agentId}: history ${format(history)} (long-term ${format(state.longTerm)}, recent ${format(state.recent)}), risk ${format(risk)}` +
        `${state.cooldown > 0 ? `, in cooldown for ${state.cooldown} more task(s)` : ''}, score ${format(history)} × (1 − ${format(risk)}) = ${format(score)}`,
    };
  }

  snapshot(): ReputationSnapshot {
    const agents = this.roster.list();
    return {
      schemaVersion: 1,
      model: this.name,
      agents,
      state: {
        parameters: { ...this.#parameters },
        agents: agents.map((agentId) => {
          const state = this.#state(agentId);
          return { agentId, ...state, records: [...state.records] };
        }),
      },
    };
  }

  /** Replaces agents, states and parameters with the snapshot's. */
  restore(snapshot: ReputationSnapshot): void {
    const { agents, state } = readSnapshotEnvelope(snapshot, this.name);
    const parameters = resolveMiniRepOptions(
      readObject(state.parameters, 'snapshot.state.parameters') as MiniRepModelOptions,
      'snapshot.state.parameters',
    );
    const states = new Map<AgentId, MiniRepAgentState>();
    readArray(state.agents, 'snapshot.state.agents').forEach((entry, index) => {
      const path = `snapshot.state.agents[${index}]`;
      const record = readObject(entry, path);
      const agentId = readAgentId(record.agentId, `${path}.agentId`, agents);
      states.set(agentId, {
        longTerm: readNumber(record.longTerm, `${path}.longTerm`, 0, 1),
        recent: readNumber(record.recent, `${path}.recent`, 0, 1),
        records: readArray(record.records, `${path}.records`).map((value, recordIndex) =>
          readNumber(value, `${path}.records[${recordIndex}]`, 0, 1),
        ),
        cooldown: readCount(record.cooldown, `${path}.cooldown`),
        cleanStreak: readCount(record.cleanStreak, `${path}.cleanStreak`),
        flags: readCount(record.flags, `${path}.flags`),
        evidenceCount: readCount(record.evidenceCount, `${path}.evidenceCount`),
      });
    });
    this.#parameters = parameters;
    // Evidence counts live in each agent's state here, so the base's counter stays empty.
    this.replaceRoster(agents, new Map());
    this.#states = states;
  }

  #state(agentId: AgentId): MiniRepAgentState {
    return this.#states.get(agentId) ?? initialMiniRepState(this.#parameters.prior);
  }
}

/** State of an agent without evidence: both averages at the prior, no records, no cooldown. */
export function initialMiniRepState(prior = miniRepModelDefaults.prior): MiniRepAgentState {
  return { longTerm: prior, recent: prior, records: [], cooldown: 0, cleanStreak: 0, flags: 0, evidenceCount: 0 };
}

/**
 * One MiniRep state update (pure): see {@link MiniRepReputationModel} for the four steps.
 *
 * @example
 * updateMiniRepState(initialMiniRepState(), { quality: 1, valid: true, flagged: false, risk: 0 }, miniRepModelDefaults).recent; // 0.7·0.5 + 0.3·1 = 0.65
 */
export function updateMiniRepState(
  state: MiniRepAgentState,
  observation: { quality: number; valid: boolean; flagged: boolean; risk: number },
  parameters: Required<MiniRepModelOptions>,
): MiniRepAgentState {
  const { quality, valid, flagged, risk } = observation;
  // L ← (1 − α_L)·L + α_L·q ;  R ← (1 − α_R)·R + α_R·q
  const longTerm = clamp01((1 - parameters.longTermRate) * state.longTerm + parameters.longTermRate * quality);
  const recent = clamp01((1 - parameters.recentRate) * state.recent + parameters.recentRate * quality);
  // The cooldown counts this task, then restarts after a flagged valid proposal.
  let cooldown = Math.max(0, state.cooldown - 1);
  if (flagged && valid) cooldown = Math.max(cooldown, parameters.cooldownTasks);
  let records = state.records.slice();
  const recorded = Math.max(risk, flagged ? parameters.flaggedRisk : 0);
  if (recorded > 0) records.push(recorded);
  let cleanStreak = state.cleanStreak;
  if (!flagged && risk < parameters.cleanRiskThreshold) {
    cleanStreak += 1;
    if (cleanStreak >= parameters.cleanStreak) {
      // Suspicion decays only after `cleanStreak` consecutive clean proposals: records ← decay · records.
      records = records.map((value) => value * parameters.suspicionDecay);
      cleanStreak = 0;
    }
  } else {
    cleanStreak = 0;
  }
  records = records.filter((value) => value >= negligibleRisk);
  if (records.length > maxRecords) records = records.sort((left, right) => right - left).slice(0, maxRecords);
  return {
    longTerm,
    recent,
    records,
    cooldown,
    cleanStreak,
    flags: state.flags + (flagged ? 1 : 0),
    evidenceCount: state.evidenceCount + 1,
  };
}

/** Validates and fills MiniRep options. */
export function resolveMiniRepOptions(
  options: MiniRepModelOptions | undefined,
  parameter = 'options',
): Required<MiniRepModelOptions> {
  const resolved = resolveOptions(miniRepModelDefaults, options);
  assertInRange(`${parameter}.longTermRate`, resolved.longTermRate, 0, 1, {
    minExclusive: true,
    hint: 'pass e.g. 0.05',
  });
  assertInRange(`${parameter}.recentRate`, resolved.recentRate, 0, 1, { minExclusive: true, hint: 'pass e.g. 0.3' });
  assertInRange(`${parameter}.longTermWeight`, resolved.longTermWeight, 0, 1, { hint: 'pass e.g. 0.7' });
  assertInRange(`${parameter}.prior`, resolved.prior, 0, 1, { hint: 'pass e.g. 0.5' });
  assertInteger(
    `${parameter}.cooldownTasks`,
    resolved.cooldownTasks,
    3,
    1_000_000,
    'MiniRep keeps a flagged agent in cooldown for at least 3 tasks',
  );
  assertInteger(`${parameter}.cleanStreak`, resolved.cleanStreak, 1, 1_000_000, 'pass e.g. 3');
  assertInRange(`${parameter}.suspicionDecay`, resolved.suspicionDecay, 0, 1, {
    maxExclusive: true,
    hint: 'pass e.g. 0.5',
  });
  assertInRange(`${parameter}.cleanRiskThreshold`, resolved.cleanRiskThreshold, 0, 1, {
    minExclusive: true,
    hint: 'pass e.g. 0.2',
  });
  assertInRange(`${parameter}.flaggedRisk`, resolved.flaggedRisk, 0, 1, { hint: 'pass e.g. 0.5' });
  return resolved;
}

/**
 * Creates a MiniRep reputation model over `agents` (see {@link MiniRepReputationModel}).
 *
 * @example
 * const model = createMiniRepModel({ agents: ['a1', 'a2'] });
 * model.observe([{ type: 'behaviour', taskId: 't1', subject: 'a1', valid: true, flagged: false, risk: 0, quality: 1 }]);
 * model.score('a1'); // H = 0.7·0.525 + 0.3·0.65 = 0.5625
 */
export function createMiniRepModel(
  options: { agents: readonly AgentId[] } & MiniRepModelOptions,
): MiniRepReputationModel {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'options',
      value: options,
      message: `options must be an object like { agents: ['a1', 'a2'] }, got ${String(options)}`,
    });
  }
  assertKnownOptions('options', options, knownMiniRepModelOptions, 'createMiniRepModel');
  return new MiniRepReputationModel(options);
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

function format(value: number): string {
  return Number(value.toFixed(3)).toString();
}
