/**
 * The one reading of a file name stored in RUNNER.FILENAME (issue 34 item 2). The original stores
 * the names of its own directories relative to serverhome with a leading `/`
 * (`/work/1693900000200_4821_big.bin.r66`, `/out/report.csv`); svc stores absolute paths. A row
 * written by a Java host that svc took over (docs/migration.md), or shares a database with, names
 * its file in the first form: every place that reads a stored name (resume, restart, cancel, REST,
 * web pages, getinfo, log export) goes through {@link resolveStoredPath}.
 *
 * A name is taken as serverhome-relative when it is not already below serverhome, serverhome plus
 * the name lies in one of the host's directories or of the row's rule's (RECVPATH, SENDPATH,
 * ARCHIVEPATH, WORKPATH, all below serverhome), and the name as an absolute path does not exist.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isInside } from './safe-path.js';

/** serverhome and the host's directories (in, out, work, arch; withDirectories adds a rule's), absolute. */
export interface StoredPathRoots {
  home: string;
  dirs: readonly string[];
}

/** The roots of a host from its directory settings (config.md §3.5). */
export function storedPathRoots(d: { serverHome: string; in: string; out: string; work: string; arch: string }): StoredPathRoots {
  return { home: path.resolve(d.serverHome), dirs: [d.in, d.out, d.work, d.arch].map((x) => path.resolve(x)) };
}

/** `roots` with more directories (a rule's own: they lie below serverhome too). */
export function withDirectories(roots: StoredPathRoots, dirs: readonly string[]): StoredPathRoots {
  return { home: roots.home, dirs: [...roots.dirs, ...dirs.map((d) => path.resolve(d))] };
}

/** The absolute path of a stored FILENAME (unchanged when it is not in the original's form). */
export function resolveStoredPath(stored: string, roots: StoredPathRoots): string {
  if (stored === '' || !stored.startsWith('/') || isInside(roots.home, stored)) return stored;
  const candidate = path.join(roots.home, stored);
  if (!roots.dirs.some((d) => isInside(d, candidate))) return stored;
  return existsSync(stored) ? stored : candidate;
}

/**
 * True when a name that resolveStoredPath() left as it was may be the original's form below a
 * directory of its rule that the host's directories do not cover: the roots with the rule's
 * directories are then worth asking for.
 */
export function mayBeRuleRelative(unresolved: string, roots: StoredPathRoots): boolean {
  return unresolved.startsWith('/') && !isInside(roots.home, unresolved) && !existsSync(unresolved);
}
