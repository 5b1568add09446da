/**
 * How a stream ended: read to the end, errored, or cancelled by its reader. A stream that carried
 * an error part (the AI SDK's way of failing midway) ends as `error` with that part's error, even
 * though it was read to the end: it is a failed call, not a finished one. `from` says which:
 * `part` for an error part the provider sent, `stream` for a stream that broke (its read failed: a
 * connection reset, an abort, a timeout).
 */
export type StreamEnd =
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly error: unknown; readonly from: 'part' | 'stream' }
  | { readonly type: 'cancel'; readonly reason: unknown };

/**
 * Passes a stream through unchanged, calling `onPart` for every part and `onEnd` exactly once
 * when it ends, errors or is cancelled (so slots and ledgers are settled on every path). When
 * `onEnd` throws at the end of the stream or at its error, the stream errors with what it threw.
 */
export function observeStream<T>(
  source: ReadableStream<T>,
  { onPart, onEnd }: { onPart?: (part: T) => void; onEnd: (end: StreamEnd) => void },
): ReadableStream<T> {
  const reader = source.getReader();
  let ended = false;
  // The first error part, if any: it decides how the stream ended.
  let errorPart: { readonly error: unknown } | undefined;
  const end = (value: StreamEnd) => {
    if (ended) return;
    ended = true;
    onEnd(value);
  };
  return new ReadableStream<T>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        // What onEnd throws (a ledger that cannot book) replaces the error: it is thrown holding it.
        try {
          end({ type: 'error', error, from: 'stream' });
        } catch (failure) {
          controller.error(failure);
          return;
        }
        controller.error(error);
        return;
      }
      if (next.done) {
        end(errorPart === undefined ? { type: 'done' } : { type: 'error', error: errorPart.error, from: 'part' });
        controller.close();
        return;
      }
      if (errorPart === undefined && isErrorPart(next.value)) errorPart = { error: next.value.error };
      onPart?.(next.value);
      controller.enqueue(next.value);
    },
    cancel(reason) {
      end({ type: 'cancel', reason });
      return reader.cancel(reason);
    },
  });
}

function isErrorPart(part: unknown): part is { readonly type: 'error'; readonly error: unknown } {
  return typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'error';
}
