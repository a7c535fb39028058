import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * The shape README's "Where things are" describes, kept so: the folders of src/ import each other
 * without a cycle (a folder is below everything that imports it), and nothing imports a package's
 * `dist/` internals (they change without notice between patch releases).
 */

const SRC = resolve(__dirname);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** `accounts` for src/accounts/…, `(root)` for src/main.ts and its neighbours. */
const folderOf = (file: string): string => {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0] : '(root)';
};

interface Import {
  readonly file: string;
  readonly specifier: string;
}

const imports: Import[] = sourceFiles(SRC).flatMap((file) =>
  ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(({ fileName }) => ({ file, specifier: fileName })),
);

/** Folder → folder → one import that makes the edge (for the message). */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const { file, specifier } of imports) {
    if (!specifier.startsWith('.')) continue;
    const from = folderOf(file);
    const to = folderOf(resolve(dirname(file), specifier));
    if (from === to || to === 'generated') continue;
    if (!graph.has(from)) graph.set(from, new Map());
    const edges = graph.get(from)!;
    if (!edges.has(to)) edges.set(to, `${relative(SRC, file)} imports '${specifier}'`);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one folder: each is a cycle. */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('module boundaries', () => {
  it('finds the imports it checks', () => {
    const graph = folderGraph();
    expect(graph.get('auth')?.has('api-keys')).toBe(true);
    expect(graph.get('(root)')?.size).toBeGreaterThan(10);
  });

  it('the folders of src/ import each other without a cycle', () => {
    const graph = folderGraph();
    const described = cycles(graph).map((component) =>
      component
        .flatMap((from) => component.filter((to) => graph.get(from)?.has(to)).map((to) => `  ${from} → ${to}: ${graph.get(from)!.get(to)}`))
        .join('\n'),
    );
    expect(described).toEqual([]);
  });

  it('the cycle check sees a cycle', () => {
    const graph = new Map([
      ['a', new Map([['b', '']])],
      ['b', new Map([['c', '']])],
      ['c', new Map([['a', '']])],
      ['d', new Map([['a', '']])],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it("nothing imports a package's dist/ internals", () => {
    const internal = imports.filter(({ specifier }) => !specifier.startsWith('.') && /(^|\/)dist(\/|$)/.test(specifier));
    expect(internal.map(({ file, specifier }) => `${relative(SRC, file)}: ${specifier}`)).toEqual([]);
  });
});
