/**
 * Runs one external program for the EXEC family: no shell (the words are passed as they are, so
 * a file name can never inject a command), an optional time limit that kills the whole process
 * group, optional capture of standard output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';

export interface ExecRequest {
  program: string;
  args: string[];
  /** Time limit in ms; 0 = none. */
  timeoutMs: number;
  captureStdout: boolean;
  cwd?: string;
}

export type ExecOutcome =
  | { kind: 'exited'; code: number; stdout: string; stderr: string }
  | { kind: 'timeout'; stdout: string; stderr: string }
  | { kind: 'not-started'; notFound: boolean; message: string; /** The system's reason alone (ENOENT...), without the program. */ reason: string };

/** Keep the end of a stream: the last lines are what matter (EXECMOVE, error messages). */
const MAX_KEEP = 1024 * 1024;

/** True when `program` is an absolute path that is not an executable file (code `c`). */
export function absoluteNotExecutable(program: string): boolean {
  if (!isAbsolute(program)) return false;
  try {
    if (!statSync(program).isFile()) return true;
    accessSync(program, constants.X_OK);
    return false;
  } catch {
    return true;
  }
}

function start(req: ExecRequest): ChildProcess {
  return spawn(req.program, req.args, {
    shell: false,
    cwd: req.cwd,
    // A group of its own, so a time limit also ends what a script started.
    detached: true,
    stdio: ['ignore', req.captureStdout ? 'pipe' : 'ignore', 'pipe'],
    windowsHide: true,
  });
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Spawns and waits; retries once after 10 ms when the system says "try again" (EAGAIN). */
export async function runProcess(req: ExecRequest): Promise<ExecOutcome> {
  const first = await runOnce(req);
  if (first.kind === 'not-started' && first.message.includes('EAGAIN')) {
    await new Promise((r) => setTimeout(r, 10));
    return runOnce(req);
  }
  return first;
}

function runOnce(req: ExecRequest): Promise<ExecOutcome> {
  return new Promise((resolve) => {
    const child = start(req);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const keep = (acc: string, chunk: Buffer): string => {
      const next = acc + chunk.toString('utf8');
      return next.length > MAX_KEEP ? next.slice(next.length - MAX_KEEP) : next;
    };
    child.stdout?.on('data', (c: Buffer) => { stdout = keep(stdout, c); });
    child.stderr?.on('data', (c: Buffer) => { stderr = keep(stderr, c); });
    const timer = req.timeoutMs > 0 ? setTimeout(() => { timedOut = true; killGroup(child); }, req.timeoutMs) : undefined;
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      const reason = err.code ?? err.message;
      resolve({ kind: 'not-started', notFound: err.code === 'ENOENT' || err.code === 'EACCES', message: `${req.program}: ${reason}`, reason });
    });
    // 'close' waits for the output pipes, so the captured output is complete.
    child.once('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (timedOut) resolve({ kind: 'timeout', stdout, stderr });
      else resolve({ kind: 'exited', code: code ?? (signal ? 128 : -1), stdout, stderr });
    });
  });
}

/**
 * `#NOWAIT#`: starts the program and returns at once; the program runs on detached. The time
 * limit still applies. Returns the system's reason (ENOENT...) when it could not be started.
 */
export function startDetached(req: ExecRequest): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(req.program, req.args, { shell: false, cwd: req.cwd, detached: true, stdio: 'ignore' });
    child.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    child.once('spawn', () => {
      if (req.timeoutMs > 0) {
        const timer = setTimeout(() => killGroup(child), req.timeoutMs);
        timer.unref();
        child.once('exit', () => clearTimeout(timer));
      }
      child.unref();
      resolve(null);
    });
  });
}
