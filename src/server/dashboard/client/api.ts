// Fetches the JSON API with the bearer token the user entered (kept in sessionStorage only), and
// follows SSE streams with fetch (EventSource cannot send an Authorization header).

const TOKEN_KEY = 'repute-token';

/** Thrown when the server wants a token; `refused` when one was sent and is wrong. */
export class UnauthorizedError extends Error {
  constructor(readonly refused: boolean) {
    super(refused ? 'token refused' : 'token required');
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

/** Stores the token for this tab. */
export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** GETs a JSON document; API errors become exceptions carrying the server's message. */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: headers() });
  if (response.status === 401) throw new UnauthorizedError(sessionStorage.getItem(TOKEN_KEY) !== null);
  const body = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body;
}

/** One SSE message. */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * Follows an SSE endpoint until `signal` aborts or the server ends the stream; reconnects after a
 * dropped connection with `Last-Event-ID`, so no event is lost or repeated.
 */
export async function followEvents(
  path: string,
  onMessage: (message: SseMessage) => void,
  signal: AbortSignal,
): Promise<void> {
  let lastId: string | undefined;
  let ended = false;
  while (!signal.aborted && !ended) {
    try {
      const response = await fetch(path, {
        headers: headers(lastId === undefined ? {} : { 'last-event-id': lastId }),
        signal,
      });
      if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') id = text;
            else if (field === 'event') event = text;
            else if (field === 'data') data.push(text);
          }
          if (id !== undefined) lastId = id;
          if (event === 'end') ended = true;
          onMessage({ id, event, data: data.join('\n') });
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
