import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The workspace's import graph, file by file: no cycles anywhere, and the package arrows one way.
// A cycle makes a module's meaning depend on which file loads first, and a package arrow pointing
// back makes two packages one; both are cheap to prevent and slow to undo.

const kRootDir = fileURLToPath(new URL('../..', import.meta.url));

/** Where the walk starts: every package's sources, the harness's and the bench's. */
const kSourceRoots = [...readdirSync(join(kRootDir, 'packages')).map((name) => `packages/${name}/src`), 'fuzz/src', 'bench/src'];

/**
 * What each area may import, by area: a package of `packages/` by its folder name, `fuzz` and
 * `bench` for the harness and the bench. A package added to `packages/` must be entered here.
 */
const kPackageArrows: Readonly<Record<string, readonly string[]>> = {
  'allocator-core': [],
  'prefix-cache': ['allocator-core'],
  'host-pool': ['allocator-core'],
  'gpu-kernels': ['allocator-core'],
  hicache: ['allocator-core', 'prefix-cache', 'host-pool'],
};
const kAllowedArrows: Readonly<Record<string, readonly string[]>> = {
  ...kPackageArrows,
  fuzz: Object.keys(kPackageArrows),
  bench: Object.keys(kPackageArrows),
};

/** Bounds the walk: the workspace holds a few hundred source files. */
const kFilesMax = 5000;

/** A directed graph: each node's out-edges. */
type Graph = ReadonlyMap<string, readonly string[]>;

/**
 * Every cycle the depth-first search meets, each as a path that ends where it starts (a self-import
 * is `[a, a]`); empty when the graph has none. Each strongly connected part yields at least one.
 */
function findCycles(graph: Graph): string[][] {
  // state: absent = not visited, 1 = on the current path, 2 = done.
  const state = new Map<string, 1 | 2>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, 1);
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next);
      if (seen === 1) cycles.push([...path.slice(path.lastIndexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    path.pop();
    state.set(node, 2);
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The arrows `from -> to` that `allowed` does not list (an area missing from it allows nothing). */
function arrowViolations(arrows: Iterable<readonly [string, string]>, allowed: Readonly<Record<string, readonly string[]>>): string[] {
  const bad = new Set<string>();
  for (const [from, to] of arrows) if (!(allowed[from] ?? []).includes(to)) bad.add(`${from} -> ${to}`);
  return [...bad].sort();
}

/** The area a repository file belongs to: a package's folder name, or the top folder (`fuzz`, `bench`). */
function areaOf(file: string): string {
  const parts = relative(kRootDir, file).split('/');
  return parts[0] === 'packages' ? (parts[1] as string) : (parts[0] as string);
}

function sourceFiles(dir: string, out: string[]): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir).sort()) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.(ts|mts|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const isFile = (path: string): boolean => existsSync(path) && statSync(path).isFile();

/**
 * Where an import of `specifier` from `file` leads: a source file, an area (a `@kvfuzz/*` package
 * that is not in `packages/`), `'external'` for anything else, or `null` for a relative import that
 * names no file.
 */
function resolveImport(file: string, specifier: string): { file: string } | { area: string } | 'external' | 'data' | null {
  if (specifier.startsWith('.')) {
    const target = resolve(dirname(file), specifier);
    const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), target, `${target}.ts`, join(target, 'index.ts')];
    const hit = candidates.find(isFile);
    if (hit === undefined) return null;
    return /\.(ts|mts|mjs|js)$/.test(hit) ? { file: hit } : 'data';
  }
  const scoped = /^@kvfuzz\/([^/]+)/.exec(specifier);
  if (scoped === null) return 'external';
  const name = scoped[1] as string;
  const index = join(kRootDir, 'packages', name, 'src', 'index.ts');
  return isFile(index) ? { file: index } : { area: name === 'fuzz' || name === 'bench' ? name : `@kvfuzz/${name}` };
}

interface ImportGraph {
  readonly files: Graph;
  /** Area arrows, `[from, to]`, one per import that crosses areas. */
  readonly arrows: readonly (readonly [string, string])[];
  /** `file: specifier` for each relative import that names no file. */
  readonly unresolved: readonly string[];
}

