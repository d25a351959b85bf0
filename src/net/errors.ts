/**
 * Network helpers that build the one domain error (src/model/r66-error.ts) for what happens to a
 * connection: a disconnection, a partner that does not answer, a file-system error as a partner
 * may read it.
 */
import path from 'node:path';
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';

/** The TCP connection closed under a channel (Disconnection, r66-protocol.md §3.3). */
export function disconnected(detail = 'connection closed'): R66Error {
  return new R66Error(ErrorCode.Disconnection, `Disconnection: ${detail}`);
}

/** No answer in time. */
export function timedOut(what: string, ms: number): R66Error {
  return new R66Error(ErrorCode.ConnectionImpossible, `no answer from the partner within ${ms} ms while waiting for ${what}`);
}

/**
 * A file-system error as a partner may read it: the error code, the call and the file named as
 * partnerFileName() does with `dirs` (the rule's directories), never the server's absolute path
 * (Node's message holds it: "ENOENT: no such file or directory, open '/var/lib/...'"; issue 21).
 */
export function fileErrorText(e: NodeJS.ErrnoException, dirs: readonly string[] = []): string {
  const file = typeof e.path === 'string' ? partnerFileName(e.path, dirs) : undefined;
  return `${e.code ?? 'error'}${e.syscall ? ` on ${e.syscall}` : ''}${file ? ` of ${file}` : ''}`;
}

/**
 * `file` as a partner may read it: relative to the deepest of `dirs` holding it (a file in a
 * subdirectory of the rule's directory keeps that subdirectory), with `/` separators; its base name
 * when it lies in none of them (the server's layout is not the partner's business).
 */
export function partnerFileName(file: string, dirs: readonly string[]): string {
  let best: string | undefined;
  for (const dir of dirs) {
    const rel = path.relative(dir, file);
    const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
    if (inside && (best === undefined || rel.length < best.length)) best = rel;
  }
  return best !== undefined ? best.split(path.sep).join('/') : (file.split(/[\\/]/).pop() ?? file);
}
