// Label-free inference of undeclared clone groups (ours, issue 36; not the MiniRep paper's design).
// Two agents that copy one model agree far more often than their accuracies predict when their
// answers are conditionally independent given the truth (the one-coin model of Dawid & Skene 1979,
// "Maximum likelihood estimation of observer error-rates using the EM algorithm", Applied
// Statistics 28; its method of moments: P(i and j agree) ≈ p_i·p_j, so the off-diagonal agreement
// matrix is rank one, as in Parisi et al. 2014, "Ranking and combining multiple predictors without
// labeled data", PNAS 111). We fit that rank-one structure robustly (least squares in log space,
// pairs far above the fit trimmed and the fit repeated, so that a bloc of clones does not drag the
// fit up) and flag a pair whose agreement's Wilson lower bound (Wilson 1927) exceeds the fitted
// product by an absolute margin. Flagged pairs merge (union-find) into inferred clone groups.
// Task difficulty shared by every agent raises all agreements alike and is absorbed by the fit.
//   n_ij ← λ·n_ij + [i and j both answered],  s_ij ← λ·s_ij + [a_i = a_j ≠ null]
//   r_ij = (s_ij + ½)/(n_ij + 1),  y_ij = ln r_ij
//   x_i = median_{j: (i,j) ∈ S} (y_ij − x_j)  (median polish of y_ij ≈ x_i + x_j),  e_ij = min(1, exp(x_i + x_j))
//   S = pairs of distinct declared groups with r_ij ≥ floor, less those with r_ij − e_ij > margin/2 (repeated)
//   lowerStart (ours, the default): first, from a cold start, x_i = lower quartile_j (y_ij − x_j), and S
//   loses the pairs with r_ij − e_ij > margin, so that clones who are half of an agent's partners
//   cannot carry its median
//   flag (i, j) when n_ij ≥ minTasks and wilsonLower(s_ij, n_ij, z) − e_ij ≥ margin
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { assertInRange, defineOptionKeys } from '../core/validate.js';

/** Options of {@link createCloneInference}. */
export interface CloneInferenceOptions {
  /** Forgetting factor λ in (0, 1] of the pairwise counts at each observed task. @default 0.995 */
  readonly decay?: number;
  /** Co-answered tasks (decayed) a pair needs before it can be flagged, ≥ 1. @default 20 */
  readonly minTasks?: number;
  /** Excess agreement over the fitted product, in (0, 1], that the pair's lower bound must reach. @default 0.25 */
  readonly margin?: number;
  /** z of the Wilson lower bound on the pair's agreement rate, ≥ 0. @default 2 */
  readonly z?: number;
  /**
   * Pairs agreeing less than this rate, in [0, 1), are left out of the fit: a near-zero rate (an
   * always-wrong agent against a strong one) has an unbounded log and says nothing about copying. @default 0.1
   */
  readonly floor?: number;
  /**
   * Before the median rounds, fit each agent on the lower quartile of its pairs, from a cold start, and
   * leave out of the fit the pairs more than `margin` above that fit. Without it (`false`, the form
   * measured before December 2026), clones who are half or more of an agent's partners carry the
   * median, and the fit explains their agreement as high accuracy. @default true
   */
  readonly lowerStart?: boolean;
}

/** Defaults of {@link CloneInferenceOptions}. */
export const cloneInferenceDefaults = {
  decay: 0.995,
  minTasks: 20,
  margin: 0.25,
  z: 2,
  floor: 0.1,
  lowerStart: true,
} as const;

/** The keys of {@link CloneInferenceOptions}, for assertKnownOptions. */
export const knownCloneInferenceOptions = defineOptionKeys<CloneInferenceOptions>()([
  'decay',
  'minTasks',
  'margin',
  'z',
  'floor',
  'lowerStart',
]);

