// DRF (Lou et al., arXiv 2509.05764), Eq. 9: UCB selection with cost,
//   S_i = δ·r_i − (1 − δ)·c_i + x_i,   x_i = c·sqrt(2 ln t / n_i)   (UCB1, Auer et al. 2002).
// The paper prints +(1 − δ)·c_i, which rewards expensive agents against its own text
// ("prioritizes high-reputation, low-cost agents"); `variant: 'printed'` reproduces it.
import { InvalidArgumentError } from '../core/errors.js';
import { resolveOptions } from '../core/options.js';
import type { WeightReason } from '../core/trace.js';
import { assertInRange, assertKnownOptions, assertNonNegative, defineOptionKeys } from '../core/validate.js';
import { compareIds, validateSelectionContext } from './_validate.js';
import type { Selection, SelectionContext, Selector } from './selector.js';

/** Options of DRF's UCB selector. */
export interface UcbSelectorOptions {
  /** δ: weight on reputation against cost, in [0, 1]. @default 0.7 */
  delta?: number;
  /** c: scale of the UCB1 exploration bonus, ≥ 0. @default 1 */
  exploration?: number;
  /** Agents whose reputation is below this, in [0, 1], are excluded. @default 0.2 */
  threshold?: number;
  /** `'corrected'` subtracts the cost term; `'printed'` adds it, as Eq. 9 is printed. @default 'corrected' */
  variant?: 'corrected' | 'printed';
  /**
   * What to do when fewer than k agents reach the threshold: `'fill'` admits the best excluded
   * agents (highest reputation, then id) and notes it in their reasons; `'throw'` refuses with an
   * InvalidArgumentError. @default 'fill'
   */
  whenTooFew?: 'fill' | 'throw';
  /** Order of agents with equal scores: `'id'` ascending, or `'random'` from `context.rng`. @default 'id' */
  tieBreak?: 'id' | 'random';
}

/** Serialised counts of a UCB selector. */
export interface UcbSelectorSnapshot {
  readonly schemaVersion: 1;
  readonly selector: 'ucb';
  /** Number of `select` calls so far (t − 1). */
  readonly selections: number;
  /** Times each agent was selected (n_i). */
  readonly counts: Readonly<Record<string, number>>;
}

/** A selector that keeps state between calls and can save and restore it. */
export interface StatefulSelector<TSnapshot> extends Selector {
  /** JSON-serialisable state. */
  snapshot(): TSnapshot;
  /** Replaces the state with a snapshot from a selector of the same name. */
  restore(snapshot: TSnapshot): void;
}

const knownUcbOptions = defineOptionKeys<UcbSelectorOptions>()([
  'delta',
  'exploration',
  'threshold',
  'variant',
  'whenTooFew',
  'tieBreak',
]);

const defaultUcbOptions: Required<UcbSelectorOptions> = {
  delta: 0.7,
  exploration: 1,
  threshold: 0.2,
  variant: 'corrected',
  whenTooFew: 'fill',
  tieBreak: 'id',
};

/**
 * Creates DRF's UCB selector with cost. Each call scores every eligible agent with
 * S_i = δ·r_i − (1 − δ)·c_i + x_i (corrected) or S_i = δ·r_i + (1 − δ)·c_i + x_i (printed), where
 * r_i is the reputation in [0, 1], c_i = cost_i / max_j cost_j over the whole pool (0 for all when
 * every cost is 0; missing cost = 0), and x_i = c·sqrt(2 ln t / n_i) with t = selections so far + 1
 * and n_i the times agent i was selected; n_i = 0 gives x_i = +∞, so every agent is tried before
 * any is exploited (untried agents are ordered by δ·r_i ∓ (1 − δ)·c_i, then id). Agents with
 * r_i < threshold are excluded. It picks the k highest scores and then counts them.
 *
 * @example
 * const selector = createUcbSelector({ delta: 0.7, exploration: 1, threshold: 0.2 });
 * const { selected, reasons } = selector.select({ pool, reputation: model.scores(), k: 3, rng });
 */
