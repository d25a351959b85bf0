/**
 * What an Information request needs from the file system: one entry's facts, the entries matching a
 * wildcard inside one directory, and the MLSx line of an entry (r66-protocol.md §9.10).
 */
import { constants } from 'node:fs';
import { access, lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { hasWildcard, wildcardToRegExp } from './glob.js';

/** Facts about one file or directory. */
export interface FileEntry {
  /** Absolute path. */
  path: string;
  isDirectory: boolean;
  size: number;
  mtime: Date;
  readable: boolean;
  writable: boolean;
}

/** The entry at `absPath`, or undefined when nothing (or something neither file nor directory) is there. */
export async function statEntry(absPath: string): Promise<FileEntry | undefined> {
  let st;
  try {
    st = await stat(absPath);
  } catch {
    return undefined;
  }
  if (!st.isFile() && !st.isDirectory()) return undefined;
  return {
    path: absPath,
    isDirectory: st.isDirectory(),
    size: st.isDirectory() ? 0 : st.size,
    mtime: st.mtime,
    readable: await can(absPath, constants.R_OK),
    writable: await can(absPath, constants.W_OK),
  };
}

async function can(p: string, mode: number): Promise<boolean> {
  try {
    await access(p, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * Entries named by `absName`: when its last segment holds wildcards, the matching entries of its
 * directory; when it is a directory, its content; otherwise the entry itself. Sorted by name.
 * Symbolic links inside the listed directory are skipped, so a listing never reveals what lies
 * outside the rule directory.
 */
export async function listEntries(absName: string): Promise<FileEntry[]> {
  const base = path.basename(absName);
  let dir: string;
  let filter: RegExp | undefined;
  if (hasWildcard(base)) {
    dir = path.dirname(absName);
    filter = wildcardToRegExp(base);
  } else {
    const single = await statEntry(absName);
    if (single === undefined) return [];
    if (!single.isDirectory) return [single];
    dir = absName;
  }
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  names.sort();
  const out: FileEntry[] = [];
  for (const name of names) {
    if (filter && !filter.test(name)) continue;
    const full = path.join(dir, name);
    const link = await lstat(full).catch(() => undefined);
    if (link === undefined || link.isSymbolicLink()) continue;
    const entry = await statEntry(full);
    if (entry) out.push(entry);
  }
  return out;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * `yyyyMMddHHmmss.SSS` in the host's local time zone. The spec gives no zone; in the captures
 * (session-b) the Modify of a file made between two streams falls 17 s after the `starttrans` of an
 * earlier transfer, which the runner XML writes in local time: the two share one zone.
 */
export function mlsxTime(d: Date): string {
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/**
 * One MLSx line without line end: ` Size=<n>;Modify=<time>;Type=<file|dir>;Perm=<letters>; <name>`.
 * Perm letters as the original: files `adfw` when writable then `r` when readable; directories
 * `cdmp` when writable then `le` when readable.
 */
export function mlsxLine(entry: FileEntry, name = path.basename(entry.path)): string {
  let perm: string;
  if (entry.isDirectory) perm = (entry.writable ? 'cdmp' : '') + (entry.readable ? 'le' : '');
  else perm = (entry.writable ? 'adfw' : '') + (entry.readable ? 'r' : '');
  const type = entry.isDirectory ? 'dir' : 'file';
  return ` Size=${entry.size};Modify=${mlsxTime(entry.mtime)};Type=${type};Perm=${perm}; ${name}`;
}