/** Why an agent was merged with another: its strongest flagged pair. */
export interface InferredClone {
  readonly agentId: AgentId;
  /** The agent it agrees with beyond independence. */
  readonly partner: AgentId;
  /** Observed agreement rate r_ij in [0, 1]. */
  readonly agreement: number;
  /** Agreement the rank-one fit expects under independence, e_ij in [0, 1]. */
  readonly expected: number;
  /** Co-answered tasks (decayed) n_ij. */
  readonly tasks: number;
}

/** Pairwise counts over agents 0..m−1: `seen[i][j]` co-answered tasks, `agree[i][j]` agreements (symmetric). */
export interface PairCounts {
  readonly seen: ReadonlyArray<ArrayLike<number>>;
  readonly agree: ReadonlyArray<ArrayLike<number>>;
}

/** A flagged pair (indices into the agents) with its figures. */
export interface FlaggedPair {
  readonly left: number;
  readonly right: number;
  readonly agreement: number;
  readonly expected: number;
  readonly tasks: number;
  /** Wilson lower bound on the agreement minus the expected agreement. */
  readonly excess: number;
}

/** What {@link fitAgreement} returns: the fitted expected agreement per pair and the pairs flagged. */
export interface AgreementFit {
  /** e_ij = min(1, exp(x_i + x_j)) for every pair (0 on the diagonal). */
  readonly expected: number[][];
  /** The fitted x_i = ln q_i (a warm start for the next fit). */
  readonly logScale: number[];
  readonly flagged: FlaggedPair[];
}

/**
 * Wilson 1927 score interval, lower end: (p̂ + z²/2n − z·√(p̂(1 − p̂)/n + z²/4n²))/(1 + z²/n); 0 when n = 0.
 *
 * @example
 * // 9 of 10, z = 2: (0.9 + 0.2 − 2·√(0.009 + 0.01))/(1.4) = (1.1 − 0.275681)/1.4 = 0.588799
 * wilsonLower(9, 10, 2);
 */
export function wilsonLower(successes: number, trials: number, z: number): number {
  if (trials <= 0) return 0;
  const rate = successes / trials;
  const z2 = z * z;
  // (p̂ + z²/2n − z √(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)
  const centre = rate + z2 / (2 * trials);
  const spread = z * Math.sqrt((rate * (1 - rate)) / trials + z2 / (4 * trials * trials));
  return Math.max(0, (centre - spread) / (1 + z2 / trials));
}

const sweeps = 60;
const rounds = 4;