export function createUcbSelector(options?: UcbSelectorOptions): StatefulSelector<UcbSelectorSnapshot> {
  assertKnownOptions('options', options, knownUcbOptions, 'createUcbSelector');
  const resolved = resolveOptions(defaultUcbOptions, options);
  assertInRange('options.delta', resolved.delta, 0, 1, { hint: 'pass e.g. { delta: 0.7 }' });
  assertNonNegative('options.exploration', resolved.exploration, 'pass e.g. { exploration: 1 }');
  assertInRange('options.threshold', resolved.threshold, 0, 1, { hint: 'pass e.g. { threshold: 0.2 }' });
  assertOneOf('options.variant', resolved.variant, ['corrected', 'printed']);
  assertOneOf('options.whenTooFew', resolved.whenTooFew, ['fill', 'throw']);
  assertOneOf('options.tieBreak', resolved.tieBreak, ['id', 'random']);
  const { delta, exploration, threshold, variant, whenTooFew, tieBreak } = resolved;
  const costSign = variant === 'printed' ? 1 : -1;

  let selections = 0;
  let counts = new Map<string, number>();

  return {
    name: 'ucb',
    select(context: SelectionContext): Selection {
      validateSelectionContext(context, { usesK: true, requiresReputation: true });
      const { pool, k } = context;
      const maxCost = Math.max(0, ...pool.map((agent) => agent.cost ?? 0));
      const t = selections + 1;
      const scored = pool.map((agent) => {
        const reputation = context.reputation[agent.id] as number;
        const rawCost = agent.cost ?? 0;
        // c_i = cost_i / max_j cost_j ∈ [0, 1]
        const cost = maxCost > 0 ? rawCost / maxCost : 0;
        const count = counts.get(agent.id) ?? 0;
        // δ·r_i ∓ (1 − δ)·c_i
        const exploitation = delta * reputation + costSign * (1 - delta) * cost;
        // x_i = c·sqrt(2 ln t / n_i); +∞ while untried
        const bonus = count === 0 ? Number.POSITIVE_INFINITY : exploration * Math.sqrt((2 * Math.log(t)) / count);
        return {
          agent,
          reputation,
          rawCost,
          cost,
          count,
          exploitation,
          bonus,
          score: exploitation + bonus,
          eligible: reputation >= threshold,
          tie: tieBreak === 'random' ? context.rng() : 0,
        };
      });
      type Scored = (typeof scored)[number];
      const byScore = (left: Scored, right: Scored): number =>
        compareDescending(left.score, right.score) ||
        compareDescending(left.exploitation, right.exploitation) ||
        left.tie - right.tie ||
        compareIds(left.agent.id, right.agent.id);

      const eligible = scored.filter((entry) => entry.eligible).sort(byScore);
      const below = scored.filter((entry) => !entry.eligible);
      let admitted: Scored[] = [];
      if (eligible.length < k) {
        if (whenTooFew === 'throw') {
          throw new InvalidArgumentError({
            parameter: 'context.k',
            value: k,
            message: `only ${eligible.length} of ${pool.length} agents have reputation >= threshold ${threshold}, fewer than k = ${k}; lower k or the threshold, or use { whenTooFew: 'fill' }`,
          });
        }
        admitted = below
          .slice()
          .sort(
            (left, right) =>
              right.reputation - left.reputation || left.tie - right.tie || compareIds(left.agent.id, right.agent.id),
          )
          .slice(0, k - eligible.length);
      }
      const team = [...eligible.slice(0, k), ...admitted];
      const chosen = new Set(team.map((entry) => entry.agent.id));
      const admittedIds = new Set(admitted.map((entry) => entry.agent.id));

      selections += 1;
      for (const entry of team) counts.set(entry.agent.id, entry.count + 1);
      const excluded = below.filter((entry) => !admittedIds.has(entry.agent.id)).map((entry) => entry.agent.id);
      if (context.reasons === false) return { selected: team.map((entry) => entry.agent.id), excluded, reasons: [] };

      const reasons: WeightReason[] = [...eligible, ...below].map((entry) => ({
        agentId: entry.agent.id,
        // An admitted agent is on the team with its score like any other member; only excluded agents weigh 0.
        weight: entry.eligible || admittedIds.has(entry.agent.id) ? entry.score : 0,
        components: {
          reputation: entry.reputation,
          cost: entry.cost,
          rawCost: entry.rawCost,
          exploitation: entry.exploitation,
          bonus: entry.bonus,
          count: entry.count,
          t,
        },
        note: noteFor(entry, chosen.has(entry.agent.id), admittedIds.has(entry.agent.id)),
      }));
      return {
        selected: team.map((entry) => entry.agent.id),
        excluded,
        reasons,
      };

      function noteFor(entry: Scored, isChosen: boolean, isAdmitted: boolean): string {
        if (isAdmitted)
          return `ucb: admitted below threshold (reputation ${entry.reputation} < ${threshold}) because only ${eligible.length} agent(s) reach it and k = ${k}`;
        if (!entry.eligible) return `ucb: excluded, reputation ${entry.reputation} < threshold ${threshold}`;
        const bonusText =
          entry.count === 0
            ? 'untried, bonus +Infinity'
            : `bonus ${entry.bonus.toFixed(4)} after ${entry.count} selection(s)`;
        return `ucb: ${isChosen ? 'selected' : 'not selected'}; ${delta}·r ${costSign < 0 ? '−' : '+'} ${Number((1 - delta).toFixed(12))}·c = ${entry.exploitation.toFixed(4)}, ${bonusText}`;
      }
    },
    snapshot(): UcbSelectorSnapshot {
      return { schemaVersion: 1, selector: 'ucb', selections, counts: Object.fromEntries(counts) };
    },
    restore(snapshot: UcbSelectorSnapshot): void {
      if (
        snapshot === null ||
        typeof snapshot !== 'object' ||
        snapshot.schemaVersion !== 1 ||
        snapshot.selector !== 'ucb'
      ) {
        throw new InvalidArgumentError({
          parameter: 'snapshot',
          value: snapshot,
          message:
            "snapshot must be { schemaVersion: 1, selector: 'ucb', selections, counts } as returned by snapshot()",
        });
      }
      if (!Number.isInteger(snapshot.selections) || snapshot.selections < 0) {
        throw new InvalidArgumentError({
          parameter: 'snapshot.selections',
          value: snapshot.selections,
          message: `snapshot.selections must be an integer >= 0, got ${String(snapshot.selections)}`,
        });
      }
      if (snapshot.counts === null || typeof snapshot.counts !== 'object' || Array.isArray(snapshot.counts)) {
        // Without counts every agent would look untried again (bonus +∞) at t = selections + 1.
        throw new InvalidArgumentError({
          parameter: 'snapshot.counts',
          value: snapshot.counts,
          message: `snapshot.counts must be a record { agentId: times selected }, got ${JSON.stringify(snapshot.counts) ?? String(snapshot.counts)}; pass the snapshot() of a UCB selector ({} before any selection)`,
        });
      }
      const restored = new Map<string, number>();
      for (const [agentId, count] of Object.entries(snapshot.counts)) {
        if (!Number.isInteger(count) || count < 0 || count > snapshot.selections) {
          throw new InvalidArgumentError({
            parameter: `snapshot.counts.${agentId}`,
            value: count,
            message: `snapshot.counts.${agentId} must be an integer in [0, selections = ${snapshot.selections}], got ${String(count)}`,
          });
        }
        restored.set(agentId, count);
      }
      selections = snapshot.selections;
      counts = restored;
    },
  };
}

function compareDescending(left: number, right: number): number {
  if (left === right) return 0;
  return left > right ? -1 : 1;
}

function assertOneOf(parameter: string, value: unknown, allowed: readonly string[]): void {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be one of ${allowed.map((item) => `'${item}'`).join(', ')}, got ${JSON.stringify(value)}`,
    });
  }
}
