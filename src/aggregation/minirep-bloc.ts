// MiniRep coordinated-bloc check: agents of different clone groups that keep giving the same answer
// while (almost) nobody else does are likely colluding. This is the co-voting signature used against
// collusion rings and Sybils in reputation and crowdsourcing (Allahbakhsh et al. 2013, "Collusion
// detection in online rating systems"; Mukherjee et al. 2012, "Spotting fake reviewer groups").
// Counts are decayed so that on/off attackers are caught again when they switch on.
//   exclusive_ij(t) = [a_i = a_j] · (1 − Σ_{k ∉ g_i ∪ g_j, a_k = a_i} u_k / Σ_{k ∉ g_i ∪ g_j} u_k), over parseable k,
//   u_k = 1 − ι_k², ι_k = alone_k / (seen_k + 1) (decayed share of k's answers nobody else gave;
//   `exclusivity: 'share'` sets every u_k = 1), times (1 − v_i·v_j) when both answers carry a
//   verifier's verdict v and `verified: 'exempt'` (agreement the verifier confirmed is not collusion)
//   x_ij = (excl_ij + 0.25) / (both_ij + 2), excl ← λ·excl + exclusive_ij(t), both ← λ·both + 1
//   bloc_i = max_{j ∉ g_i, a_j = a_i} x_ij ;  flagged iff bloc_i ≥ τ and |B_i| ≥ m,
//   suspicion = 0.5 + 0.5·(bloc_i − τ)/(1 − τ), where B_i = i and the agents linked to it by a chain of
//   pairs holding i's answer now with x ≥ τ (i's bloc on this task) and m = `minSize` (2: any pair)
//   honest-majority guard (ours, issue 36): flagged only while |B_i| < ρ·p, p = parseable agents on the
//   task, ρ = `maxShare` (0.5: a bloc must be a strict minority; ρ = 1 turns the guard off)
//   size floor (ours, issue 36): flagged only once |B_i| ≥ σ·p too, σ = `minShare` (0: none), so a
//   pair that is a small share of a large team is not flagged
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { compareKeys } from './plurality.js';

/** One agent's answer on a task, with its clone group. */
export interface BlocEntry {
  readonly agentId: AgentId;
  readonly group: string;
  readonly answer: string | null;
  /** A verifier's verdict in [0, 1] on this answer (1 = judged right), when one was asked. */
  readonly verdict?: number | undefined;
}

