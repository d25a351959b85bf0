/**
 * Splits the test files into the two vitest projects (docs/decisions/0051-test-suite-split.md):
 *
 * - `e2e`: a file that starts something outside the test process, or needs a database server: it
 *   (or a test/bench helper it imports, at any depth) imports node:child_process (the CLI against
 *   dist/, haproxy, proftpd, snmptrapd, database servers, Java), a PostgreSQL/MariaDB driver
 *   (helpers/databases.ts: the three dialects) or playwright-core (chromium).
 * - `unit`: every other file: in-process code, loopback sockets and SQLite files included.
 *
 * The split is read from the imports, so a new test lands in the right project without a list to
 * keep. Imports of src/ are not followed: what the product runs is the test's business, what the
 * test sets up around it is what makes it end to end.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

/** Module specifiers whose import makes a test end to end. */
const E2E_MODULES = new Set(['node:child_process', 'child_process', 'pg', 'mysql2', 'mysql2/promise', 'playwright-core']);

/** `import ... from 'x'`, `export ... from 'x'`, `import('x')`, `import 'x'`; not `import type`. */
const IMPORT = /(?:^|\n)\s*(?:import(?!\s+type\b)[^'"]*?from\s*|export[^'"]*?from\s*|import\s*)['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export interface SuiteSplit {
  /** Paths relative to the root, with forward slashes, sorted. */
  unit: string[];
  e2e: string[];
}

export function splitSuites(root: string, testDirs: readonly string[] = ['test', 'src']): SuiteSplit {
  const startsProcesses = new Map<string, boolean>();
  const srcDir = resolve(root, 'src') + sep;

  const isEndToEnd = (file: string, visiting: Set<string>): boolean => {
    const known = startsProcesses.get(file);
    if (known !== undefined) return known;
    if (visiting.has(file)) return false;
    visiting.add(file);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return false; // a generated or missing module: not ours to judge
    }
    let result = false;
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2]) as string;
      if (E2E_MODULES.has(spec)) result = true;
      else if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        if (!target.startsWith(srcDir) && isEndToEnd(target, visiting)) result = true;
      }
      if (result) break;
    }
    startsProcesses.set(file, result);
    return result;
  };

  const split: SuiteSplit = { unit: [], e2e: [] };
  const files = testDirs
    .flatMap((dir) => readdirSync(resolve(root, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => f.split(sep).join('/'))
    .sort();
  for (const f of files) (isEndToEnd(resolve(root, f), new Set()) ? split.e2e : split.unit).push(f);
  return split;
}
