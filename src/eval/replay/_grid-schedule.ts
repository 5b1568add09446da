// How a seed's grid is shared among the replay's lanes (the calling thread and the worker threads):
// the units of work, which lane takes which, each condition's plan made once, and the units' results
// merged back into one result per condition.
import { InternalError } from '../../core/errors.js';
import type { AttackPlan } from './attacks.js';
import type { ReplayMethod } from './method.js';
import type { GridPlan } from './plan-grid.js';
import type { Condition, ConditionResult, MethodRun } from './types.js';

/** One piece of a seed's grid: a condition, replayed for some of its methods. */
export interface GridUnit {
  /** The condition's index in the grid. */
  readonly index: number;
  /** The names of the methods the unit replays, in report order. */
  readonly methods: readonly string[];
  /** ADAPT, the MiniRep unit of a cut condition: its result must carry the attacks MiniRep chose. */
  readonly reportAttacks?: boolean;
  /** ADAPT, the other unit of a cut condition: the attacks to replay (no MiniRep runs). */
  readonly attacks?: readonly AttackPlan[];
}

/** A seed's grid cut into units, with the bookkeeping to plan them and put their results together. */
export interface GridSchedule {
  /**
   * The next unit for `lane` (0 is the calling thread, 1… the workers), or `undefined` when none is
   * ready: all are handed out, or the rest wait for an ADAPT attack list that a unit in flight will
   * bring back (ask again after its result).
   */
  take(lane: number): GridUnit | undefined;
  /**
   * The plan of condition `index`: made by `plan` for the condition's first unit and kept until its
   * last unit is handed out, so a condition is planned once and no plan outlives its units.
   */
  planFor(index: number): GridPlan;
  /**
   * Adds one unit's result. Returns the condition's result, with every method's run in report order
   * (and no attack list), once all its units are in; `undefined` while some are still out.
   */
  merge(result: ConditionResult): ConditionResult | undefined;
}

interface PendingUnit {
  readonly index: number;
  readonly methods: readonly string[];
  readonly reportAttacks: boolean;
  /** Waits for the attacks of its condition's MiniRep unit. */
  readonly needsAttacks: boolean;
  taken: boolean;
}

/**
 * Cuts a seed's grid into units for `lanes` lanes. With one lane, or methods of one family only, a
 * unit is a whole condition and every lane takes them in grid order. Otherwise each condition is cut
 * by method family (see {@link ReplayMethod.family}): the calling thread takes the `minirep` units,
 * the workers the `baseline` units, and a lane whose own units are all handed out takes the others'.
 * A V8 isolate then compiles one family's code instead of both (MiniRep's alone is about 3.5 s of
 * optimising-compiler time over the first pass of the full MATH-L5 grid), and each call site sees
 * fewer shapes. ADAPT's attacks are chosen by MiniRep's run, so the `baseline` unit of an ADAPT
 * condition waits for the attacks its `minirep` unit reports; the calling thread takes the ADAPT
 * units first, and a worker skips a unit still waiting. Each method's run is the same whichever unit
 * replays it (its seeds derive from the run seed, the condition and its own name), so the merged
 * results equal a whole condition's.
 *
 * @example
 * const schedule = createGridSchedule({ conditions, methods, lanes: 2, plan: (index) => planGrid(...) });
 * for (let unit = schedule.take(0); unit !== undefined; unit = schedule.take(0)) { ... }
 */