/** Options of {@link createBlocTracker}. */
export interface BlocOptions {
  /** Forgetting factor λ in (0, 1] applied to a pair's counts each time both answer. @default 0.95 */
  readonly decay?: number;
  /** Exclusive-agreement rate τ in (0, 1) from which a bloc is suspicious. @default 0.5 */
  readonly threshold?: number;
  /**
   * Exclusivity of a pair's shared answer among the parseable agents outside both groups: `'share'` =
   * 1 − holders/m (every agent counts 1), or `'isolation'` = 1 − Σ_holders u_k / Σ_rest u_k with
   * u_k = 1 − ι_k², where ι_k is agent k's decayed rate of answers nobody else gave. Agents that keep
   * answering alone (e.g. random attackers) then barely count, so they cannot make an honest
   * agreement with everyone else look exclusive. @default 'isolation'
   */
  readonly exclusivity?: 'share' | 'isolation';
  /**
   * What a shared answer that a verifier judged right for both agents counts as: `'exempt'` scales
   * the pair's exclusive agreement on the task by 1 − v_i·v_j, so agreement the verifier confirmed is
   * not collusion evidence (experts who alone are right on hard tasks agree exclusively too), while a
   * payload the verifier rejects counts in full; `'count'` ignores verdicts. Without verdicts (no
   * verifier) both are the same. @default 'exempt'
   */
  readonly verified?: 'exempt' | 'count';
  /**
   * Agents a bloc must hold before its members are flagged, an integer ≥ 2. The bloc of an agent on a
   * task is the agent and every agent linked to it by a chain of pairs (of different clone groups) that
   * hold its answer now with an exclusive-agreement rate ≥ τ. With 2 any such pair is flagged. With 3 a
   * lone pair is not: in a team whose majority is weak, the two best agents are often the only ones
   * right on hard tasks and agree exclusively at bloc rates, which no label-free signal tells apart
   * from two colluders, while a colluding minority of ⌈0.3·n⌉ ≥ 3 agents (the threat model) still
   * forms a bloc of 3 or more, clones of one model included (two copies of a model and a third agent
   * are a bloc of 3; counting clone groups instead would let such a trio through).
   * @default 2
   */
  readonly minSize?: number;
  /**
   * Share ρ in (0, 1] of the task's parseable agents a bloc must stay below to be flagged:
   * |B_i| < ρ·p. With 0.5 a bloc is flagged only while it is a strict minority of the agents that
   * answered. Exclusive agreement is the colluders' signature only under an honest majority: in a team
   * of 3 or 4 whose other members are weak, the two honest experts agree exclusively on most tasks,
   * and flagging them hands the decision to a lone, often always-wrong dissenter (issue 36). Colluders
   * who hold half the team or more already win a plain vote; flagging them cannot be told apart from
   * flagging honest experts without labels. 1 turns the guard off (the check before issue 36). @default 0.5
   */
  readonly maxShare?: number;
  /**
   * Share σ in [0, `maxShare`) of the task's parseable agents a bloc must reach to be flagged:
   * |B_i| ≥ max(`minSize`, σ·p) (ours, issue 36; 0 = no floor, the check before). In a large team
   * whose majority is weaker, two or three strong agents are often the only ones right on hard tasks
   * and agree exclusively at bloc rates, like a pair of colluders; but a pair in a team of 40 is 5 % of
   * the votes and cannot carry a decision alone, while the threat model's colluding minority (⌈0.3·n⌉
   * agents) stays above any σ ≤ 0.3. With σ = 0.15 a pair is still flagged in teams of up to 13 agents,
   * a bloc needs 3 agents at 14 to 20 and 6 at 40. @default 0
   */
  readonly minShare?: number;
}

/** Persisted state of a bloc tracker. */
export interface BlocSnapshot {
  readonly schemaVersion: 1;
  /** [agentA, agentB, both, exclusive] with agentA < agentB: decayed count of tasks both answered and decayed sum of exclusive agreement. */
  readonly pairs: ReadonlyArray<readonly [AgentId, AgentId, number, number]>;
  /** [agent, seen, alone]: decayed count of tasks answered and of answers nobody else gave (absent = none). */
  readonly isolation?: ReadonlyArray<readonly [AgentId, number, number]>;
}

/** The bloc check's finding on one agent for the current task. */
export interface BlocFinding {
  readonly agentId: AgentId;
  /** Largest exclusive-agreement rate x_ij with an agent (of another clone group) holding the same answer now. */
  readonly rate: number;
  /** That agent, if any. */
  readonly partner: AgentId | undefined;
  /** Suspicion in [0, 1]; 0 below τ, when the agent's bloc holds fewer than `minSize` agents or fewer than `minShare` of the answering agents, or when it holds `maxShare` of them or more. */
  readonly suspicion: number;
  /** Agents in the agent's bloc on this task, itself included (1 = no partner at rate ≥ τ). */
  readonly blocSize: number;
}

/** Tracks decayed pairwise agreement across tasks and scores coordinated blocs. */
export interface BlocTracker {
  /** Findings for the current task from the agreement seen on earlier tasks (pure read). */
  assess(entries: readonly BlocEntry[]): BlocFinding[];
  /** Records one task's answers (call once the task is decided). */
  record(entries: readonly BlocEntry[]): void;
  /** Smoothed exclusive-agreement rate x_ij in (0, 1); 0.125 for a pair never seen together. */
  rate(first: AgentId, second: AgentId): number;
  snapshot(): BlocSnapshot;
  restore(snapshot: BlocSnapshot): void;
}

/** A pair's decayed counts (internal, mutated in place; `first` sorts before `second`). */
interface PairState {
  readonly first: AgentId;
  readonly second: AgentId;
  both: number;
  agree: number;
}

