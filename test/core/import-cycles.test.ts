import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Import cycles in src/, type-only imports included (a type import still ties two modules' designs
// together): there must be none. (The store's, store.ts and its table modules importing each other,
// was broken by moving the Store and record types into store/types.ts and the composition into
// store/_assemble-store.ts.)
const root = join(process.cwd(), 'src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return path.endsWith(join('server', 'dashboard', 'client')) ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Each source file's relative imports and re-exports (static and dynamic), as source paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) =>
      relative(root, normalize(join(dirname(file), match[1] as string))).replace(/\.js$/, '.ts'),
    );
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** The strongly connected components with more than one module (Tarjan), or a module importing itself. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import cycles', () => {
  it('finds a cycle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
      ['e.ts', ['e.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('has none in src/', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(300);
    expect(cycles(graph)).toEqual([]);
  });
});
