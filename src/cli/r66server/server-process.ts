/**
 * Runs the server in this process until a shutdown signal (cli.md §2.1): load server.xml, build the
 * runtime, start it, announce it, wait; then the ordered stop and the exit code.
 */
import { join } from 'node:path';
import { ConfigError, loadServerConfig, type ServerConfig } from '../../config/index.js';
import { closeLogbackLogger, createServerLogger } from '../../server/logger.js';
import { describe } from '../../server/lifecycle.js';
import { ServerRuntime } from '../../server/runtime.js';
import { installShutdownHandlers } from '../../server/shutdown.js';
import { capOldGenerationGrowth } from '../../server/old-generation.js';
import { growYoungGenerationAtOnce } from '../../server/young-generation.js';
import { EXIT_NO_LISTENER, EXIT_START_FAILED } from '../exit-codes.js';
import type { Io } from '../io.js';
import { reportUnhandledRejections } from '../main-runner.js';

export interface ServerProcessOptions {
  configFile: string;
  io: Io;
  /** True in the detached copy of service mode: log to a file, report readiness over IPC. */
  daemon: boolean;
  /** Called once every component is up (writes the PID file). */
  onStarted?: () => void;
  /** Called once after the ordered stop (removes the PID file). */
  onStopped: () => void;
}

/** Log file of the service mode (stdout is closed there). */
export function serviceLogFile(config: ServerConfig): string {
  return join(config.directories.serverHome, 'log', 'r66server.log');
}

export async function runServerProcess(opts: ServerProcessOptions): Promise<number> {
  const { io } = opts;
  // A server alternates idle and busy spells: no slow re-growth of the young generation after each.
  growYoungGenerationAtOnce();
  // Nor an old generation grown to four times what it keeps alive, full of promoted garbage.
  capOldGenerationGrowth();
  let config: ServerConfig;
  try {
    config = await loadServerConfig(opts.configFile);
  } catch (err) {
    if (!(err instanceof ConfigError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
    io.err(`svc-r66 server cannot start (${opts.configFile}): ${describe(err)}\n`);
    // The original exits -1 when neither listener is enabled, 1 for every other bad configuration.
    return err instanceof ConfigError && err.element?.endsWith('usenossl') ? EXIT_NO_LISTENER : EXIT_START_FAILED;
  }
  const logFile = opts.daemon ? serviceLogFile(config) : undefined;
  const log = await createServerLogger(config.file, config.directories.conf, { file: logFile, base: { hostid: config.hostId } });
  reportUnhandledRejections((err) => log.error({ err: describe(err) }, 'unhandled promise rejection (a bug, please report it): the server goes on'));
  const runtime = new ServerRuntime(config, log);
  io.out(`svc-r66 server starts for ${config.hostId}\n`);

  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));
  // Signal handlers do not keep Node alive: without a listening socket the process would just end.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  void done.then(() => clearInterval(keepAlive));
  installShutdownHandlers({ log, stop: () => runtime.stop(), timeoutMs: runtime.shutdownTimeoutMs, onDone: (code) => resolveDone(code) });

  try {
    await runtime.start();
  } catch (err) {
    log.error({ err: describe(err) }, 'server cannot start');
    io.err(`svc-r66 server cannot start for ${config.hostId}: ${describe(err)}\n`);
    await runtime.stop();
    clearInterval(keepAlive);
    opts.onStopped();
    return EXIT_START_FAILED;
  }
  if (runtime.lifecycle.isRunning) {
    opts.onStarted?.();
    log.info({ components: runtime.lifecycle.names }, 'server started');
    io.out(`svc-r66 server ${config.hostId} is running (configuration ${config.file}):\n${runtime.describe().map((l) => `  ${l}\n`).join('')}Stop it with Ctrl-C or SIGTERM.\n`);
    if (opts.daemon && process.send) {
      process.send({ type: 'ready', hostId: config.hostId, logFile });
      process.disconnect();
    }
  }
  const code = await done;
  opts.onStopped();
  log.info({ exitCode: code }, 'server stopped');
  await closeLogbackLogger();
  return code;
}