/** An agent's decayed answer counts (internal, mutated in place). */
interface IsolationState {
  seen: number;
  alone: number;
}

/** Defaults of {@link BlocOptions}. */
export const blocDefaults: Required<BlocOptions> = {
  decay: 0.95,
  threshold: 0.5,
  exclusivity: 'isolation',
  verified: 'exempt',
  minSize: 2,
  maxShare: 0.5,
  minShare: 0,
};

/**
 * Creates a bloc tracker (see the module comment for the equations).
 *
 * @example
 * const tracker = createBlocTracker();
 * tracker.record(entries); // after each decided task
 * tracker.assess(nextEntries).filter((finding) => finding.suspicion > 0);
 */
export function createBlocTracker(options: BlocOptions = {}): BlocTracker {
  assertKnownOptions('options', options, knownBlocOptions, 'createBlocTracker');
  const settings = { ...blocDefaults };
  for (const [key, value] of Object.entries(options))
    if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
  if (settings.exclusivity !== 'share' && settings.exclusivity !== 'isolation') {
    throw new InvalidArgumentError({
      parameter: 'options.exclusivity',
      value: settings.exclusivity,
      message: `options.exclusivity must be 'share' or 'isolation', got ${JSON.stringify(settings.exclusivity)}`,
    });
  }
  if (settings.verified !== 'exempt' && settings.verified !== 'count') {
    throw new InvalidArgumentError({
      parameter: 'options.verified',
      value: settings.verified,
      message: `options.verified must be 'exempt' or 'count', got ${JSON.stringify(settings.verified)}`,
    });
  }
  if (!(settings.decay > 0 && settings.decay <= 1))
    throw new InvalidArgumentError({
      parameter: 'options.decay',
      value: settings.decay,
      message: `options.decay must be in (0, 1], got ${settings.decay}; pass e.g. 0.95`,
    });
  if (!(settings.threshold > 0 && settings.threshold < 1)) {
    throw new InvalidArgumentError({
      parameter: 'options.threshold',
      value: settings.threshold,
      message: `options.threshold must be in (0, 1), got ${settings.threshold}; pass e.g. 0.5`,
    });
  }
  if (!(Number.isInteger(settings.minSize) && settings.minSize >= 2)) {
    throw new InvalidArgumentError({
      parameter: 'options.minSize',
      value: settings.minSize,
      message: `options.minSize must be an integer >= 2 (agents a bloc holds before they are flagged), got ${settings.minSize}; pass e.g. 2 (any pair) or 3`,
    });
  }
  if (!(settings.maxShare > 0 && settings.maxShare <= 1)) {
    throw new InvalidArgumentError({
      parameter: 'options.maxShare',
      value: settings.maxShare,
      message: `options.maxShare must be in (0, 1] (share of the answering agents a flagged bloc stays below), got ${settings.maxShare}; pass e.g. 0.5, or 1 to turn the guard off`,
    });
  }
  if (!(settings.minShare >= 0 && settings.minShare < settings.maxShare)) {
    throw new InvalidArgumentError({
      parameter: 'options.minShare',
      value: settings.minShare,
      message: `options.minShare must be in [0, maxShare = ${settings.maxShare}) (share of the answering agents a flagged bloc must reach), got ${settings.minShare}; pass e.g. 0.15, or 0 for no floor`,
    });
  }
  // Pair states are found by (smaller id, larger id) through a two-level index; `pairs` keeps them
  // in first-seen order for the snapshot. States are updated in place (internal objects).
  const state: BlocState = { settings, pairs: [], pairIndex: new Map(), isolation: new Map() };
  return {
    rate: (first, second) => blocRate(state, first, second),
    assess: (entries) => assessBloc(state, entries),
    record: (entries) => recordBloc(state, entries),
    snapshot() {
      return {
        schemaVersion: 1,
        pairs: state.pairs.map((pair) => [pair.first, pair.second, pair.both, pair.agree] as const),
        isolation: [...state.isolation.entries()].map(
          ([agentId, counts]) => [agentId, counts.seen, counts.alone] as const,
        ),
      };
    },
    restore(snapshot) {
      if (
        snapshot === null ||
        typeof snapshot !== 'object' ||
        snapshot.schemaVersion !== 1 ||
        !Array.isArray(snapshot.pairs)
      ) {
        throw new InvalidArgumentError({
          parameter: 'snapshot',
          value: snapshot,
          message: 'bloc snapshot must be { schemaVersion: 1, pairs: [...] } from tracker.snapshot()',
        });
      }
      const next: PairState[] = [];
      const nextIndex = new Map<AgentId, Map<AgentId, PairState>>();
      snapshot.pairs.forEach((entry, index) => {
        // Array.isArray first: destructuring a non-array entry threw a bare TypeError, and a count given
        // as a string ("0.5" >= 0 is true) was accepted and later concatenated instead of added.
        const [first, second, both, agree] = Array.isArray(entry) ? entry : [];
        if (
          typeof first !== 'string' ||
          typeof second !== 'string' ||
          !isCount(both) ||
          !isCount(agree) ||
          agree > both + 1e-9
        ) {
          throw new InvalidArgumentError({
            parameter: `snapshot.pairs[${index}]`,
            value: entry,
            message: `snapshot.pairs[${index}] must be [agentA, agentB, both >= 0, 0 <= agree <= both]`,
          });
        }
        addPair(nextIndex, next, { first, second, both, agree });
      });
      const nextIsolation = new Map<AgentId, IsolationState>();
      if (snapshot.isolation !== undefined && !Array.isArray(snapshot.isolation)) {
        throw new InvalidArgumentError({
          parameter: 'snapshot.isolation',
          value: snapshot.isolation,
          message: 'snapshot.isolation must be an array of [agent, seen, alone] from tracker.snapshot()',
        });
      }
      (snapshot.isolation ?? []).forEach((entry, index) => {
        const [agentId, seen, alone] = Array.isArray(entry) ? entry : [];
        if (typeof agentId !== 'string' || !isCount(seen) || !isCount(alone) || alone > seen + 1e-9) {
          throw new InvalidArgumentError({
            parameter: `snapshot.isolation[${index}]`,
            value: entry,
            message: `snapshot.isolation[${index}] must be [agent, seen >= 0, 0 <= alone <= seen]`,
          });
        }
        nextIsolation.set(agentId, { seen, alone });
      });
      state.pairs = next;
      state.pairIndex = nextIndex;
      state.isolation = nextIsolation;
    },
  };
}

