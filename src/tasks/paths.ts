/** Path handling shared by the file and archive tasks. */
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { TaskContext } from './context.js';

/** Rule arguments may be written with Windows separators (tasks.md §8: `\` -> `/`). */
export function toSlashes(path: string): string {
  return path.replace(/\\/g, '/');
}

/**
 * Absolute path of a task argument. The original resolves relative paths against the process
 * working directory, which a service does not control; we use the host's home directory.
 */
export function resolveTaskPath(ctx: TaskContext, path: string): string {
  const p = toSlashes(path);
  return isAbsolute(p) ? resolve(p) : resolve(ctx.dirs.home, p);
}

/**
 * Target of an archive entry inside `dir`, or null when the name would leave it (`..`). A leading
 * `/` is read relative to `dir`, as the original does (its own TAR archives are written that way).
 */
export function entryTarget(dir: string, entryName: string): string | null {
  const name = toSlashes(entryName).replace(/^\/+/, '').replace(/^[A-Za-z]:\//, '');
  if (name === '' || name.split('/').includes('..')) return null;
  const target = join(dir, name);
  const rel = relative(dir, target);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return null;
  return target;
}
