/**
 * The service-mode start shared by `svc-r66server start` and `svc-r66client watcher start`: a
 * detached copy of this command, spoken to over IPC. The launcher waits until the copy reports
 * `{ type: 'ready' }`, writes the copy's PID file and returns 0; a copy that exits first, cannot be
 * launched, or is not ready in time (it is then stopped) makes it return an error code.
 */
import { spawn } from 'node:child_process';
import { EXIT_OK, EXIT_START_FAILED } from './exit-codes.js';
import type { Io } from './io.js';
import { writePid } from './pid-file.js';

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
