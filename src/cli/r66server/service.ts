/**
 * `svc-r66server start | stop | status | restart` (cli.md §2.1-2.4).
 *
 * Service mode (`SVC_SERVICE=1`): the command starts a detached copy of itself and waits until that
 * copy reports over IPC that every component is up (the original polled for a listening socket
 * for up to 60 s); it then writes the PID file and returns 0, or returns 1 if the copy died or
 * did not get ready in time. The copy logs to `<serverhome>/log/r66server.log`.
 */
import { startInBackground, stopRecorded } from '../background.js';
import { CliError } from '../cli-error.js';
import { parseArgs } from '../args.js';
import { EXIT_NOT_RUNNING, EXIT_OK, EXIT_START_FAILED } from '../exit-codes.js';
import { configFileOf, serverPidFile, type Instance } from '../instance.js';
import type { Io } from '../io.js';
import { removePidIfOwned, runningPid, writePid } from '../../fs/pid-file.js';

/** How long the service-mode launcher waits for the server to be up (the original: 60 polls). */
const SERVICE_READY_TIMEOUT_MS = 60_000;
/** How long `stop` waits for the process to exit (our addition: `restart` must not race the old one). */
const STOP_TIMEOUT_MS = 60_000;
/** Set in the environment of the detached copy started in service mode. */
const DAEMON_ENV = 'SVC_R66_DAEMON';

export interface ServerCommandContext {
  instance: Instance;
  io: Io;
  env: NodeJS.ProcessEnv;
}

function noArguments(args: readonly string[], command: string): void {
  parseArgs(args, { options: [], maxPositionals: 0, command });
}

function label(ctx: ServerCommandContext): string {
  return `${ctx.instance.name} R66 Server`;
}

export async function startCommand(ctx: ServerCommandContext, args: readonly string[]): Promise<number> {
  noArguments(args, 'start');
  const pidFile = serverPidFile(ctx.instance, ctx.env);
  const daemon = ctx.env[DAEMON_ENV] === '1';
  if (!daemon) {
    const pid = runningPid(pidFile);
    if (pid !== undefined) throw new CliError(`the server is already running (pid ${pid}, PID file ${pidFile})`, EXIT_START_FAILED);
    if (ctx.instance.embedded) {
      const { ensureEmbeddedHome } = await import('../../server/embedded-home.js');
      await ensureEmbeddedHome(ctx.instance.confDir, ctx.io).catch((err: unknown) => {
        throw new CliError(`cannot create the svc-r66 home ${ctx.instance.confDir}: ${err instanceof Error ? err.message : String(err)}`, EXIT_START_FAILED);
      });
    }
  }
  if (ctx.env.SVC_SERVICE === '1' && !daemon) return startServerInBackground(ctx, pidFile);
  // The server's modules are loaded here, not with this file: stop and status do not need them.
  const { runServerProcess } = await import('./server-process.js');
  return runServerProcess({
    configFile: configFileOf(ctx.instance, 'server'),
    io: ctx.io,
    daemon,
    // Every mode records its PID, so status/stop/restart find a server however it was started.
    // An unwritable place is not fatal (the original writes it "if its directory is writable").
    onStarted: () => {
      try {
        writePid(pidFile, process.pid);
      } catch (err) {
        ctx.io.err(`svc-r66 server: cannot write the PID file ${pidFile} (${(err as NodeJS.ErrnoException).code ?? String(err)}); status, stop and restart will not find this server (set PIDFILE)\n`);
      }
    },
    onStopped: () => removePidIfOwned(pidFile, process.pid),
  });
}

function startServerInBackground(ctx: ServerCommandContext, pidFile: string): Promise<number> {
  // The copy gets the instance directory itself (CONFDIR) and the PID file it must remove at exit.
  return startInBackground({
    io: ctx.io,
    what: 'server',
    args: ['start'],
    env: { ...ctx.env, [DAEMON_ENV]: '1', CONFDIR: ctx.instance.confDir, PIDFILE: pidFile },
    output: 'ignore',
    pidFile,
    timeoutMs: SERVICE_READY_TIMEOUT_MS,
    readyText: (pid, m) => `svc-r66 server ${typeof m.hostId === 'string' ? m.hostId : ctx.instance.name} started in the background (pid ${pid}, PID file ${pidFile}, log ${typeof m.logFile === 'string' ? m.logFile : '?'})\n`,
    timeoutText: `svc-r66 server for ${ctx.instance.name} did not get ready within ${SERVICE_READY_TIMEOUT_MS / 1000} s; stopped it\n`,
    exited: (code, signal) => ({ exit: EXIT_START_FAILED, text: `svc-r66 server for ${ctx.instance.name} cannot start (exit ${code ?? signal}); see its log under the serverhome's log directory\n` }),
  });
}

export async function stopCommand(ctx: ServerCommandContext, args: readonly string[]): Promise<number> {
  noArguments(args, 'stop');
  ctx.io.out(`Stoping ${label(ctx)}... `);
  const pidFile = serverPidFile(ctx.instance, ctx.env);
  return stopRecorded(ctx.io, pidFile, runningPid(pidFile), STOP_TIMEOUT_MS);
}

export async function statusCommand(ctx: ServerCommandContext, args: readonly string[]): Promise<number> {
  noArguments(args, 'status');
  const pid = runningPid(serverPidFile(ctx.instance, ctx.env));
  ctx.io.out(`Status of ${label(ctx)}... ${pid === undefined ? 'not running' : 'running'}\n`);
  return pid === undefined ? EXIT_NOT_RUNNING : EXIT_OK;
}

/**
 * Stop if running, then start. A server that was running comes back in the background whatever
 * SVC_SERVICE says: its terminal (if it had one) is not this command's, and a restarted service
 * must not end up tied to the shell that restarted it. With no server running it is `start`.
 */
export async function restartCommand(ctx: ServerCommandContext, args: readonly string[]): Promise<number> {
  noArguments(args, 'restart');
  const pidFile = serverPidFile(ctx.instance, ctx.env);
  if (runningPid(pidFile) === undefined) return startCommand(ctx, []);
  const code = await stopCommand(ctx, []);
  if (code !== EXIT_OK) return EXIT_START_FAILED;
  return startServerInBackground(ctx, pidFile);
}
