/**
 * Graceful shutdown on SIGTERM, SIGINT and SIGHUP (the original's shutdown hook, cli.md §2.1;
 * `stop` sends SIGHUP): one ordered stop, bounded by a timeout, then the process exit code.
 */
import type { Logger } from 'pino';

export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

export interface ShutdownOptions {
  log: Logger;
  /** Ordered stop of everything; must not throw. */
  stop: () => Promise<void>;
  /** Longest wait for `stop` before giving up (config `limit/timeoutcon`). */
  timeoutMs: number;
  /** Called once with 0 after a clean stop, 1 after a timeout. */
  onDone: (exitCode: number) => void;
}

/** Installs the handlers; returns a function that triggers the same shutdown programmatically. */
export function installShutdownHandlers(opts: ShutdownOptions): (reason: string) => void {
  let started = false;
  const shutdown = (reason: string): void => {
    if (started) {
      opts.log.warn({ reason }, 'shutdown already in progress');
      return;
    }
    started = true;
    opts.log.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      opts.log.error({ timeoutMs: opts.timeoutMs }, 'shutdown did not finish in time; exiting');
      opts.onDone(1);
    }, opts.timeoutMs);
    timer.unref();
    void opts.stop().then(() => {
      clearTimeout(timer);
      opts.onDone(0);
    });
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => shutdown(signal));
  return shutdown;
}
