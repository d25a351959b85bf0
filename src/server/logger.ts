/**
 * Structured logs (pino): JSON lines to stdout in the foreground, to a file in service mode (whose
 * stdout is closed). Values under secret-looking keys are censored whatever logs them.
 */
import { dirname } from 'node:path';
import { pino, type Logger } from 'pino';
import { makeDirsSync } from '../fs/make-dirs.js';

export type { Logger } from 'pino';

/** Keys whose values never reach a log (config objects, hosts, errors that carry them). */
const SECRET_PATHS = [
  'password', 'passwd', 'key', 'hostKey', 'hostkey', 'cryptoKey', 'dbpasswd', 'serverpasswd', 'secret', 'token',
  '*.password', '*.passwd', '*.key', '*.hostKey', '*.hostkey', '*.cryptoKey', '*.dbpasswd', '*.serverpasswd', '*.secret', '*.token',
];

export interface LoggerOptions {
  /** Log file; else the descriptor `fd` (default 1, stdout). */
  file?: string;
  fd?: 1 | 2;
  /** pino level; default `SVC_LOG_LEVEL` or `info`. */
  level?: string;
  /** Bound to every line (`hostid`...). */
  base?: Record<string, unknown>;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.SVC_LOG_LEVEL ?? 'info';
  let destination;
  if (opts.file) {
    makeDirsSync(dirname(opts.file));
    // Synchronous writes: server-level lines are few, and none is lost when the process exits.
    destination = pino.destination({ dest: opts.file, sync: true, mkdir: true });
  } else {
    destination = pino.destination({ dest: opts.fd ?? 1, sync: true });
  }
  return pino(
    {
      level,
      base: { pid: process.pid, ...opts.base },
      redact: { paths: SECRET_PATHS, censor: '[secret]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** A logger that writes nothing (tools that only print human lines). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
