// Worker thread of the replay grid: receives the prepared replay once (workerData), then runs one
// condition per message (its attack plan comes with it) and posts its result back. Started by
// worker-pool.ts. It never loads the answer engine: every answer decision is in the plan.
import { parentPort, workerData } from 'node:worker_threads';
import { InternalError, ReputeError } from '../../core/errors.js';
import { threadCpuMs } from './_thread-cpu.js';
import { resolveReplayMethods } from './methods.js';
import { runCondition } from './run-condition.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './worker-pool.js';

const init = workerData as WorkerInit;
const methods = resolveReplayMethods(init.methods);
const settings = { seed: init.seed, feedback: init.feedback, verifier: init.verifier };

parentPort?.on('message', (message: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const condition = init.conditions[message.index];
    if (condition === undefined) throw new InternalError(`replay worker got unknown condition index ${message.index}`);
    const result = runCondition({ prepared: init.prepared, condition, methods, settings, plan: message.plan });
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
