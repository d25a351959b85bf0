/**
 * The one file policy (issue 20 item 3): where the file named by a transfer order (CLI, REST v1,
 * REST v2, TRANSFER task, web UI, FileWatcher) or by a partner's request may be. Every such name
 * is resolved by {@link resolvePolicyFiles}:
 *
 * - a relative name is taken below the rule's directory (`base`);
 * - an absolute name only inside the directories the host serves (`allowed`: its in, out, work
 *   and archive directories and the rule's own), never elsewhere (no `/etc/shadow`, no
 *   configuration directory with its keys);
 * - `..` segments and NUL bytes are refused;
 * - wildcards (`*`, `?` in the last segment) are expanded first, then EVERY match is checked after
 *   symbolic-link resolution (realpath), like a name without wildcard: a link leading out of the
 *   allowed directories is refused, whichever way it was named.
 *
 * A refusal is pathNotAllowed()'s R66Error: code FileNotAllowed (`a`) on the wire, HTTP 403 in REST.
 * Its message names only what the caller gave, never a resolved path outside the directories.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { hasWildcard, wildcardToRegExp } from './glob.js';
import { isInside, isPathNotAllowed, pathNotAllowed, resolveInside } from './safe-path.js';

/** Where a name may lead. */
export interface FilePolicyRoots {
  /** The rule's directory for this order (send directory to send, receive directory to receive). */
  base: string;
  /** Absolute directories the host serves; an absolute name must lie inside one of them (or `base`). */
  allowed: readonly string[];
}

export interface FilePolicyOptions {
  /** Expand `*`/`?` in the last segment (default true); false takes them literally. */
  wildcards?: boolean;
  /**
   * Names in a directory, for the expansion (none when it does not exist); default the host's
   * file system. A transfer engine gives its own (transfer/file/storage.ts TransferFileSystem.list).
   */
  list?: (dir: string) => Promise<string[]>;
}

/** The allowed roots of a host: its in, out, work and archive directories (config.md §3.5) plus `extra`. */
export function servedDirectories(dirs: { in: string; out: string; work: string; arch: string }, ...extra: string[]): string[] {
  return [...new Set([dirs.in, dirs.out, dirs.work, dirs.arch, ...extra].map((d) => path.resolve(d)))];
}

/**
 * Resolves `name` under the policy and returns the absolute path(s): one path for a name without
 * wildcard (the file need not exist yet: a file to receive, an order for later), every match in
 * name order for a wildcard (none when nothing matches: the caller says "not found"). Throws
 * pathNotAllowed()'s error when the name, or any match, leads outside.
 */
export async function resolvePolicyFiles(name: string, roots: FilePolicyRoots, opts: FilePolicyOptions = {}): Promise<string[]> {
  // The base is tried first; listed again among the allowed roots it changes nothing.
  const extra = roots.allowed;
  const candidate = await resolveInside(roots.base, name, extra);
  if (opts.wildcards === false) return [candidate];
  const last = path.basename(candidate);
  if (!hasWildcard(last)) return [candidate];
  const dir = path.dirname(candidate);
  const re = wildcardToRegExp(last);
  const list = opts.list ?? ((d: string): Promise<string[]> => readdir(d).catch(() => []));
  const names = (await list(dir)).filter((n) => re.test(n)).sort();
  const out: string[] = [];
  for (const n of names) {
    // The match is checked like a name given without wildcard: its link target must stay inside.
    try {
      out.push(await resolveInside(roots.base, path.join(dir, n), extra));
    } catch (err) {
      if (isPathNotAllowed(err)) throw pathNotAllowed(name, 'matches a file that leads outside the allowed directories');
      throw err;
    }
  }
  return out;
}

/** One file: the single path of a name without wildcard, or the first match of a wildcard (undefined: no match). */
export async function resolvePolicyFile(name: string, roots: FilePolicyRoots, opts: FilePolicyOptions = {}): Promise<string | undefined> {
  return (await resolvePolicyFiles(name, roots, opts))[0];
}

/** True when an absolute `file` lies lexically inside one of `roots` (no file-system access). */
export function insideAny(file: string, roots: readonly string[]): boolean {
  return roots.some((r) => isInside(path.resolve(r), path.resolve(file)));
}