export function createGridSchedule({
  conditions,
  methods,
  lanes,
  plan,
}: {
  conditions: readonly Condition[];
  methods: readonly ReplayMethod[];
  lanes: number;
  /** Plans one condition (called once per condition, when its first unit is handed out). */
  plan: (index: number) => GridPlan;
}): GridSchedule {
  const names = methods.map((method) => method.name);
  const driverFamily = names.filter((_, position) => methods[position]?.family === 'minirep');
  const baselineFamily = names.filter((_, position) => methods[position]?.family !== 'minirep');
  const split = lanes > 1 && driverFamily.length > 0 && baselineFamily.length > 0;
  const unit = (index: number, unitMethods: readonly string[], kind: 'whole' | 'report' | 'needs'): PendingUnit => ({
    index,
    methods: unitMethods,
    reportAttacks: kind === 'report',
    needsAttacks: kind === 'needs',
    taken: false,
  });
  // The calling thread's units, then the workers'; each in grid order, the ADAPT units first.
  const lists: PendingUnit[][] = [[], []];
  const unitCount = new Map<number, number>();
  const adaptFirst = [...conditions].sort(
    (left, right) => Number(right.attack === 'ADAPT') - Number(left.attack === 'ADAPT') || left.index - right.index,
  );
  for (const condition of split ? adaptFirst : conditions) {
    if (!split) {
      (lists[0] as PendingUnit[]).push(unit(condition.index, names, 'whole'));
      unitCount.set(condition.index, 1);
      continue;
    }
    const adapt = condition.attack === 'ADAPT';
    (lists[0] as PendingUnit[]).push(unit(condition.index, driverFamily, adapt ? 'report' : 'whole'));
    (lists[1] as PendingUnit[]).push(unit(condition.index, baselineFamily, adapt ? 'needs' : 'whole'));
    unitCount.set(condition.index, 2);
  }
  // Attacks reported by ADAPT MiniRep units, held until the condition's other unit is handed out.
  const attacksOf = new Map<number, readonly AttackPlan[]>();
  const takeFrom = (list: number): GridUnit | undefined => {
    for (const pending of lists[list] as PendingUnit[]) {
      if (pending.taken || (pending.needsAttacks && !attacksOf.has(pending.index))) continue;
      pending.taken = true;
      if (pending.needsAttacks) {
        const attacks = attacksOf.get(pending.index) as readonly AttackPlan[];
        attacksOf.delete(pending.index);
        return { index: pending.index, methods: pending.methods, attacks };
      }
      return pending.reportAttacks
        ? { index: pending.index, methods: pending.methods, reportAttacks: true }
        : { index: pending.index, methods: pending.methods };
    }
    return undefined;
  };
  const plans = new Map<number, { plan: GridPlan; handedOut: number }>();
  const parts = new Map<number, { runs: MethodRun[]; missing: number; arrived: number }>();
  const order = new Map(names.map((name, position) => [name, position]));
  return {
    take(lane) {
      // Without a split every unit is in the first list, so every lane takes from it.
      const own = split && lane > 0 ? 1 : 0;
      return takeFrom(own) ?? takeFrom(1 - own);
    },
    planFor(index) {
      const units = unitCount.get(index);
      if (units === undefined) throw new InternalError(`replay: no condition ${index} in the grid`);
      let entry = plans.get(index);
      if (entry === undefined) {
        entry = { plan: plan(index), handedOut: 0 };
        plans.set(index, entry);
      }
      entry.handedOut++;
      if (entry.handedOut >= units) plans.delete(index);
      return entry.plan;
    },
    merge(result) {
      const units = unitCount.get(result.index);
      if (units === undefined)
        throw new InternalError(`replay: a result for condition ${result.index}, not in the grid`);
      if (result.attacks !== undefined) attacksOf.set(result.index, result.attacks);
      if (units === 1) return result;
      let part = parts.get(result.index);
      if (part === undefined) {
        part = { runs: [], missing: result.missing, arrived: 0 };
        parts.set(result.index, part);
      }
      part.runs.push(...result.runs);
      part.arrived++;
      if (part.arrived < units) return undefined;
      parts.delete(result.index);
      const runs = part.runs.sort((left, right) => (order.get(left.method) ?? 0) - (order.get(right.method) ?? 0));
      if (runs.length !== names.length)
        throw new InternalError(
          `replay: condition ${result.index} came back with ${runs.length} of ${names.length} runs`,
        );
      return { index: result.index, runs, missing: part.missing };
    },
  };
}