/** A decayed count read from a snapshot: a finite number ≥ 0 (not a numeric string). */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** A tracker's mutable state; the functions below take it, so each has one shared compiled body. */
interface BlocState {
  readonly settings: Required<BlocOptions>;
  /** Pairs in first-seen order (for the snapshot). */
  pairs: PairState[];
  /** Pair state by (smaller id, larger id). */
  pairIndex: Map<AgentId, Map<AgentId, PairState>>;
  /** Per agent: decayed count of tasks answered and of tasks where its answer was a singleton. */
  isolation: Map<AgentId, IsolationState>;
}

function findPair(state: BlocState, first: AgentId, second: AgentId): PairState | undefined {
  const ordered = compareKeys(first, second) <= 0;
  return state.pairIndex.get(ordered ? first : second)?.get(ordered ? second : first);
}

function addPair(index: Map<AgentId, Map<AgentId, PairState>>, list: PairState[], pair: PairState): void {
  const ordered = compareKeys(pair.first, pair.second) <= 0;
  const low = ordered ? pair.first : pair.second;
  const high = ordered ? pair.second : pair.first;
  let inner = index.get(low);
  if (inner === undefined) {
    inner = new Map<AgentId, PairState>();
    index.set(low, inner);
  }
  const previous = inner.get(high);
  // A repeated pair replaces the earlier state in its first-seen position.
  if (previous === undefined) list.push(pair);
  else list[list.indexOf(previous)] = pair;
  inner.set(high, pair);
}

