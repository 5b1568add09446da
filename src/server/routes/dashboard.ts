// The dashboard: one HTML page (hash routes: runs list, run page, replay page) and its bundled
// script and stylesheet, built by scripts/build-dashboard.mjs into dist/server/dashboard. Nothing
// is loaded from a CDN.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import type { ServerContext } from '../context.js';

const assetTypes: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The page shell; the script renders everything from the JSON API. */
export function dashboardHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Repute</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<header><a href="#/" class="brand">Repute</a><nav><a href="#/">Runs</a><a href="#/replays">Replays</a><a href="#/teams">Teams</a></nav><span id="live" class="live" hidden>live</span></header>
<main id="main"><p>Loading…</p></main>
<script type="module" src="/assets/app.js"></script>
</body>
</html>
`;
}

/** Routes `/` and `/assets/*`. */
export function dashboardRoutes(context: ServerContext): Hono {
  const app = new Hono();
  const cache = new Map<string, string>();
  const read = (file: string): string | undefined => {
    if (context.assetsDir === undefined) return undefined;
    const cached = cache.get(file);
    if (cached !== undefined) return cached;
    const path = join(context.assetsDir, file);
    if (!existsSync(path)) return undefined;
    const text = readFileSync(path, 'utf8');
    cache.set(file, text);
    return text;
  };
  app.get('/', (c) => {
    if (read('app.js') === undefined) {
      return c.text(
        `dashboard assets not found in ${context.assetsDir ?? '(none)'}; run npm run build (the JSON API under /api works without them)`,
        503,
      );
    }
    c.header(
      'content-security-policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    return c.html(dashboardHtml());
  });
  app.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = assetTypes[file];
    const text = type === undefined ? undefined : read(file);
    if (type === undefined || text === undefined)
      return c.json(
        {
          error: {
            code: 'not_found',
            message: `no asset ${JSON.stringify(file)}; the dashboard serves app.js and app.css`,
          },
        },
        404,
      );
    c.header('content-type', type);
    c.header('cache-control', 'no-cache');
    return c.body(text);
  });
  return app;
}
