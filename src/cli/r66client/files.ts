/**
 * File names of the transfer commands: where a send rule's local file is, the expansion of
 * msend/masend wildcards (local for send rules, asked to the partner for receive rules, cli.md
 * §3.4, §3.5), and the follow id appended to `-info` (cli.md §3.1, r66-protocol.md §7.2).
 */
import { lstatSync, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { getFileInfo } from '../../client/getinfo.js';
import { virtualToAbsolute, type DirectoryConfig } from '../../config/index.js';
import { hasWildcard, wildcardToRegExp } from '../../fs/glob.js';
import { listEntries } from '../../fs/listing.js';
import type { Rule } from '../../model/rule.js';
import type { ConnectionPool } from '../../net/pool.js';

/** `§` stands for `*` on the command line (it escapes the shell's expansion). */
export function unescapeWildcards(name: string): string {
  return name.replace(/§/g, '*');
}

/** Absolute path of a local file to send: as given when absolute, else in the rule's send directory. */
export function localSendPath(directories: DirectoryConfig, rule: Rule, file: string): string {
  if (isAbsolute(file)) return file;
  const base = rule.sendPath !== '' ? virtualToAbsolute(directories.serverHome, rule.sendPath) : directories.out;
  return join(base, file);
}

/** Size of a local file, -1 when it cannot be read (the original's ORIGINALSIZE for "unknown"). */
export async function localSize(path: string): Promise<number> {
  try {
    const st = await stat(path);
    return st.isFile() ? st.size : -1;
  } catch {
    return -1;
  }
}

/** Local wildcard expansion for a send rule: matching files (absolute paths); none -> empty. */
export async function expandLocal(directories: DirectoryConfig, rule: Rule, pattern: string): Promise<string[]> {
  return (await expandLocalFiles(directories, rule, pattern)).map((f) => f.path);
}

/** A file named by a local expansion, with its size when the expansion read it. */
export interface LocalFile {
  path: string;
  size?: number;
}

/**
 * {@link expandLocal} with the size of each file found. A name without wildcards comes back as
 * given, without a size. A wildcard in the last segment lists the directory: its regular files
 * whose names match (never symbolic links, directories or other kinds), sorted, with one `lstat`
 * each (the generic listing's four file-system calls per entry were most of masend's cost for a
 * few thousand files). The lstat calls are synchronous: about 5 µs of CPU each against a thread-pool
 * round trip and a promise for an awaited one, and the command has nothing else to do meanwhile.
 */
export async function expandLocalFiles(directories: DirectoryConfig, rule: Rule, pattern: string): Promise<LocalFile[]> {
  const name = unescapeWildcards(pattern);
  if (!hasWildcard(name)) return [{ path: name }];
  const target = localSendPath(directories, rule, name);
  const base = basename(target);
  if (!hasWildcard(base)) {
    const entries = await listEntries(target);
    return entries.filter((e) => !e.isDirectory).map((e) => ({ path: e.path, size: e.size })).sort(byPath);
  }
  const dir = dirname(target);
  const filter = wildcardToRegExp(base);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  // Entries of an unknown type (some file systems do not say) are decided by lstat like the others.
  const candidates = entries.filter((e) => filter.test(e.name) && (e.isFile() || !(e.isDirectory() || e.isSymbolicLink() || e.isFIFO() || e.isSocket() || e.isCharacterDevice() || e.isBlockDevice())));
  // join(dir, name) for each entry, without normalising the whole path again per entry: the
  // directory normalised once, then names from readdir (never `.`, `..` or with a separator).
  const normal = normalize(dir);
  const prefix = normal === '.' ? '' : normal.endsWith(sep) ? normal : normal + sep;
  const found: LocalFile[] = [];
  for (const e of candidates) {
    const path = prefix + e.name;
    const st = lstatQuiet(path);
    if (st?.isFile()) found.push({ path, size: st.size });
  }
  return found.sort(byPath);
}

/** lstat, undefined when it fails (a file gone since the listing, no permission). */
function lstatQuiet(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function byPath(a: LocalFile, b: LocalFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Remote expansion for a receive rule: the partner's list of names matching the pattern (virtual
 * paths such as `/out/a.txt`, reduced to the name the partner resolves in its send directory).
 */
export async function expandRemote(pool: ConnectionPool, partnerId: string, rule: string, pattern: string, timeoutMs: number): Promise<string[]> {
  const name = unescapeWildcards(pattern);
  if (!hasWildcard(name)) return [name];
  const info = await getFileInfo(pool, partnerId, rule, 'list', name, timeoutMs);
  return info.lines.map((l) => l.slice(l.lastIndexOf('/') + 1)).filter((l) => l !== '');
}

/** True when the information text already carries a follow id. */
export function hasFollow(info: string): boolean {
  return /"follow"\s*:/.test(info);
}
