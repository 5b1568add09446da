import { InvalidArgumentError } from '../core/errors.js';
import { assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';

/** A counting semaphore with a FIFO wait queue. */
export interface Semaphore {
  /** Maximum number of holders at once, integer ≥ 1. */
  readonly limit: number;
  /** Current holders. */
  readonly active: number;
  /** Callers waiting for a slot. */
  readonly waiting: number;
  /**
   * Waits for a slot (FIFO) and returns its release function (idempotent). An aborted signal
   * rejects the wait and gives up the place in the queue.
   */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** Runs `work` while holding a slot. */
  run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/**
 * Creates a semaphore that lets at most `limit` holders in at once.
 *
 * @example
 * const gate = createSemaphore(4);
 * await gate.run(() => fetch(url));
 */
export function createSemaphore(limit: number): Semaphore {
  assertInteger('limit', limit, 1, Number.MAX_SAFE_INTEGER, 'pass the maximum number of concurrent requests, e.g. 8');
  let active = 0;
  const queue: Array<{ grant: () => void }> = [];

  const releaser = (): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      if (next) next.grant();
      else active -= 1;
    };
  };

  const semaphore: Semaphore = {
    limit,
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (active < limit) {
        active += 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const entry = {
          // The releasing holder hands its slot over, so `active` stays unchanged.
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(releaser());
          },
        };
        const onAbort = () => {
          const index = queue.indexOf(entry);
          if (index >= 0) queue.splice(index, 1);
          reject(abortReason(signal!));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(entry);
      });
    },
    async run(work, signal) {
      const release = await semaphore.acquire(signal);
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
  return semaphore;
}

/** Semaphores keyed by endpoint (`provider` + base URL), shared by every model that calls it. */
export interface ProviderLimiter {
  /** Limit used for keys without their own. */
  readonly defaultLimit: number;
  /**
   * The semaphore of `key`, created on first use with `limit` (or the key's configured limit, or
   * the default). Asking again with a different explicit limit throws.
   */
  semaphore(key: string, limit?: number): Semaphore;
}

/** Options of {@link createProviderLimiter}. */
export interface ProviderLimiterOptions {
  /** Concurrent requests per endpoint when nothing else is said, integer ≥ 1. @default 8 */
  readonly defaultLimit?: number;
  /** Limits for particular keys (`provider|baseURL`). @default {} */
  readonly limits?: Readonly<Record<string, number>>;
}

const knownLimiterOptions = defineOptionKeys<ProviderLimiterOptions>()(['defaultLimit', 'limits']);

/**
 * Creates a registry of per-endpoint semaphores, so that all agents calling the same provider and
 * base URL share one concurrency bound.
 *
 * @example
 * const limiter = createProviderLimiter({ defaultLimit: 4 });
 * const model = createLanguageModel({ provider: 'openai', model: 'gpt-4o-mini', limiter });
 */
export function createProviderLimiter(options: ProviderLimiterOptions = {}): ProviderLimiter {
  assertKnownOptions('', options, knownLimiterOptions, 'createProviderLimiter');
  const { defaultLimit = 8, limits = {} } = options;
  assertInteger('defaultLimit', defaultLimit, 1, Number.MAX_SAFE_INTEGER);
  for (const [key, limit] of Object.entries(limits))
    assertInteger(`limits[${JSON.stringify(key)}]`, limit, 1, Number.MAX_SAFE_INTEGER);
  const semaphores = new Map<string, Semaphore>();
  return {
    defaultLimit,
    semaphore(key, limit) {
      const existing = semaphores.get(key);
      if (existing) {
        if (limit !== undefined && limit !== existing.limit) {
          throw new InvalidArgumentError({
            parameter: 'maxConcurrency',
            value: limit,
            message: `endpoint ${key} already has a concurrency limit of ${existing.limit}, got ${limit} for another model; give every model on one endpoint the same maxConcurrency`,
          });
        }
        return existing;
      }
      const created = createSemaphore(limit ?? limits[key] ?? defaultLimit);
      semaphores.set(key, created);
      return created;
    },
  };
}

/** Key of an endpoint in a {@link ProviderLimiter}: provider name and base URL. */
export function endpointKey(provider: string, baseURL: string | undefined): string {
  return `${provider}|${baseURL ?? 'default'}`;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
