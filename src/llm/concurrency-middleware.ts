import type { LanguageModelV3Middleware } from '@ai-sdk/provider';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { attemptLogOf } from './_attempt-log.js';
import { observeStream } from './_observe-stream.js';
import type { Semaphore } from './semaphore.js';

const knownConcurrencyOptions = defineOptionKeys<Parameters<typeof createConcurrencyMiddleware>[0]>()(['semaphore']);

/**
 * Holds a slot of `semaphore` for every call: a generate call until it returns, a stream until it
 * ends, errors or is cancelled. Share one semaphore among all models that call the same endpoint
 * ({@link createProviderLimiter}). Place it inside the retry middleware, so that waiting out a
 * backoff does not hold a slot.
 *
 * @example
 * const gate = createSemaphore(4);
 * wrapLanguageModel({ model, middleware: createConcurrencyMiddleware({ semaphore: gate }) });
 */
export function createConcurrencyMiddleware(options: { semaphore: Semaphore }): LanguageModelV3Middleware {
  assertKnownOptions('', options, knownConcurrencyOptions, 'createConcurrencyMiddleware');
  const { semaphore } = options;
  return {
    specificationVersion: 'v3',
    wrapGenerate({ doGenerate, params }) {
      // Tells the ledger (through the retry middleware's log) whether an abort caught the call
      // before its request was sent (still queued here: nothing billed) or after.
      const log = attemptLogOf(params);
      if (log !== undefined) log.queued = true;
      return semaphore.run(async () => {
        if (log !== undefined) log.queued = false;
        return doGenerate();
      }, params.abortSignal);
    },
    async wrapStream({ doStream, params }) {
      const log = attemptLogOf(params);
      if (log !== undefined) log.queued = true;
      const release = await semaphore.acquire(params.abortSignal);
      if (log !== undefined) log.queued = false;
      try {
        const result = await doStream();
        return { ...result, stream: observeStream(result.stream, { onEnd: release }) };
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}
