import { createHash, timingSafeEqual } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { InvalidArgumentError, ReputeError, StoreError, type ReputeErrorCode } from '../core/errors.js';
import { accessLogMiddleware } from './_access-log.js';
import { isLoopbackHost } from './_loopback.js';
import { withoutVariableNames } from './_public-message.js';
import type { CreateAppOptions, ServerContext } from './context.js';
import { apiRoutes } from './routes/api.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { eventRoutes } from './routes/events.js';
import { openAIRoutes } from './routes/openai.js';
import { openApiRoutes } from './routes/openapi.js';

const statusOf: Record<ReputeErrorCode, ContentfulStatusCode> = {
  invalid_argument: 400,
  data_format: 400,
  not_found: 404,
  provider: 502,
  convergence: 500,
  store: 500,
  transport: 502,
  internal: 500,
  run_failed: 500,
  interrupted: 503,
  unavailable: 503,
};

/**
 * Whether a store failure is another writer holding the store's lock past its busy timeout (SQLite's
 * `SQLITE_BUSY` or `SQLITE_LOCKED`, extended codes included, as the StoreError's cause): the request
 * may succeed when retried, so it is answered 503 with `Retry-After`, not 500.
 */
function storeBusy(error: unknown): boolean {
  if (!(error instanceof StoreError)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}

/** Seconds a client is told to wait before it retries a request that met a busy store. */
export const storeBusyRetryAfterSeconds = 1;

/** `code` of the JSON error body for the statuses the middleware answers itself. */
const httpCodes: Partial<Record<number, string>> = {
  401: 'unauthorized',
  403: 'forbidden',
  413: 'payload_too_large',
};

/** Where `npm run build` puts the dashboard, relative to this module in src/ and in dist/ alike. */
export const defaultAssetsDir = fileURLToPath(new URL('../../dist/server/dashboard/', import.meta.url));

/** Constant-time comparison of a presented token with the expected one (hashing first hides the length). */
export function tokenMatches(presented: string, expected: string): boolean {
  const left = createHash('sha256').update(presented).digest();
  const right = createHash('sha256').update(expected).digest();
  return timingSafeEqual(left, right);
}

/**
 * Builds the Repute service on hono: the JSON API over a store, SSE event streams, replay
 * outputs, the dashboard and (with a team) the OpenAI-compatible endpoint. Opens no port: serve
 * it with `startServer`, or test it with `app.request('/api/runs')`.
 *
 * @example
 * const app = createApp({ store: openStore({ path: 'repute.db' }), clock: { now: Date.now } });
 * const response = await app.request('/api/runs');
 */
export function createApp(options: CreateAppOptions): Hono {
  const {
    store,
    clock = { now: Date.now },
    team,
    replayDir,
    token,
    cors: corsOrigin,
    bodyLimit: maxBody = 1_048_576,
    assetsDir = defaultAssetsDir,
    pollMs = 250,
    version = '0.0.0',
    accessLog,
    telemetry,
  } = options;
  if (token !== undefined && token.length < 16) {
    throw new InvalidArgumentError({
      parameter: 'token',
      value: '[redacted]',
      message: 'token must be at least 16 characters; generate one with e.g. openssl rand -hex 32',
    });
  }
  if (!Number.isInteger(maxBody) || maxBody < 1) {
    throw new InvalidArgumentError({
      parameter: 'bodyLimit',
      value: maxBody,
      message: `bodyLimit must be a positive integer number of bytes, got ${maxBody}; pass e.g. 1048576`,
    });
  }
  if (!Number.isFinite(pollMs) || pollMs < 1) {
    throw new InvalidArgumentError({
      parameter: 'pollMs',
      value: pollMs,
      message: `pollMs must be ≥ 1 ms, got ${pollMs}; pass e.g. 250`,
    });
  }
  const authorized = (header: string | undefined) =>
    token === undefined || tokenMatches(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '', token);
  const context: ServerContext = {
    store,
    clock,
    team,
    replayDir,
    assetsDir,
    pollMs,
    version,
    telemetry,
    authorized,
  };
  const app = new Hono();
  if (accessLog !== undefined) app.use('*', accessLogMiddleware(accessLog, clock));

  app.onError((error, c) => {
    const openAI = c.req.path.startsWith('/v1/');
    if (error instanceof HTTPException) {
      const response = error.getResponse();
      const message = error.message || response.statusText || 'request refused';
      return openAI
        ? c.json({ error: { message, type: 'invalid_request_error', param: null, code: null } }, error.status)
        : c.json({ error: { code: httpCodes[error.status] ?? 'http_error', message } }, error.status);
    }
    const known = error instanceof ReputeError;
    const busy = storeBusy(error);
    const status = busy ? 503 : known ? statusOf[error.code] : 500;
    if (busy) c.header('Retry-After', String(storeBusyRetryAfterSeconds));
    // A provider's error may name the environment variable that holds a key: the full message goes
    // to the server log, the body gets it without the variable's name.
    const message = known ? withoutVariableNames(error.message) : 'internal error; see the server log';
    if (!known || status >= 500) console.error(error);
    const parameter = error instanceof InvalidArgumentError ? error.parameter : undefined;
    if (openAI) {
      const type =
        status === 400
          ? 'invalid_request_error'
          : status === 404
            ? 'not_found_error'
            : status === 502
              ? 'upstream_error'
              : 'server_error';
      return c.json(
        { error: { message, type, param: parameter ?? null, code: known ? error.code : 'internal' } },
        status,
      );
    }
    return c.json(
      { error: { code: known ? error.code : 'internal', message, ...(parameter === undefined ? {} : { parameter }) } },
      status,
    );
  });
  app.notFound((c) =>
    c.json(
      { error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}; see GET /openapi.json` } },
      404,
    ),
  );

  // On every response, errors included: no MIME sniffing (a JSON error echoing an id is never
  // read as HTML), no Referer leaving the page, and no framing by other sites (clickjacking).
  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('x-content-type-options', 'nosniff');
    c.res.headers.set('referrer-policy', 'no-referrer');
    c.res.headers.set('x-frame-options', 'DENY');
  });
  if (corsOrigin !== undefined)
    app.use(
      '*',
      cors({
        origin: corsOrigin,
        allowHeaders: ['authorization', 'content-type', 'last-event-id', 'x-repute-kind'],
        allowMethods: ['GET', 'POST', 'OPTIONS'],
      }),
    );
  if (token === undefined) {
    // Without a token the server is bound to loopback; a request naming another host is a page
    // whose name was re-pointed at 127.0.0.1 (DNS rebinding), which the browser treats as that
    // site's own origin, so CORS would not stop it reading the store or spending the team's keys.
    app.use('*', async (c, next) => {
      const hostname = new URL(c.req.url).hostname.replace(/^\[(.*)\]$/, '$1');
      if (!isLoopbackHost(hostname)) {
        throw new HTTPException(403, {
          message: `this server answers only requests addressed to localhost, 127.0.0.1 or [::1], not ${JSON.stringify(hostname.slice(0, 100))}; open it as http://127.0.0.1:<port>/, or start repute serve with --token to serve other host names`,
        });
      }
      return next();
    });
  } else {
    app.use('*', async (c, next) => {
      // The page shell and its bundle hold no data; everything they fetch needs the token. `/health`
      // answers probes without it, with no data then.
      if (
        c.req.method === 'GET' &&
        (c.req.path === '/' || c.req.path === '/health' || c.req.path.startsWith('/assets/'))
      )
        return next();
      if (c.req.method === 'OPTIONS') return next();
      if (!authorized(c.req.header('authorization'))) {
        throw new HTTPException(401, {
          message: 'missing or wrong bearer token; send Authorization: Bearer <token> as given to repute serve --token',
        });
      }
      return next();
    });
  }
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBody,
      onError: () => {
        throw new HTTPException(413, { message: `request body larger than ${maxBody} bytes` });
      },
    }),
  );

  app.route('/', apiRoutes(context));
  app.route('/', eventRoutes(context));
  app.route('/', openApiRoutes(context));
  app.route('/', openAIRoutes(context));
  app.route('/', dashboardRoutes(context));
  return app;
}
