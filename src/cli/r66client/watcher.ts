/**
 * `svc-r66client [HOSTID] watcher start | stop | status | restart` (filewatcher.md §1, cli.md
 * §3.14): the FileWatcher of the instance's client.xml (`spooleddaemon` section) as a service,
 * with the PID file `r66watcher.pid` beside the server's and the server's PID logic (pid-file.ts).
 *
 * start: in the foreground; in service mode (`SVC_SERVICE=1`) a detached copy is started, which
 * logs to `r66watcher.log` beside the PID file; the command returns once its watchers scanned once.
 * stop: SIGHUP, wait for the end, remove the PID file.
 */
import { openSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from '../args.js';
import { startInBackground, stopRecorded } from '../background.js';
import { CliError } from '../cli-error.js';
import type { ClientCommandContext } from './session.js';
import { runSpool } from './spool.js';
import { EXIT_NOT_RUNNING, EXIT_OK, EXIT_START_FAILED, SPOOL_EXIT } from '../exit-codes.js';
import { configFileOf, serverPidFile } from '../instance.js';
import { readFileSync } from 'node:fs';
import { isAlive, readPid, removePidIfOwned, writePid } from '../../fs/pid-file.js';

const DAEMON_ENV = 'SVC_R66_WATCHER_DAEMON';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 60_000;

/** `SVC_WATCHER_PIDFILE`, else `r66watcher.pid` where the server keeps `r66server.pid`. */
export function watcherPidFile(ctx: ClientCommandContext, env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_WATCHER_PIDFILE) return env.SVC_WATCHER_PIDFILE;
  const serverPid = serverPidFile(ctx.instance, { ...env, PIDFILE: undefined });
  return join(dirname(serverPid), basename(serverPid).replace('r66server', 'r66watcher'));
}

/**
 * The PID of the running watcher in `path`, or undefined: the process must be alive and, where
 * /proc tells, be an svc-r66client (a stale file's PID may belong to any program after a reboot).
 */
function runningPid(path: string): number | undefined {
  const pid = readPid(path);
  if (pid === undefined || !isAlive(pid)) return undefined;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return pid;
  }
  return cmdline.includes('r66client') ? pid : undefined;
}

function label(ctx: ClientCommandContext): string {
  return `${ctx.instance.name} R66 FileWatcher`;
}

async function start(ctx: ClientCommandContext): Promise<number> {
  const pidFile = watcherPidFile(ctx);
  const daemon = process.env[DAEMON_ENV] === '1';
  if (!daemon) {
    const pid = runningPid(pidFile);
    if (pid !== undefined) throw new CliError(`the watcher is already running (pid ${pid}, PID file ${pidFile})`, EXIT_START_FAILED);
    if (process.env.SVC_SERVICE === '1') return startWatcherInBackground(ctx, pidFile);
  }
  const argv = [configFileOf(ctx.instance, 'client')];
  writePid(pidFile, process.pid);
  try {
    return await runSpool(ctx, argv, { onStarted: () => process.send?.({ type: 'ready' }) });
  } finally {
    removePidIfOwned(pidFile, process.pid);
  }
}

function startWatcherInBackground(ctx: ClientCommandContext, pidFile: string): Promise<number> {
  const logFile = join(dirname(pidFile), 'r66watcher.log');
  let log: number;
  try {
    log = openSync(logFile, 'a');
  } catch (err) {
    throw new CliError(`cannot open the watcher log ${logFile}: ${(err as Error).message}`, EXIT_START_FAILED);
  }
  return startInBackground({
    io: ctx.io,
    what: 'watcher',
    args: ['watcher', 'start'],
    env: { ...process.env, [DAEMON_ENV]: '1', CONFDIR: ctx.instance.confDir, SVC_WATCHER_PIDFILE: pidFile },
    output: log,
    pidFile,
    timeoutMs: READY_TIMEOUT_MS,
    readyText: (pid) => `svc-r66 watcher of ${ctx.instance.name} started in the background (pid ${pid}, PID file ${pidFile}, log ${logFile})\n`,
    timeoutText: `the watcher of ${ctx.instance.name} did not scan within ${READY_TIMEOUT_MS / 1000} s; stopped it (log ${logFile})\n`,
    exited: (code, signal) => ({ exit: code === 0 ? EXIT_OK : SPOOL_EXIT.badSetup, text: `the watcher of ${ctx.instance.name} ended (exit ${code ?? signal}); see ${logFile}\n`, ok: code === 0 }),
  });
}

async function stop(ctx: ClientCommandContext): Promise<number> {
  ctx.io.out(`Stopping ${label(ctx)}... `);
  const pidFile = watcherPidFile(ctx);
  return stopRecorded(ctx.io, pidFile, runningPid(pidFile), STOP_TIMEOUT_MS);
}

function status(ctx: ClientCommandContext): number {
  const pid = runningPid(watcherPidFile(ctx));
  ctx.io.out(`Status of ${label(ctx)}... ${pid === undefined ? 'not running' : 'running'}\n`);
  return pid === undefined ? EXIT_NOT_RUNNING : EXIT_OK;
}

export async function watcherCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  parseArgs(rest, { options: [], maxPositionals: 0, command: `watcher ${action ?? ''}`.trim() });
  switch (action) {
    case 'start':
      return start(ctx);
    case 'stop':
      return stop(ctx);
    case 'status':
      return status(ctx);
    case 'restart':
      if (runningPid(watcherPidFile(ctx)) !== undefined && (await stop(ctx)) !== EXIT_OK) return EXIT_START_FAILED;
      return start(ctx);
    default:
      throw new CliError('watcher expects start, stop, status or restart', SPOOL_EXIT.badSetup);
  }
}
