/**
 * The service-mode start and the stop shared by `svc-r66server start|stop` and `svc-r66client
 * watcher start|stop`. Start: a detached copy of this command, spoken to over IPC. The launcher
 * waits until the copy reports `{ type: 'ready' }`, writes the copy's PID file and returns 0; a copy
 * that exits first, cannot be launched, or is not ready in time (it is then stopped) makes it
 * return an error code. Stop: SIGHUP to the recorded process, a bounded wait for its end.
 */
import { spawn } from 'node:child_process';
import { EXIT_NOT_RUNNING, EXIT_OK, EXIT_START_FAILED } from './exit-codes.js';
import type { Io } from './io.js';
import { isAlive, removePid, writePid } from '../fs/pid-file.js';

/** The copy's `ready` message; its other fields are the copy's own (host id, log file...). */
export interface ReadyMessage {
  type: 'ready';
  [key: string]: unknown;
}

export interface BackgroundStart {
  io: Io;
  /** What is started, for the launch failure line (`cannot launch the <what>: ...`). */
  what: string;
  /** Arguments after this script (`['start']`, `['watcher', 'start']`). */
  args: readonly string[];
  /** The copy's whole environment (with the variable telling it that it is the copy). */
  env: NodeJS.ProcessEnv;
  /** The copy's standard output and error: an open file descriptor (its log), or none. */
  output: number | 'ignore';
  /** Written with the copy's PID once it is ready. */
  pidFile: string;
  timeoutMs: number;
  /** The line printed (stdout) once the copy is ready. */
  readyText(pid: number, message: ReadyMessage): string;
  /** The line printed (stderr) when the copy was not ready in time and was stopped. */
  timeoutText: string;
  /** The exit code and line when the copy ended before it was ready; `ok`: the line goes to stdout. */
  exited(code: number | null, signal: NodeJS.Signals | null): { exit: number; text: string; ok?: boolean };
}

/** Starts the detached copy and resolves with the command's exit code (see the module comment). */
export function startInBackground(s: BackgroundStart): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1] as string, ...s.args], {
    detached: true,
    stdio: ['ignore', s.output, s.output, 'ipc'],
    env: s.env,
  });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (code: number, line: string, toErr: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (toErr) s.io.err(line);
      else s.io.out(line);
      if (child.connected) child.disconnect();
      child.unref();
      resolve(code);
    };
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      finish(EXIT_START_FAILED, s.timeoutText, true);
    }, s.timeoutMs);
    child.on('message', (msg: unknown) => {
      const m = msg as Partial<ReadyMessage> | null;
      if (m?.type !== 'ready' || child.pid === undefined) return;
      writePid(s.pidFile, child.pid);
      finish(EXIT_OK, s.readyText(child.pid, m as ReadyMessage), false);
    });
    child.on('exit', (code, signal) => {
      const end = s.exited(code, signal);
      finish(end.exit, end.text, end.ok !== true);
    });
    child.on('error', (err) => finish(EXIT_START_FAILED, `cannot launch the ${s.what}: ${err.message}\n`, true));
  });
}

/** Waits (polling, bounded) until `pid` no longer exists; false when it still runs after `timeoutMs`. */
async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * The end of a `stop` line (the caller printed `Stopping <name>... `): `pid` is the running process
 * recorded in `pidFile` (undefined: none, a stale file is removed). SIGHUP, then a bounded wait for
 * its end; the PID file is removed once it ended. Returns the exit code.
 */
export async function stopRecorded(io: Io, pidFile: string, pid: number | undefined, timeoutMs: number): Promise<number> {
  if (pid === undefined) {
    removePid(pidFile);
    io.out('no process seems to be running\n');
    return EXIT_NOT_RUNNING;
  }
  process.kill(pid, 'SIGHUP');
  if (!(await waitForExit(pid, timeoutMs))) {
    io.out(`still running after ${timeoutMs / 1000} s (pid ${pid})\n`);
    return EXIT_NOT_RUNNING;
  }
  removePid(pidFile);
  io.out('done\n');
  return EXIT_OK;
}
