/**
 * Why a local channel or a conversation ended, as an ErrorCode (design.md §4: everything that ends
 * a transfer or a command carries one; wire, database, REST and exit code derive from it).
 */
import path from 'node:path';
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';

export class R66Error extends Error {
  constructor(
    message: string,
    readonly code: ErrorCodeInfo,
  ) {
    super(message);
    this.name = 'R66Error';
  }
}

/** The partner ended the conversation with an Error (or ConnectionError) packet. */
export class RemoteError extends R66Error {
  constructor(message: string, code: ErrorCodeInfo) {
    super(message, code);
    this.name = 'RemoteError';
  }
}

/** The TCP connection closed under a channel (Disconnection, r66-protocol.md §3.3). */
export function disconnected(detail = 'connection closed'): R66Error {
  return new R66Error(`Disconnection: ${detail}`, ErrorCode.Disconnection);
}

/** No answer in time. */
export function timedOut(what: string, ms: number): R66Error {
  return new R66Error(`no answer from the partner within ${ms} ms while waiting for ${what}`, ErrorCode.ConnectionImpossible);
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