/** The median of the first `count` (≥ 1) values of `values` (mean of the middle two for an even count); sorts them in place. */
function medianOf(values: Float64Array, count: number): number {
  const sorted = values.subarray(0, count).sort();
  const middle = count >> 1;
  return count % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The lower quartile of the first `count` (≥ 1) values: linear interpolation at rank (count − 1)/4; sorts them in place. */
function lowerQuartileOf(values: Float64Array, count: number): number {
  const sorted = values.subarray(0, count).sort();
  const rank = (count - 1) / 4;
  const below = Math.floor(rank);
  const above = Math.min(count - 1, below + 1);
  return (sorted[below] ?? 0) + (rank - below) * ((sorted[above] ?? 0) - (sorted[below] ?? 0));
}

/**
 * Fits the rank-one agreement model robustly and flags the pairs that agree beyond it (see the module
 * comment). `groups[i]` is agent i's declared clone group: pairs inside one declared group are left
 * out of the fit and never flagged (they are known clones). Pure and deterministic; the result depends
 * on the agents' order only through floating-point summation order.
 *
 * @example
 * // Four agents of accuracy 0.8, 0.8, 0.6, 0.6 with no collisions agree 0.64, 0.48, 0.36 apart from a
 * // copying pair (0, 1) at 0.95 over 100 tasks: only (0, 1) is flagged (expected 0.64).
 */
export function fitAgreement(
  counts: PairCounts,
  groups: readonly string[],
  {
    minTasks,
    margin,
    z,
    floor = cloneInferenceDefaults.floor,
    lowerStart = cloneInferenceDefaults.lowerStart,
    start,
  }: {
    minTasks: number;
    margin: number;
    z: number;
    floor?: number;
    lowerStart?: boolean;
    start?: readonly number[];
  },
): AgreementFit {
  const m = groups.length;
  const rates: number[][] = [];
  const logs: number[][] = [];
  const weights: number[][] = [];
  for (let i = 0; i < m; i++) {
    const rateRow: number[] = [];
    const logRow: number[] = [];
    const weightRow: number[] = [];
    for (let j = 0; j < m; j++) {
      const n = counts.seen[i]?.[j] ?? 0;
      // r_ij = (s_ij + ½)/(n_ij + 1)
      const r = ((counts.agree[i]?.[j] ?? 0) + 0.5) / (n + 1);
      rateRow.push(r);
      logRow.push(Math.log(r));
      weightRow.push(i !== j && groups[i] !== groups[j] ? n : 0);
    }
    rates.push(rateRow);
    logs.push(logRow);
    weights.push(weightRow);
  }
  const eligible = (i: number, j: number): boolean => (weights[i]?.[j] ?? 0) > 0;
  const included: boolean[][] = Array.from({ length: m }, (_, i) =>
    Array.from({ length: m }, (_, j) => eligible(i, j) && (rates[i]?.[j] ?? 0) >= floor),
  );
  // x_i starts at half the mean log agreement of its pairs.
  let x = new Array<number>(m).fill(0);
  for (let i = 0; i < m; i++) {
    let total = 0;
    let count = 0;
    for (let j = 0; j < m; j++)
      if (included[i]?.[j]) {
        total += logs[i]?.[j] ?? 0;
        count++;
      }
    // No warm start under lowerStart: a fit that has settled on clones as accurate agents stays there.
    x[i] = (lowerStart ? undefined : start?.[i]) ?? (count > 0 ? total / count / 2 : 0);
  }
  const expectedOf = (values: readonly number[]): number[][] =>
    Array.from({ length: m }, (_, i) =>
      Array.from({ length: m }, (_, j) => (i === j ? 0 : Math.min(1, Math.exp((values[i] ?? 0) + (values[j] ?? 0))))),
    );
  const residuals = new Float64Array(m);
  // Damped Jacobi polish: x_i ← ½x_i + ½·centre_{j ∈ S_i}(y_ij − x_j). All agents update from the
  // same x (order-free); at most `sweeps` sweeps (a median can cycle).
  const polish = (centre: (values: Float64Array, count: number) => number): void => {
    for (let sweep = 0; sweep < sweeps; sweep++) {
      const next = x.slice();
      let change = 0;
      for (let i = 0; i < m; i++) {
        let count = 0;
        const row = included[i] as boolean[];
        const logRow = logs[i] as number[];
        for (let j = 0; j < m; j++) if (row[j]) residuals[count++] = (logRow[j] ?? 0) - (x[j] ?? 0);
        if (count === 0) continue;
        const value = 0.5 * (x[i] ?? 0) + 0.5 * centre(residuals, count);
        change = Math.max(change, Math.abs(value - (x[i] ?? 0)));
        next[i] = value;
      }
      x = next;
      if (change < 1e-9) break;
    }
  };
  if (lowerStart) {
    // Ours: a fit on each agent's lower quartile, which clones who are half of an agent's partners
    // cannot carry; the pairs more than `margin` above it are left out before the median rounds.
    polish(lowerQuartileOf);
    const low = expectedOf(x);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++)
        if (included[i]?.[j] && (rates[i]?.[j] ?? 0) - (low[i]?.[j] ?? 0) > margin)
          (included[i] as boolean[])[j] = false;
  }
  for (let round = 0; round < rounds; round++) {
    // The median, not the mean, so that an agent's few odd partners (an always-wrong agent, a clone)
    // do not move its fit.
    polish(medianOf);
    // Trim the pairs far above the fit (a clone bloc's pairs) and fit again without them.
    const expected = expectedOf(x);
    let trimmed = false;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++) {
        if (!included[i]?.[j]) continue;
        if ((rates[i]?.[j] ?? 0) - (expected[i]?.[j] ?? 0) > margin / 2) {
          (included[i] as boolean[])[j] = false;
          trimmed = true;
        }
      }
    if (!trimmed) break;
  }
  const expected = expectedOf(x);
  const flagged: FlaggedPair[] = [];
  for (let i = 0; i < m; i++)
    for (let j = i + 1; j < m; j++) {
      if (!eligible(i, j)) continue;
      const tasks = weights[i]?.[j] ?? 0;
      if (tasks < minTasks) continue;
      const agreeCount = counts.agree[i]?.[j] ?? 0;
      const excess = wilsonLower(agreeCount, tasks, z) - (expected[i]?.[j] ?? 0);
      if (excess >= margin)
        flagged.push({
          left: i,
          right: j,
          agreement: agreeCount / tasks,
          expected: expected[i]?.[j] ?? 0,
          tasks,
          excess,
        });
    }
  return { expected, flagged, logScale: x };
}

