/**
 * Invariant: no module of a package imports itself back through others (issue 29 item 5: fix.ts
 * and suggest.ts imported each other). Relative static imports and re-exports of every package's
 * `src/`, tests left out.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const packages = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative modules `file` imports (type-only imports included: they are a dependency of the reader too). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)) {
    const base = resolve(dirname(file), m[1]);
    for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
      try {
        if (statSync(candidate).isFile()) { out.push(candidate); break; }
      } catch { /* not this one */ }
    }
  }
  return out;
}

/** Every cycle, each as the list of files around it (Tarjan's strongly connected components). */
function cycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.map((f) => f.slice(packages.length)).sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

describe('import cycles', () => {
  for (const pkg of ['core', 'client', 'language-service', 'language-server', 'cli']) {
    it(`none in ${pkg}`, () => {
      expect(cycles(sources(join(packages, pkg, 'src')))).toEqual([]);
    });
  }

  it('finds a cycle when there is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolicy-cycles-'));
    try {
      writeFileSync(join(dir, 'fix.ts'), "import { httpsForm } from './suggest';\nexport const a = 1;\n");
      writeFileSync(join(dir, 'suggest.ts'), "import type { A } from './fix';\nexport { b } from './other';\n");
      writeFileSync(join(dir, 'other.ts'), 'export const b = 2;\n');
      const found = cycles(sources(dir));
      expect(found).toHaveLength(1);
      expect(found[0].map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual(['fix.ts', 'suggest.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
