/**
 * `mkdir -p` that fails fast. Node's `mkdir(..., { recursive: true })` loops forever when the
 * kernel answers ENOENT for a parent that exists (a path under /proc), so a database or home
 * path there hung the process. Here each missing level is created on its own, top down, and the
 * first failure is thrown as it is (ENOENT, EACCES, EROFS, ENOTDIR...).
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The missing levels of `path`, top down (empty when it exists); throws ENOTDIR on a file in the way. */
function missingLevels(path: string): string[] {
  const levels: string[] = [];
  let current = resolve(path);
  for (;;) {
    let isDir: boolean | undefined;
    try {
      isDir = statSync(current).isDirectory();
    } catch {
      isDir = undefined;
    }
    if (isDir === false) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${levels[0] ?? current}'`), { code: 'ENOTDIR' });
    if (isDir) return levels;
    levels.unshift(current);
    const parent = dirname(current);
    if (parent === current) return levels;
    current = parent;
  }
}

/** Creates `path` and its missing parents; `mode` applies to the levels created. */
export function makeDirsSync(path: string, mode?: number): void {
  for (const level of missingLevels(path)) {
    try {
      mkdirSync(level, { mode });
    } catch (err) {
      // Created meanwhile by someone else: fine.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
