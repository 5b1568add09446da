import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The layer picture of docs/architecture.md, checked on the source: a folder imports only folders of a
// lower layer (test files and test-only helpers may reach further: they wire whole stacks together).
const layers: readonly (readonly string[])[] = [
  ['core'],
  ['reputation', 'selection', 'aggregation'],
  ['agents', 'embeddings', 'tasks', 'transport'],
  ['protocols'],
  ['llm'],
  ['eval'],
  ['store'],
  ['server'],
  ['cli', 'testing'],
];
const rank = new Map(layers.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));
const root = join(process.cwd(), 'src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return path.endsWith(join('server', 'dashboard', 'client')) ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const testOnly = (path: string) => /\.test\.ts$|\/_test-[^/]*$|\/_testing\/|\/_sigkill-worker\.ts$/.test(path);

describe('layers', () => {
  it('every folder of src/ has a layer', () => {
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !rank.has(folder))).toEqual([]);
  });

  it('no source file imports a folder of the same or a higher layer', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(root)) {
      const from = relative(root, file).split('/')[0] as string;
      if (from === 'index.ts' || testOnly(file)) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = relative(root, normalize(join(dirname(file), match[1] as string))).split('/')[0] as string;
        if (target === from || !rank.has(target)) continue;
        if ((rank.get(target) as number) >= (rank.get(from) as number))
          violations.push(`${relative(process.cwd(), file)} imports ${match[1]} (${from} -> ${target})`);
      }
    }
    expect(violations).toEqual([]);
  });
});
