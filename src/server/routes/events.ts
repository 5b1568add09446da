// `GET /api/runs/:id/events`: a run's event log as Server-Sent Events, following a run that another
// process is still writing. Each event's SSE id is its seq, so a client that reconnects with
// `Last-Event-ID` (or `?after=`) continues after the last event it saw.
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { ServerContext } from '../context.js';
import { parseInput } from '../_validate.js';
import { requireRun } from '../run-views.js';
import { eventsQuery, lastEventIdHeader, runParams } from '../schemas.js';

// The header in an object, so that an error names it: `header.last-event-id`.
const lastEventIdHeaders = z.object({ 'last-event-id': lastEventIdHeader });

/** Most events sent per store poll (a long backlog is sent in several batches). */
const BATCH = 500;

/** The SSE route. The stream ends with an `end` event once the run has stopped and every event was sent. */
export function eventRoutes(context: ServerContext): Hono {
  const { store } = context;
  const app = new Hono();
  app.get('/api/runs/:id/events', (c) => {
    const { id } = parseInput(runParams, c.req.param(), 'path');
    const query = parseInput(eventsQuery, c.req.query(), 'query');
    const header = c.req.header('last-event-id');
    let after =
      header === undefined
        ? query.after
        : parseInput(lastEventIdHeaders, { 'last-event-id': header }, 'header')['last-event-id'];
    let status = requireRun(store, id).status;
    c.header('cache-control', 'no-cache');
    c.header('x-accel-buffering', 'no');
    return streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      await stream.writeSSE({ event: 'status', data: JSON.stringify({ runId: id, status }) });
      let idle = 0;
      while (open) {
        // Read the status before the events: a run's events are committed before its status
        // changes, so a stopped run whose backlog reads empty has nothing more to send.
        const current = store.getRun(id)?.status ?? status;
        const events = store.events(id, { afterSeq: after, limit: BATCH });
        for (const event of events) {
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
          after = event.seq;
        }
        if (current !== status) {
          status = current;
          await stream.writeSSE({ event: 'status', data: JSON.stringify({ runId: id, status }) });
        }
        if (events.length === 0 && current !== 'running') {
          await stream.writeSSE({ event: 'end', data: JSON.stringify({ runId: id, status: current, lastSeq: after }) });
          break;
        }
        if (events.length < BATCH) {
          idle = events.length === 0 ? idle + 1 : 0;
          // A comment line every ~15 s keeps proxies from closing an idle stream.
          if (idle > 0 && idle % Math.max(1, Math.round(15_000 / context.pollMs)) === 0)
            await stream.write(': keep-alive\n\n');
          await stream.sleep(context.pollMs);
        }
      }
    });
  });
  return app;
}
