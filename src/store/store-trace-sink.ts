import type { Span, SpanData, TraceSink } from '../core/trace.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import type { EventInput, Store } from './types.js';

/** Options of {@link createStoreTraceSink}. */
export interface StoreTraceSinkOptions {
  /** Store the spans are written to. */
  readonly store: Store;
  /** Run whose log receives the events; it must exist. */
  readonly runId: string;
  /**
   * `immediate` appends each span to the log when it ends; `buffered` keeps ended spans until
   * `take()` hands them to {@link Store.recordTaskResult}, so a task's events commit with its result
   * and a crash mid-task leaves no orphan events. @default 'immediate'
   */
  readonly mode?: 'immediate' | 'buffered';
  /** Method stamped on every event. @default null */
  readonly method?: string | null;
}

/** A {@link TraceSink} that writes ended spans to a run's event log. */
export interface StoreTraceSink extends TraceSink {
  /** Ended spans not yet written (buffered mode; always empty in immediate mode). */
  pending(): readonly EventInput[];
  /** Removes and returns buffered events, all of them or only those of one task. */
  take(filter?: { taskId?: string }): EventInput[];
}

const knownStoreTraceSinkOptions = defineOptionKeys<StoreTraceSinkOptions>()(['store', 'runId', 'mode', 'method']);

/**
 * Creates a trace sink backed by the store, writing each ended span as one event.
 *
 * @example
 * const sink = createStoreTraceSink({ store, runId, mode: 'buffered', method: 'drf' });
 * const tracer = createTracer({ sink, now: clock });
 * // ... decide task t1, tracing into `tracer` ...
 * store.recordTaskResult({ runId, method: 'drf', taskId: 't1', result, events: sink.take({ taskId: 't1' }) });
 */
export function createStoreTraceSink(options: StoreTraceSinkOptions): StoreTraceSink {
  assertKnownOptions('', options, knownStoreTraceSinkOptions, 'createStoreTraceSink');
  const { store, runId, mode = 'immediate', method = null } = options;
  let buffer: EventInput[] = [];
  return {
    onSpanStart() {},
    onSpanEnd(span: Span) {
      const event = spanToEvent(span, method);
      if (mode === 'immediate') store.appendEvents(runId, [event]);
      else buffer.push(event);
    },
    pending() {
      return buffer.slice();
    },
    take(filter = {}) {
      if (filter.taskId === undefined) {
        const taken = buffer;
        buffer = [];
        return taken;
      }
      const taken = buffer.filter((event) => dataTaskId(event.data) === filter.taskId);
      buffer = buffer.filter((event) => dataTaskId(event.data) !== filter.taskId);
      return taken;
    },
  };
}

function spanToEvent(span: Span, method: string | null): EventInput {
  return {
    data: span.data,
    method,
    taskId: dataTaskId(span.data),
    spanId: span.id,
    parentId: span.parentId,
    startedAt: span.startedAt,
    endedAt: span.endedAt ?? null,
    error: span.error ?? null,
  };
}

function dataTaskId(data: SpanData): string | null {
  return 'taskId' in data && typeof data.taskId === 'string' ? data.taskId : null;
}
