// One access-log line per request: when, what (method and path, never the query, body or headers),
// how it ended and how long it took. A served decision adds its task id, so a line leads to the
// stored trace without carrying its content.
import type { MiddlewareHandler } from 'hono';
import type { ServerClock } from './context.js';

/** Response header naming the stored task of a served decision; the access log prints it. */
export const taskIdHeader = 'x-repute-task-id';

/** Middleware that writes one line per request to `write`, after the response is made. */
export function accessLogMiddleware(write: (line: string) => void, clock: ServerClock): MiddlewareHandler {
  return async (c, next) => {
    const startedAt = performance.now();
    try {
      await next();
    } finally {
      const milliseconds = (performance.now() - startedAt).toFixed(1);
      const task = c.res.headers.get(taskIdHeader);
      const path = c.req.path.replace(/[^\x21-\x7e]/g, '?').slice(0, 300);
      write(
        `${new Date(clock.now()).toISOString()} ${c.req.method} ${path} ${c.res.status} ${milliseconds}ms${task ? ` task=${task}` : ''}`,
      );
    }
  };
}
