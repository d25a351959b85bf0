/**
 * The server's PID file (cli.md §2.1-2.3): written once the server is up, in the foreground as in
 * service mode (the original writes it only in service mode), read by `stop`/`status`/`restart`,
 * removed at shutdown. A file whose process is gone, or is not a server, is stale and ignored. Writes are atomic (temp file + rename) so a reader never
 * sees a truncated number.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { makeDirsSync } from './make-dirs.js';

/** The PID recorded in `path`, or undefined when the file is missing or holds no valid PID. */
export function readPid(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function writePid(path: string, pid: number): void {
  makeDirsSync(dirname(path));
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${pid}\n`, { mode: 0o644 });
  renameSync(tmp, path);
}

/** Removes the PID file, but only if it still names `pid` (a newer server may have replaced it). */
export function removePidIfOwned(path: string, pid: number): void {
  if (readPid(path) === pid) rmSync(path, { force: true });
}

export function removePid(path: string): void {
  rmSync(path, { force: true });
}

/** True when a process with this PID exists (signal 0 probes without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * False when the process is known to be something else than an svc-r66 server: after a reboot or
 * a crash, the PID of a stale file may belong to any program. Where /proc is unreadable the answer
 * is true (the liveness probe alone decides).
 */
export function isServerProcess(pid: number): boolean {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return true;
  }
  return cmdline.includes('r66server');
}

/** The PID of the running server recorded in `path`, or undefined if none is running (stale file). */
export function runningPid(path: string): number | undefined {
  const pid = readPid(path);
  return pid !== undefined && isAlive(pid) && isServerProcess(pid) ? pid : undefined;
}