/** Persisted state: the agents in first-seen order, their declared groups, and the upper triangle of the counts. */
export interface CloneInferenceSnapshot {
  readonly schemaVersion: 1;
  readonly agents: ReadonlyArray<readonly [AgentId, string]>;
  /** Per pair i < j in row order: [n_ij, s_ij]. */
  readonly pairs: ReadonlyArray<readonly [number, number]>;
}

/** The inferred clone groups of some agents, with the reason for each merged agent. */
export interface InferredGroups {
  /** Agent → clone group: its declared group, or for a merged agent the smallest declared group among its component's members. */
  readonly groupOf: ReadonlyMap<AgentId, string>;
  /** Agent → its strongest flagged pair, for every agent in a flagged pair. */
  readonly reasons: ReadonlyMap<AgentId, InferredClone>;
}

/** Learns pairwise agreement across tasks and infers undeclared clone groups from it. */
export interface CloneInference {
  /** Adds one task's answers (null = no parseable answer); `group` is the declared clone group. */
  observe(entries: ReadonlyArray<{ agentId: AgentId; group: string; answer: string | null }>): void;
  /** The clone groups of the given agents (declared groups, merged where the counts flag a pair). */
  groups(agents: ReadonlyArray<{ agentId: AgentId; group: string }>): InferredGroups;
  snapshot(): CloneInferenceSnapshot;
  restore(snapshot: CloneInferenceSnapshot): void;
}

/** Checks and completes {@link CloneInferenceOptions}. */
export function resolveCloneInferenceOptions(options: CloneInferenceOptions): Required<CloneInferenceOptions> {
  const resolved = { ...cloneInferenceDefaults };
  for (const key of Object.keys(cloneInferenceDefaults) as Array<keyof typeof cloneInferenceDefaults>) {
    const value = options[key];
    if (value !== undefined) resolved[key] = value as never;
  }
  assertInRange('options.inferClones.decay', resolved.decay, 0, 1, {
    minExclusive: true,
    hint: 'pass e.g. { decay: 0.995 }',
  });
  assertInRange('options.inferClones.minTasks', resolved.minTasks, 1, 1e9, { hint: 'pass e.g. { minTasks: 20 }' });
  assertInRange('options.inferClones.margin', resolved.margin, 0, 1, {
    minExclusive: true,
    hint: 'pass e.g. { margin: 0.25 }',
  });
  assertInRange('options.inferClones.z', resolved.z, 0, 10, { hint: 'pass e.g. { z: 2 }' });
  assertInRange('options.inferClones.floor', resolved.floor, 0, 1, {
    maxExclusive: true,
    hint: 'pass e.g. { floor: 0.1 }',
  });
  if (typeof resolved.lowerStart !== 'boolean')
    throw new InvalidArgumentError({
      parameter: 'options.inferClones.lowerStart',
      value: resolved.lowerStart,
      message: `options.inferClones.lowerStart must be true or false, got ${JSON.stringify(resolved.lowerStart)}`,
    });
  return resolved;
}

