// Worker thread of the replay grid: receives each seed's prepared replay and conditions (an `init`
// message), then replays one unit per `run` message (a condition for the methods it names; the
// condition's attack plan comes with it) and posts its result back. Started by worker-pool.ts, once
// per replay run: it serves every seed. Its grid work never needs the answer engine (every answer
// decision is in the plan); before the first seed, while the calling thread keys the dataset's
// answers, it may be asked to key some of them too (a `keys` message), and loads the engine for that.
import { parentPort } from 'node:worker_threads';
import { InternalError, ReputeError } from '../../core/errors.js';
import { threadCpuMs } from './_thread-cpu.js';
import { resolveReplayMethods } from './methods.js';
import type { ReplayMethod } from './method.js';
import { runCondition, type ConditionSettings } from './run-condition.js';
import type { AnswerOps } from './answer-ops.js';
import type { KeyRequest, WorkerInit, WorkerReply, WorkerRequest } from './worker-pool.js';

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

function errorReply(error: unknown): WorkerReply {
  const known = error instanceof ReputeError ? error.code : undefined;
  return {
    type: 'error',
    name: (error as Error).name,
    ...(known ? { code: known } : {}),
    message: (error as Error).message,
  };
}

// The default answer operations, loaded on the first `keys` request (the engine is a large module).
let answerOps: AnswerOps | undefined;
async function canonicalKeys(answers: readonly KeyRequest[]): Promise<WorkerReply> {
  try {
    if (answerOps === undefined) {
      const { createDefaultAnswerOps } = await import('./default-answer-ops.js');
      answerOps = createDefaultAnswerOps();
    }
    const ops = answerOps;
    return { type: 'keys', keys: answers.map(([kind, raw]) => ops.canonical(kind, raw)) };
  } catch (error) {
    return errorReply(error);
  }
}

parentPort?.on('message', (message: WorkerRequest) => {
  if (message.type === 'keys') {
    // The caller waits for this reply before it sends anything else.
    void canonicalKeys(message.answers).then((reply) => parentPort?.postMessage(reply));
    return;
  }
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
    reply = errorReply(error);
  }
  parentPort?.postMessage(reply);
});