// ι_k = alone / (seen + 1): smoothed towards 0 for agents seen on few tasks
function isolationRate(state: BlocState, agentId: AgentId): number {
  const counts = state.isolation.get(agentId);
  return counts === undefined ? 0 : counts.alone / (counts.seen + 1);
}

function blocRate(state: BlocState, first: AgentId, second: AgentId): number {
  const pair = findPair(state, first, second);
  // x_ij = (excl + 0.25) / (both + 2)
  return pair === undefined ? 0.125 : (pair.agree + 0.25) / (pair.both + 2);
}

function assessBloc(state: BlocState, entries: readonly BlocEntry[]): BlocFinding[] {
  const settings = state.settings;
  // Union-find over entry positions: pairs holding the same answer now with x ≥ τ are one bloc.
  const root = entries.map((_, index) => index);
  const find = (index: number): number => {
    let at = index;
    while (root[at] !== at) at = root[at] as number;
    return at;
  };
  const rates = entries.map((entry, index) => {
    let best = 0;
    let partner: AgentId | undefined;
    if (entry.answer !== null) {
      for (let at = 0; at < entries.length; at++) {
        const other = entries[at] as BlocEntry;
        if (at === index || other.group === entry.group || other.answer !== entry.answer) continue;
        const value = blocRate(state, entry.agentId, other.agentId);
        if (value > best || (value === best && partner !== undefined && compareKeys(other.agentId, partner) < 0)) {
          best = value;
          partner = other.agentId;
        }
        if (value >= settings.threshold) {
          const left = find(index);
          const right = find(at);
          if (left !== right) root[Math.max(left, right)] = Math.min(left, right);
        }
      }
    }
    return { best, partner };
  });
  // |B_i|: agents per bloc
  const sizeOf = new Map<number, number>();
  entries.forEach((_, index) => sizeOf.set(find(index), (sizeOf.get(find(index)) ?? 0) + 1));
  // |B_i| < ρ·p: the bloc is a minority of the p parseable agents (ρ = 1: no guard)
  let parseable = 0;
  for (const entry of entries) if (entry.answer !== null) parseable++;
  const guard = settings.maxShare >= 1 ? Number.POSITIVE_INFINITY : settings.maxShare * parseable - 1e-9;
  // |B_i| ≥ max(m, σ·p): the size floor (σ = 0: m alone)
  const floor = Math.max(settings.minSize, settings.minShare * parseable - 1e-9);
  return entries.map((entry, index) => {
    const { best, partner } = rates[index] as { best: number; partner: AgentId | undefined };
    const blocSize = sizeOf.get(find(index)) ?? 1;
    // suspicion = 0.5 + 0.5 · (bloc − τ)/(1 − τ) from τ on (and a bloc of ≥ m agents), else 0
    const suspicion =
      best >= settings.threshold && blocSize >= floor && blocSize < guard
        ? Math.min(1, 0.5 + (0.5 * (best - settings.threshold)) / (1 - settings.threshold))
        : 0;
    return { agentId: entry.agentId, rate: best, partner, suspicion, blocSize };
  });
}