/**
 * Creates the clone inference: decayed pairwise counts of co-answered tasks and agreements, and on
 * request the robust rank-one fit of {@link fitAgreement} with union-find over the flagged pairs.
 * With no flagged pair every agent keeps its declared group.
 *
 * @example
 * const inference = createCloneInference({});
 * inference.observe([{ agentId: 'a', group: 'a', answer: '1' }, { agentId: 'b', group: 'b', answer: '1' }]);
 * inference.groups([{ agentId: 'a', group: 'a' }, { agentId: 'b', group: 'b' }]).groupOf; // a → a, b → b
 */
export function createCloneInference(options: CloneInferenceOptions): CloneInference {
  const { decay, minTasks, margin, z, floor, lowerStart } = resolveCloneInferenceOptions(options);
  const ids: AgentId[] = [];
  const declared: string[] = [];
  const index = new Map<AgentId, number>();
  let seen: number[][] = [];
  let agree: number[][] = [];
  let cached: { key: string; result: InferredGroups } | undefined;
  // The last fit's x (a warm start: the counts change by one task between fits).
  let start: number[] = [];
  const indexOf = (agentId: AgentId, group: string): number => {
    let at = index.get(agentId);
    if (at === undefined) {
      at = ids.length;
      index.set(agentId, at);
      ids.push(agentId);
      declared.push(group);
      for (const row of seen) row.push(0);
      for (const row of agree) row.push(0);
      seen.push(new Array<number>(ids.length).fill(0));
      agree.push(new Array<number>(ids.length).fill(0));
    }
    return at;
  };
  let version = 0;
  return {
    observe(entries) {
      const answered = entries.map((entry) => ({ at: indexOf(entry.agentId, entry.group), answer: entry.answer }));
      for (const row of seen) for (let j = 0; j < row.length; j++) row[j] = (row[j] ?? 0) * decay;
      for (const row of agree) for (let j = 0; j < row.length; j++) row[j] = (row[j] ?? 0) * decay;
      for (let left = 0; left < answered.length; left++) {
        const a = answered[left];
        if (a === undefined || a.answer === null) continue;
        for (let right = left + 1; right < answered.length; right++) {
          const b = answered[right];
          if (b === undefined || b.answer === null || b.at === a.at) continue;
          const same = a.answer === b.answer ? 1 : 0;
          (seen[a.at] as number[])[b.at] = (seen[a.at]?.[b.at] ?? 0) + 1;
          (seen[b.at] as number[])[a.at] = (seen[b.at]?.[a.at] ?? 0) + 1;
          (agree[a.at] as number[])[b.at] = (agree[a.at]?.[b.at] ?? 0) + same;
          (agree[b.at] as number[])[a.at] = (agree[b.at]?.[a.at] ?? 0) + same;
        }
      }
      version++;
    },
    groups(agents) {
      // The fit runs over every agent seen so far (a steadier fit than one task's agents), once per observation.
      const key = `${version}`;
      if (cached === undefined || cached.key !== key) {
        // Before any pair has minTasks co-answered tasks nothing can be flagged: skip the fit.
        const ready = seen.some((row) => row.some((count) => count >= minTasks));
        const fit = ready
          ? fitAgreement({ seen, agree }, declared, { minTasks, margin, z, floor, lowerStart, start })
          : { flagged: [], logScale: start };
        start = fit.logScale;
        // Union-find over the flagged pairs.
        const parent = ids.map((_, at) => at);
        const find = (at: number): number => {
          let root = at;
          while (parent[root] !== root) root = parent[root] ?? root;
          return root;
        };
        const strongest = new Map<number, FlaggedPair>();
        for (const pair of fit.flagged) {
          const [left, right] = [find(pair.left), find(pair.right)];
          if (left !== right) parent[Math.max(left, right)] = Math.min(left, right);
          for (const at of [pair.left, pair.right]) {
            const best = strongest.get(at);
            if (best === undefined || pair.excess > best.excess) strongest.set(at, pair);
          }
        }
        // Declared groups stay whole: a merged agent brings its declared clones along.
        const rootOfGroup = new Map<string, number>();
        for (let at = 0; at < ids.length; at++) {
          const group = declared[at] as string;
          const root = find(at);
          const other = rootOfGroup.get(group);
          if (other === undefined) rootOfGroup.set(group, root);
          else if (other !== root) parent[Math.max(other, root)] = Math.min(other, root);
        }
        // A component is named after its members' smallest declared group, so that the name does not
        // depend on the order in which the agents were first seen.
        const nameOfRoot = new Map<number, string>();
        for (let at = 0; at < ids.length; at++) {
          const root = find(at);
          const name = nameOfRoot.get(root);
          const group = declared[at] as string;
          if (name === undefined || group < name) nameOfRoot.set(root, group);
        }
        const groupOf = new Map<AgentId, string>();
        for (let at = 0; at < ids.length; at++) groupOf.set(ids[at] as AgentId, nameOfRoot.get(find(at)) as string);
        const reasons = new Map<AgentId, InferredClone>();
        for (const [at, pair] of strongest) {
          const partner = pair.left === at ? pair.right : pair.left;
          reasons.set(ids[at] as AgentId, {
            agentId: ids[at] as AgentId,
            partner: ids[partner] as AgentId,
            agreement: pair.agreement,
            expected: pair.expected,
            tasks: pair.tasks,
          });
        }
        cached = { key, result: { groupOf, reasons } };
      }
      const { groupOf, reasons } = cached.result;
      const out = new Map<AgentId, string>();
      for (const agent of agents) out.set(agent.agentId, groupOf.get(agent.agentId) ?? agent.group);
      return { groupOf: out, reasons };
    },
    snapshot() {
      const pairs: Array<readonly [number, number]> = [];
      for (let i = 0; i < ids.length; i++)
        for (let j = i + 1; j < ids.length; j++) pairs.push([seen[i]?.[j] ?? 0, agree[i]?.[j] ?? 0]);
      return { schemaVersion: 1, agents: ids.map((id, at) => [id, declared[at] as string] as const), pairs };
    },
    restore(snapshot) {
      const m = snapshot?.agents?.length ?? -1;
      if (
        snapshot === null ||
        typeof snapshot !== 'object' ||
        snapshot.schemaVersion !== 1 ||
        !Array.isArray(snapshot.agents) ||
        !Array.isArray(snapshot.pairs) ||
        snapshot.pairs.length !== (m * (m - 1)) / 2 ||
        snapshot.pairs.some(
          (pair) =>
            !Array.isArray(pair) ||
            !(Number.isFinite(pair[0]) && pair[0] >= 0) ||
            !(Number.isFinite(pair[1]) && pair[1] >= 0 && pair[1] <= pair[0] + 1e-9),
        )
      )
        throw new InvalidArgumentError({
          parameter: 'snapshot.cloneInference',
          value: '(invalid)',
          message:
            'snapshot.cloneInference must come from the clone inference snapshot (schemaVersion 1, agents and m·(m − 1)/2 pairs [n ≥ 0, 0 ≤ s ≤ n])',
        });
      ids.length = 0;
      declared.length = 0;
      index.clear();
      for (const [agentId, group] of snapshot.agents) {
        index.set(agentId, ids.length);
        ids.push(agentId);
        declared.push(group);
      }
      seen = Array.from({ length: m }, () => new Array<number>(m).fill(0));
      agree = Array.from({ length: m }, () => new Array<number>(m).fill(0));
      let at = 0;
      for (let i = 0; i < m; i++)
        for (let j = i + 1; j < m; j++) {
          const [n, s] = snapshot.pairs[at++] as readonly [number, number];
          (seen[i] as number[])[j] = n;
          (seen[j] as number[])[i] = n;
          (agree[i] as number[])[j] = s;
          (agree[j] as number[])[i] = s;
        }
      version++;
      cached = undefined;
      start = [];
    },
  };
}
