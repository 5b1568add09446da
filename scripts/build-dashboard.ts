// Bundles the dashboard (src/server/dashboard/client, uPlot included) with esbuild into
// dist/server/dashboard/{app.js, app.css}: no CDN, works offline. Run by `npm run build` and
// `prepare`; the browser test builds into a temporary folder with `buildDashboard(dir)`.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Largest first load the dashboard may have: HTML shell + app.js + app.css, in bytes. */
export const FIRST_LOAD_BUDGET = 300 * 1024;

/** Builds the bundle into `outDir`; returns the byte size of each file. Throws over the budget. */
export async function buildDashboard(
  outDir = join(root, 'dist/server/dashboard'),
): Promise<{ js: number; css: number }> {
  await build({
    entryPoints: [join(root, 'src/server/dashboard/client/main.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    legalComments: 'eof',
    outfile: join(outDir, 'app.js'),
    logLevel: 'warning',
  });
  const sizes = { js: statSync(join(outDir, 'app.js')).size, css: statSync(join(outDir, 'app.css')).size };
  if (sizes.js + sizes.css > FIRST_LOAD_BUDGET) {
    throw new Error(
      `dashboard bundle is ${sizes.js + sizes.css} bytes, over the ${FIRST_LOAD_BUDGET}-byte first-load budget`,
    );
  }
  return sizes;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = await buildDashboard(process.argv[2]);
  process.stdout.write(`dashboard: app.js ${sizes.js} B, app.css ${sizes.css} B\n`);
}
