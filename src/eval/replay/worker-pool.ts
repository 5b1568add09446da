import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ReputeError, InternalError } from '../../core/errors.js';
import type { GridUnit } from './_grid-schedule.js';
import type { GridPlan } from './plan-grid.js';
import type { Condition, ConditionResult, FeedbackMode, PreparedReplay, ReplayVerifierSettings } from './types.js';

/** What every worker receives once, at start (each condition's plan comes with its run request). */
export interface WorkerInit {
  /** The ranked pool and the sampled tasks shared by all conditions. */
  readonly prepared: PreparedReplay;
  /** Every condition of the grid; requests name them by index. */
  readonly conditions: readonly Condition[];
  /** Names of the seed's methods (each `run` names the ones it replays). */
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
 * Units handed to each worker before its first result comes back (then one more per result): with
 * 2, a worker never waits for the calling thread to plan its next unit. Each unit in flight holds
 * only its condition's plan.
 */
export const conditionsAhead = 2;

/**
 * Messages to a worker: `init` starts a seed's grid (the prepared replay and its conditions), then
 * one `run` per unit (a condition, the methods to replay, ADAPT's attack list when another unit chose
 * it) with that condition's attack plan. A
 * worker serves every seed of a run, so its compiled code stays warm from one seed to the next.
 */
export type WorkerRequest =
  | { readonly type: 'init'; readonly init: WorkerInit }
  | { readonly type: 'run'; readonly unit: GridUnit; readonly plan: GridPlan };

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

/** Worker threads that replay conditions, kept for every seed of a run (see {@link createWorkerPool}). */
export interface WorkerPool {
  /**
   * Runs one seed's grid: worker `w` (0-based) takes units from `take(w + 1)` (lane 0 being the
   * calling thread, which may replay units itself), {@link conditionsAhead} at first and one more per
   * result, until `take` returns `undefined` and its units are back. Each unit's result is handed to
   * `onResult` as it arrives (in completion order; the caller restores grid order), so no result is
   * held here. `planFor(index)` plans the unit's condition in the calling thread when the unit is
   * handed out, so planning overlaps the workers' replay and no thread holds the whole grid's plan.
   * Resolves with each worker's thread CPU time so far (start-up included, in ms; Linux only). After a
   * failure the pool is unusable: close it.
   */
  run(
    init: WorkerInit,
    take: (lane: number) => GridUnit | undefined,
    planFor: (index: number) => GridPlan,
    onResult: (result: ConditionResult) => void,
  ): Promise<{ threadCpuMs: number[] }>;
  /** Stops every worker. */
  close(): Promise<void>;
}

/**
 * Starts `workers` replay worker threads, each with a young generation of
 * {@link workerYoungGenerationMb} MB. Close the pool when done.
 *
 * @example
 * const pool = createWorkerPool(2);
 * try {
 *   for (const seed of seeds) {
 *     const schedule = createGridSchedule({ conditions, methods, lanes: 3, plan });
 *     await pool.run(init(seed), schedule.take, schedule.planFor, onResult);
 *   }
 * } finally {
 *   await pool.close();
 * }
 */
export function createWorkerPool(workers: number): WorkerPool {
  const { url } = workerEntry();
  const threads = Array.from(
    { length: Math.max(1, workers) },
    () => new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: workerYoungGenerationMb } }),
  );
  const threadCpu: (number | undefined)[] = threads.map(() => undefined);
  let closing = false;
  // The current seed's handlers; a crash or an exit outside a run fails the next run.
  let active: { fail(error: Error): void; reply(thread: number, message: WorkerReply): void } | undefined;
  let broken: Error | undefined;
  const fail = (error: Error) => {
    broken ??= error;
    active?.fail(error);
  };
  threads.forEach((worker, thread) => {
    worker.on('message', (message: WorkerReply) => active?.reply(thread, message));
    worker.on('error', (error) => fail(new InternalError(`replay worker crashed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => {
      if (!closing) fail(new InternalError(`replay worker ${thread} exited with code ${code} before the run ended`));
    });
  });
  return {
    run(init, take, planFor, onResult) {
      if (broken !== undefined) return Promise.reject(broken);
      if (active !== undefined) return Promise.reject(new InternalError('replay worker pool: one run at a time'));
      return new Promise((resolve, reject) => {
        // Conditions handed to a worker whose result has not come back yet.
        let inFlight = 0;
        let failed = false;
        const finish = (error?: Error) => {
          active = undefined;
          if (error === undefined)
            resolve({ threadCpuMs: threadCpu.filter((value): value is number => value !== undefined) });
          else {
            broken ??= error;
            reject(error);
          }
        };
        const next = (thread: number) => {
          if (failed) return;
          const unit = take(thread + 1);
          if (unit === undefined) return;
          let plan: GridPlan;
          try {
            plan = planFor(unit.index);
          } catch (error) {
            failed = true;
            finish(error as Error);
            return;
          }
          inFlight++;
          threads[thread]?.postMessage({ type: 'run', unit, plan } satisfies WorkerRequest);
        };
        active = {
          fail(error) {
            if (failed) return;
            failed = true;
            finish(error);
          },
          reply(thread, reply) {
            if (failed) return;
            if (reply.type === 'error') {
              failed = true;
              finish(
                reply.code
                  ? Object.assign(new ReputeError(reply.code as never, reply.message), { name: reply.name })
                  : new InternalError(`replay worker failed: ${reply.name}: ${reply.message}`),
              );
              return;
            }
            inFlight--;
            if (reply.threadCpuMs !== undefined) threadCpu[thread] = reply.threadCpuMs;
            try {
              onResult(reply.result);
            } catch (error) {
              failed = true;
              finish(error as Error);
              return;
            }
            next(thread);
            if (inFlight === 0 && !failed) finish();
          },
        };
        // Messages on a port arrive in order: each worker takes the seed's data before its first run.
        // Two conditions ahead: while a worker replays one, the next already waits in its queue, so it
        // never idles while this thread plans the condition after.
        threads.forEach((worker, thread) => {
          worker.postMessage({ type: 'init', init } satisfies WorkerRequest);
          for (let ahead = 0; ahead < conditionsAhead; ahead++) next(thread);
        });
        if (inFlight === 0 && !failed) finish();
      });
    },
    async close() {
      closing = true;
      active = undefined;
      await Promise.all(threads.map((worker) => worker.terminate()));
    },
  };
}