/** Walks every source file under {@link kSourceRoots}, and every file their relative imports reach. */
function importGraph(): ImportGraph {
  const files = new Map<string, string[]>();
  const arrows: [string, string][] = [];
  const unresolved: string[] = [];
  const queue = kSourceRoots.flatMap((root) => sourceFiles(join(kRootDir, root), []));
  const queued = new Set(queue);
  while (queue.length > 0) {
    if (files.size > kFilesMax) throw new Error(`the import walk passed ${kFilesMax} files`);
    const file = queue.pop() as string;
    const edges: string[] = [];
    // Every import and export-from, `import type` and `import()` of a string literal included.
    for (const { fileName: specifier } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = resolveImport(file, specifier);
      if (target === null) unresolved.push(`${relative(kRootDir, file)}: ${specifier}`);
      if (target === null || target === 'external' || target === 'data') continue;
      const area = 'file' in target ? areaOf(target.file) : target.area;
      if (area !== areaOf(file)) arrows.push([areaOf(file), area]);
      if (!('file' in target)) continue;
      edges.push(target.file);
      if (!queued.has(target.file)) {
        queued.add(target.file);
        queue.push(target.file);
      }
    }
    files.set(file, edges);
  }
  return { files, arrows, unresolved };
}

describe('fuzz:import-graph,finders', () => {
  const graph = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

  it('finds no cycle in a graph without one, shared descendants included', () => {
    expect(findCycles(graph({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toEqual([]);
  });

  it('finds a cycle of three, a self-import, and a cycle reached only through another node', () => {
    expect(findCycles(graph({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(findCycles(graph({ a: ['a'] }))).toEqual([['a', 'a']]);
    expect(findCycles(graph({ a: ['b'], b: ['c'], c: ['d'], d: ['b'] }))).toEqual([['b', 'c', 'd', 'b']]);
  });

  it('names every arrow the table does not allow, and an area missing from it allows nothing', () => {
    const arrows = [
      ['hicache', 'host-pool'],
      ['host-pool', 'prefix-cache'],
      ['allocator-core', 'fuzz'],
      ['new-package', 'allocator-core'],
    ] as const;
    expect(arrowViolations(arrows, kAllowedArrows)).toEqual(['allocator-core -> fuzz', 'host-pool -> prefix-cache', 'new-package -> allocator-core']);
  });
});

describe('fuzz:import-graph,workspace', () => {
  const { files, arrows, unresolved } = importGraph();
  const shown = (path: readonly string[]): string => path.map((file) => relative(kRootDir, file)).join(' -> ');

  it('walks the sources of every package, the harness and the bench', () => {
    const areas = new Set([...files.keys()].map(areaOf));
    for (const area of Object.keys(kAllowedArrows)) expect(areas).toContain(area);
  });

  it('resolves every relative import to a file', () => {
    expect(unresolved).toEqual([]);
  });

  it('has no import cycle among files, type-only imports included', () => {
    expect(findCycles(files).map(shown)).toEqual([]);
  });

  it('enters every package in the arrow table', () => {
    const packages = readdirSync(join(kRootDir, 'packages')).filter((name) => isFile(join(kRootDir, 'packages', name, 'package.json')));
    expect(packages.filter((name) => !(name in kPackageArrows))).toEqual([]);
  });

  it('keeps the package arrows one way: packages import only the packages below them, and never fuzz or bench', () => {
    expect(arrowViolations(arrows, kAllowedArrows)).toEqual([]);
  });

  it('declares in each manifest exactly the workspace packages its arrows allow, and every one it imports', () => {
    for (const [area, allowed] of Object.entries(kAllowedArrows)) {
      const dir = area in kPackageArrows ? join('packages', area) : area;
      const manifest = JSON.parse(readFileSync(join(kRootDir, dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      const declared = Object.keys(manifest.dependencies ?? {})
        .filter((name) => name.startsWith('@kvfuzz/'))
        .map((name) => name.slice('@kvfuzz/'.length));
      const imported = new Set(arrows.filter(([from]) => from === area).map(([, to]) => to));
      expect({ area, undeclared: [...imported].filter((to) => !declared.includes(to)).sort() }).toEqual({ area, undeclared: [] });
      expect({ area, notAllowed: declared.filter((to) => !allowed.includes(to)).sort() }).toEqual({ area, notAllowed: [] });
    }
  });
});
