import { readFileSync } from 'node:fs';

/** The package version, read from package.json (two levels above both src/cli and dist/cli). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
