// Worker thread of the replay grid: receives the prepared replay once, then runs one condition per
// message and posts its result back. Started by worker-pool.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { InternalError, ReputeError } from '../../core/errors.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { resolveReplayMethods } from './methods.js';
import { runCondition } from './run-condition.js';
import type { WorkerInit, WorkerReply } from './worker-pool.js';

const init = workerData as WorkerInit;
const methods = resolveReplayMethods(init.methods);
const settings = { seed: init.seed, feedback: init.feedback, verifierAccuracy: init.verifierAccuracy, ops: createDefaultAnswerOps() };

parentPort?.on('message', (message: { type: 'run'; index: number }) => {
  let reply: WorkerReply;
  try {
    const condition = init.conditions[message.index];
    if (condition === undefined) throw new InternalError(`replay worker got unknown condition index ${message.index}`);
    reply = { type: 'result', result: runCondition({ prepared: init.prepared, condition, methods, settings }) };
  } catch (error) {
    const known = error instanceof ReputeError ? error.code : undefined;
    reply = { type: 'error', name: (error as Error).name, ...(known ? { code: known } : {}), message: (error as Error).message };
  }
  parentPort?.postMessage(reply);
});
