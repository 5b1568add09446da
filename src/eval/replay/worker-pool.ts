import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ReputeError, InternalError } from '../../core/errors.js';
import type { GridPlan } from './plan-grid.js';
import type { Condition, ConditionResult, FeedbackMode, PreparedReplay, ReplayVerifierSettings } from './types.js';

/** What every worker receives once, at start (each condition's plan comes with its run request). */
export interface WorkerInit {
  /** The ranked pool and the sampled tasks shared by all conditions. */
  readonly prepared: PreparedReplay;
  /** Every condition of the grid; requests name them by index. */
  readonly conditions: readonly Condition[];
  /** Names of the methods to replay in every condition. */
  readonly methods: readonly string[];
  /** Replay seed; per-condition and per-method seeds derive from it. */
  readonly seed: number;
  /** Post-task feedback of the stateful methods. */
  readonly feedback: FeedbackMode;
  /** The verifier judging the team's proposals. */
  readonly verifier: ReplayVerifierSettings;
}

/**
 * Young-generation cap of each replay worker, in MB. A worker allocates short-lived objects at a high
 * rate (proposals, evidence, decisions) and keeps little; V8's default young generation (up to 48 MB
 * per thread) only adds resident memory. Measured on MATH-L5 (250 tasks, 2 workers, dist): peak RSS
 * 286–296 MB with the default vs 226–227 MB with 8 MB, worker CPU time unchanged (6.4–7.4 s vs 6.3–6.6 s).
 */
export const workerYoungGenerationMb = 8;

/**
 * Conditions handed to each worker before its first result comes back (then one more per result):
 * with 2, a worker never waits for the calling thread to plan its next condition. Each condition in
 * flight holds only its own plan.
 */
export const conditionsAhead = 2;

/** Messages to a worker: one condition index per message, with that condition's attack plan. */
export type WorkerRequest = { readonly type: 'run'; readonly index: number; readonly plan: GridPlan };

/** Messages from a worker. */
export type WorkerReply =
  | {
      readonly type: 'result';
      readonly result: ConditionResult;
      /** CPU time the worker's thread has used so far (start-up included), in ms; Linux only. */
      readonly threadCpuMs?: number;
    }
  | { readonly type: 'error'; readonly name: string; readonly code?: string; readonly message: string };

/**
 * Where the worker module lives and how to start it: next to this module, as `.js` under dist. From
 * source (`.ts`, under tsx or vitest) the worker is a tiny ES-module bootstrap that registers tsx's
 * ESM loader (`tsx/esm/api` `register()`) and then imports `replay-worker.ts`; on
 * Node 20, `execArgv: ['--import', 'tsx']` does not give a worker thread the TypeScript loader.
 */
export function workerEntry(moduleUrl: string = import.meta.url): { url: URL } {
  if (!moduleUrl.endsWith('.ts')) return { url: new URL('./replay-worker.js', moduleUrl) };
  const tsxRoot = dirname(createRequire(moduleUrl).resolve('tsx/package.json'));
  const api = pathToFileURL(join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href;
  const worker = new URL('./replay-worker.ts', moduleUrl).href;
  const bootstrap = `import { register } from ${JSON.stringify(api)};\nregister();\nawait import(${JSON.stringify(worker)});\n`;
  return { url: new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`) };
}

/**
 * Runs conditions on `workers` worker threads: each worker takes condition indices from one queue,
 * {@link conditionsAhead} at first and one more per result, and each result is handed to `onResult`
 * as it arrives (in completion order; the caller restores grid order), so no result is held here.
 * `planFor(index)` plans one condition in the calling thread when it is handed out, so planning
 * overlaps the workers' replay and no thread holds the whole grid's plan; the plan travels with the
 * run request.
 */
export async function runOnWorkers(
  init: WorkerInit,
  indices: readonly number[],
  workers: number,
  planFor: (index: number) => GridPlan,
  onResult: (result: ConditionResult) => void,
): Promise<{ threadCpuMs: number[] }> {
  const { url } = workerEntry();
  const queue = indices.slice();
  let received = 0;
  const threadCpu: number[] = [];
  const threads: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let running = 0;
      let failed = false;
      const count = Math.max(1, Math.min(workers, queue.length));
      if (queue.length === 0) {
        resolve();
        return;
      }
      const spawned: Worker[] = [];
      for (let slot = 0; slot < count; slot++) {
        const worker = new Worker(url, {
          workerData: init,
          resourceLimits: { maxYoungGenerationSizeMb: workerYoungGenerationMb },
        });
        const thread = slot;
        spawned.push(worker);
        threads.push(worker);
        running++;
        // Conditions sent to this worker and not yet answered.
        let inFlight = 0;
        const next = () => {
          if (failed) return;
          const index = queue.shift();
          if (index === undefined) {
            if (inFlight === 0) void worker.terminate();
            return;
          }
          let plan: GridPlan;
          try {
            plan = planFor(index);
          } catch (error) {
            failed = true;
            reject(error);
            return;
          }
          worker.postMessage({ type: 'run', index, plan } satisfies WorkerRequest);
          inFlight++;
        };
        // Two conditions ahead: while the worker replays one, the next is already waiting in its
        // queue, so it never idles while this thread plans the condition after.
        worker.on('online', () => {
          for (let ahead = 0; ahead < conditionsAhead; ahead++) next();
        });
        worker.on('message', (reply: WorkerReply) => {
          if (failed) return;
          if (reply.type === 'error') {
            failed = true;
            const error = new InternalError(`replay worker failed: ${reply.name}: ${reply.message}`);
            reject(
              reply.code
                ? Object.assign(new ReputeError(reply.code as never, reply.message), { name: reply.name })
                : error,
            );
            return;
          }
          received++;
          inFlight--;
          if (reply.threadCpuMs !== undefined) threadCpu[thread] = reply.threadCpuMs;
          try {
            onResult(reply.result);
          } catch (error) {
            failed = true;
            reject(error);
            return;
          }
          next();
        });
        worker.on('error', (error) => {
          if (failed) return;
          failed = true;
          reject(new InternalError(`replay worker crashed: ${error.message}`, { cause: error }));
        });
        worker.on('exit', () => {
          running--;
          if (running === 0 && !failed) {
            if (received === indices.length) resolve();
            else reject(new InternalError(`replay workers exited after ${received} of ${indices.length} conditions`));
          }
        });
      }
    });
  } finally {
    await Promise.all(threads.map((thread) => thread.terminate()));
  }
  return { threadCpuMs: threadCpu.filter((value) => value !== undefined) };
}
