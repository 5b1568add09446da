import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The root entry `repute` is the first user's surface: the quick start's names, one factory per part
// of each concept and the main types, at most 80 names, runtime and type exports together (it once
// re-exported 12 barrels, 930 names). Everything else comes from its concept's subpath.
const root = process.cwd();
const entry = join(root, 'src/index.ts');

/** Every name the root exports (values and types), resolved through its re-exports by the compiler. */
function rootExports(): { name: string; value: boolean }[] {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`cannot read the exports of ${entry}`);
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return { name: symbol.name, value: (target.flags & ts.SymbolFlags.Value) !== 0 };
  });
}

/** Names imported from the root (`from 'repute'`) in a Markdown or TypeScript file. */
function importedFromRoot(text: string): string[] {
  return [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'repute'/g)].flatMap((match) =>
    (match[1] as string)
      .split(',')
      .map((name) => name.replace(/^\s*type\s+/, '').trim())
      .filter((name) => name !== ''),
  );
}

describe('the root entry', () => {
  const exported = rootExports();
  const names = exported.map((entry) => entry.name);

  it('exports at most 80 names, runtime and type exports counted together', async () => {
    expect(names.length).toBeLessThanOrEqual(80);
    // The compiler's value exports are exactly what the module gives at run time.
    const runtime = Object.keys(await import('../../src/index.js')).sort();
    expect(runtime).toEqual(
      exported
        .filter((entry) => entry.value)
        .map((entry) => entry.name)
        .sort(),
    );
  }, 60_000);

  it("exports every name the README, the examples and the docs import from 'repute'", () => {
    const files = [
      join(root, 'README.md'),
      ...readdirSync(join(root, 'examples'))
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join(root, 'examples', file)),
      ...readdirSync(join(root, 'docs'))
        .filter((file) => file.endsWith('.md'))
        .map((file) => join(root, 'docs', file)),
    ];
    const missing = files.flatMap((file) =>
      importedFromRoot(readFileSync(file, 'utf8'))
        .filter((name) => !names.includes(name))
        .map((name) => `${name} (${file.slice(root.length + 1)})`),
    );
    expect(missing).toEqual([]);
  });

  it('is listed, name by name, in docs/architecture.md', () => {
    const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const start = architecture.indexOf('## The root entry');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = architecture.slice(start);
    expect(names.filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