function recordBloc(state: BlocState, entries: readonly BlocEntry[]): void {
  const { settings, isolation } = state;
  const valid = entries.filter((entry) => entry.answer !== null);
  for (const entry of valid) {
    if (entry.verdict !== undefined && !(entry.verdict >= 0 && entry.verdict <= 1))
      throw new InvalidArgumentError({
        parameter: `entries.${entry.agentId}.verdict`,
        value: entry.verdict,
        message: `a verdict must be in [0, 1] (1 = judged right), got ${entry.verdict} for agent ${JSON.stringify(entry.agentId)}; omit it when no verifier was asked`,
      });
  }
  const holdersOf = new Map<string, number>();
  for (const entry of valid) holdersOf.set(entry.answer as string, (holdersOf.get(entry.answer as string) ?? 0) + 1);
  // u_k = 1 − ι_k² of every parseable agent (isolation changes only after the pair loop)
  const isolated = settings.exclusivity === 'isolation';
  const exempt = settings.verified === 'exempt';
  // A Float64Array keeps one element kind whether the u_k are whole or fractional (no deopt).
  const weightsU = new Float64Array(isolated ? valid.length : 0);
  if (isolated)
    for (let index = 0; index < valid.length; index++)
      weightsU[index] = 1 - isolationRate(state, (valid[index] as BlocEntry).agentId) ** 2;
  // The rest's u_k are summed in agent-id order, not entry order: floating-point addition is not
  // associative, so summing in the order the proposals came in made the pair rates, and from them
  // later tasks' decisions, depend on that order in the last bit.
  const byId = isolated ? sortedPositions(valid) : [];
  for (let left = 0; left < valid.length; left++) {
    for (let right = left + 1; right < valid.length; right++) {
      const first = valid[left] as BlocEntry;
      const second = valid[right] as BlocEntry;
      if (first.group === second.group) continue;
      let exclusive = 0;
      if (first.answer === second.answer) {
        // rest = the parseable agents outside both groups, summed in agent-id order
        if (isolated) {
          // exclusivity = 1 − Σ_{holders} u_k / Σ_{rest} u_k, u_k = 1 − ι_k²
          let total = 0;
          let held = 0;
          for (let at = 0; at < byId.length; at++) {
            const index = byId[at] as number;
            const entry = valid[index] as BlocEntry;
            if (entry.group === first.group || entry.group === second.group) continue;
            const u = weightsU[index] as number;
            total += u;
            if (entry.answer === first.answer) held += u;
          }
          exclusive = total <= 1e-12 ? 0 : 1 - held / total;
        } else {
          // exclusivity = 1 − share of the other parseable agents holding the same answer
          let restCount = 0;
          let holders = 0;
          for (const entry of valid) {
            if (entry.group === first.group || entry.group === second.group) continue;
            restCount += 1;
            if (entry.answer === first.answer) holders += 1;
          }
          exclusive = restCount === 0 ? 0 : 1 - holders / restCount;
        }
        // exclusive · (1 − v_i·v_j): agreement the verifier confirmed for both is not collusion evidence
        if (exempt && first.verdict !== undefined && second.verdict !== undefined)
          exclusive *= 1 - first.verdict * second.verdict;
      }
      let pair = findPair(state, first.agentId, second.agentId);
      if (pair === undefined) {
        const ordered = compareKeys(first.agentId, second.agentId) <= 0;
        pair = {
          first: ordered ? first.agentId : second.agentId,
          second: ordered ? second.agentId : first.agentId,
          both: 0,
          agree: 0,
        };
        addPair(state.pairIndex, state.pairs, pair);
      }
      // both ← λ·both + 1 ;  excl ← λ·excl + exclusive_ij
      pair.both = settings.decay * pair.both + 1;
      pair.agree = settings.decay * pair.agree + exclusive;
    }
  }
  // seen ← λ·seen + 1 ;  alone ← λ·alone + [nobody else gave this answer]
  for (const entry of valid) {
    const alone = (holdersOf.get(entry.answer as string) ?? 0) <= 1 ? 1 : 0;
    const counts = isolation.get(entry.agentId);
    if (counts === undefined)
      isolation.set(entry.agentId, { seen: settings.decay * 0 + 1, alone: settings.decay * 0 + alone });
    else {
      counts.seen = settings.decay * counts.seen + 1;
      counts.alone = settings.decay * counts.alone + alone;
    }
  }
}

/** Positions of `entries` ordered by agent id (then position, for an agent given twice). */
function sortedPositions(entries: readonly BlocEntry[]): number[] {
  const positions = entries.map((_, index) => index);
  positions.sort(
    (left, right) =>
      compareKeys((entries[left] as BlocEntry).agentId, (entries[right] as BlocEntry).agentId) || left - right,
  );
  return positions;
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownBlocOptions = defineOptionKeys<BlocOptions>()([
  'decay',
  'threshold',
  'exclusivity',
  'verified',
  'minSize',
  'maxShare',
  'minShare',
]);
