/**
 * Structured logs (pino): JSON lines to stdout in the foreground, to a file in service mode (whose
 * stdout is closed). On a terminal the lines are shortened for a person (`readableLine`) unless
 * `SVC_LOG_FORMAT=json`. Values under secret-looking keys are censored whatever logs them.
 */
import { writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isatty } from 'node:tty';
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
    const fd = opts.fd ?? 1;
    destination = isatty(fd) && process.env.SVC_LOG_FORMAT !== 'json'
      ? { write: (line: string) => void writeSync(fd, readableLine(line)) }
      : pino.destination({ dest: fd, sync: true });
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

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Bound to every line or part of the JSON envelope: not repeated on a terminal. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'hostid', 'msg']);

/**
 * One JSON log line as a person reads it on a terminal:
 * `12:00:01 WARN  database not initialised: run `svc-r66server initdb` database=jdbc:sqlite:/x`.
 */
export function readableLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = (typeof entry.time === 'string' ? new Date(entry.time) : new Date()).toTimeString().slice(0, 8);
  const level = (LEVELS[entry.level as number] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return `${time} ${level} ${[String(entry.msg ?? ''), ...fields].join(' ')}\n`;
}

/** A logger that writes nothing (tools that only print human lines). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
