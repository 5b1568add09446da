// Worker thread of the replay grid: receives each seed's prepared replay and conditions (an `init`
// message), then replays one unit per `run` message (a condition for the methods it names; the
// condition's attack plan comes with it) and posts its result back. Started by worker-pool.ts, once
// per replay run: it serves every seed. It never loads the answer engine: every answer decision is
// in the plan.
import { parentPort } from 'node:worker_threads';
import { InternalError, ReputeError } from '../../core/errors.js';
import { threadCpuMs } from './_thread-cpu.js';
import { resolveReplayMethods } from './methods.js';
import type { ReplayMethod } from './method.js';
import { runCondition, type ConditionSettings } from './run-condition.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './worker-pool.js';

// The current seed's grid, from its `init` message; every `run` until the next `init` belongs to it.
let current: { init: WorkerInit; settings: ConditionSettings } | undefined;
// Resolved method lists by their names joined, as units name them (a seed has at most a few lists).
const resolved = new Map<string, ReplayMethod[]>();
function methodsOf(names: readonly string[]): ReplayMethod[] {
  const key = names.join(',');
  let methods = resolved.get(key);
  if (methods === undefined) {
    methods = resolveReplayMethods(names);
    resolved.set(key, methods);
  }
  return methods;
}

parentPort?.on('message', (message: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    if (message.type === 'init') {
      const { init } = message;
      // Unknown names fail here, at the seed's start, before any unit is replayed.
      methodsOf(init.methods);
      current = { init, settings: { seed: init.seed, feedback: init.feedback, verifier: init.verifier } };
      return;
    }
    if (current === undefined) throw new InternalError('replay worker got a run before its init');
    const { unit } = message;
    const condition = current.init.conditions[unit.index];
    if (condition === undefined) throw new InternalError(`replay worker got unknown condition index ${unit.index}`);
    const result = runCondition({
      prepared: current.init.prepared,
      condition,
      methods: methodsOf(unit.methods),
      settings: current.settings,
      plan: message.plan,
      attacks: unit.attacks,
      reportAttacks: unit.reportAttacks === true,
    });
    const cpuMs = threadCpuMs();
    reply = { type: 'result', result, ...(cpuMs === undefined ? {} : { threadCpuMs: cpuMs }) };
  } catch (error) {
    const known = error instanceof ReputeError ? error.code : undefined;
    reply = {
      type: 'error',
      name: (error as Error).name,
      ...(known ? { code: known } : {}),
      message: (error as Error).message,
    };
  }
  parentPort?.postMessage(reply);
});
