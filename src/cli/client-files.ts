/**
 * File names of the transfer commands: where a send rule's local file is, the expansion of
 * msend/masend wildcards (local for send rules, asked to the partner for receive rules, cli.md
 * §3.4, §3.5), and the follow id appended to `-info` (cli.md §3.1, r66-protocol.md §7.2).
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { getFileInfo } from '../client/getinfo.js';
import { virtualToAbsolute, type DirectoryConfig } from '../config/index.js';
import { hasWildcard } from '../fs/glob.js';
import { listEntries } from '../fs/listing.js';
import type { Rule } from '../model/rule.js';
import type { ConnectionPool } from '../net/pool.js';

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
  const name = unescapeWildcards(pattern);
  if (!hasWildcard(name)) return [name];
  const entries = await listEntries(localSendPath(directories, rule, name));
  return entries.filter((e) => !e.isDirectory).map((e) => e.path).sort();
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

/** `-info` text with ` {"follow":<id>}` appended, unless -nofollow or already present. */
export function withFollow(info: string, followId: bigint, noFollow: boolean): string {
  if (noFollow || hasFollow(info)) return info;
  return `${info} {"follow":${followId}}`;
}
