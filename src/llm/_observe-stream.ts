/** How a stream ended: read to the end, errored, or cancelled by its reader. */
export type StreamEnd =
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly error: unknown }
  | { readonly type: 'cancel'; readonly reason: unknown };

/**
 * Passes a stream through unchanged, calling `onPart` for every part and `onEnd` exactly once
 * when it ends, errors or is cancelled (so slots and ledgers are settled on every path).
 */
export function observeStream<T>(
  source: ReadableStream<T>,
  { onPart, onEnd }: { onPart?: (part: T) => void; onEnd: (end: StreamEnd) => void },
): ReadableStream<T> {
  const reader = source.getReader();
  let ended = false;
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
        end({ type: 'error', error });
        controller.error(error);
        return;
      }
      if (next.done) {
        end({ type: 'done' });
        controller.close();
        return;
      }
      onPart?.(next.value);
      controller.enqueue(next.value);
    },
    cancel(reason) {
      end({ type: 'cancel', reason });
      return reader.cancel(reason);
    },
  });
}
