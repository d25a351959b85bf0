/**
 * Structured logs (pino): JSON lines to stdout in the foreground, to a file in service mode (whose
 * stdout is closed). On a terminal the lines are shortened for a person (`readableLine`) unless
 * `SVC_LOG_FORMAT=json`. Values under secret-looking keys are censored whatever logs them.
 */
import { writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isatty } from 'node:tty';
import { pino, type Logger } from 'pino';
import { findLogbackFile, loadLogbackSettings, type LogbackLevel, type LogbackSettings } from '../config/logback.js';
import { makeDirsSync } from '../fs/make-dirs.js';
import { openLogRouter, type LogRouter, type RouterOptions } from '../monitor/logging.js';
import { provideLogLevelControl } from '../http/log-level-control.js';

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

/** The process's main logger and, when a logback file configured it, its router (setLogLevel). */
let active: { logger: Logger; router: LogRouter | undefined } | undefined;

const pinoOptions = (level: string, base: Record<string, unknown> | undefined) => ({
  level,
  base: { pid: process.pid, ...base },
  redact: { paths: SECRET_PATHS, censor: '[secret]' },
  timestamp: pino.stdTimeFunctions.isoTime,
});

export function createLogger(opts: LoggerOptions = {}): Logger {
  const logger = createPlainLogger(opts);
  active = { logger, router: undefined };
  return logger;
}

/**
 * The logger a logback file describes (docs/logging.md): levels per logger, console, file and
 * rolling-file appenders, patterns. `SVC_LOG_LEVEL`, when set, still wins for the root level.
 */
export async function createLogbackLogger(settings: LogbackSettings, opts: RouterOptions & { base?: Record<string, unknown> } = {}): Promise<Logger> {
  const router = await openLogRouter(settings, 'WARN', opts);
  const logger = pino(pinoOptions('info', opts.base), router);
  router.attach(logger);
  const forced = process.env.SVC_LOG_LEVEL?.toUpperCase();
  if (forced !== undefined && forced !== '') router.setLevel(forced === 'SILENT' ? 'OFF' : forced as LogbackLevel);
  active = { logger, router };
  return logger;
}

/**
 * The server's logger: as `<config dir>/logback-server.xml` (or `<serverhome>/conf/...`) says when
 * that file exists and loads, else JSON lines to stdout or `file` (service mode). Remarks about the
 * logback file (what is not honoured) are logged as warnings on the logger returned.
 */
export function createServerLogger(configFile: string, confDir: string, opts: LoggerOptions): Promise<Logger> {
  return createInstanceLogger('server', configFile, confDir, opts, opts.file === undefined ? {} : { consoleFile: opts.file });
}

/**
 * A client command's logger: as `<config dir>/logback-client.xml` (or `<conf>/...`) says, else
 * JSON lines on stderr at `SVC_LOG_LEVEL` or WARN. Console appenders write to stderr (stdout
 * carries the command's results, which scripts read) and files are written synchronously (the
 * command ends with process.exit, which would drop lines still buffered).
 */
export function createClientLogger(configFile: string, confDir: string): Promise<Logger> {
  return createInstanceLogger('client', configFile, confDir, { level: process.env.SVC_LOG_LEVEL ?? 'warn', fd: 2 }, { consoleToStderr: true, sync: true });
}

async function createInstanceLogger(role: 'server' | 'client', configFile: string, confDir: string, opts: LoggerOptions, routing: RouterOptions): Promise<Logger> {
  // SVC_LOGBACK_FILE: the original's -Dlogback.configurationFile (a file anywhere, used as given).
  const given = process.env.SVC_LOGBACK_FILE;
  const found = given ? given : (await findLogbackFile(dirname(configFile), role)) ?? (await findLogbackFile(confDir, role));
  if (found === undefined) return createLogger(opts);
  try {
    const settings = await loadLogbackSettings(found);
    const logger = await createLogbackLogger(settings, { ...(opts.base ? { base: opts.base } : {}), ...routing });
    for (const w of settings.warnings) logger.warn({ file: found }, w);
    return logger;
  } catch (err) {
    const logger = createLogger(opts);
    logger.warn({ file: found, err: err instanceof Error ? err.message : String(err) }, 'the logback file cannot be used; logging as without it');
    return logger;
  }
}

/** Flushes and closes the appenders of a logback logger (at process end). */
export async function closeLogbackLogger(): Promise<void> {
  await active?.router?.close();
}

const RUNTIME_LEVELS = new Set(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'OFF']);

/**
 * Changes a log level while the server runs (REST, the administration page): the root level, or
 * the level of one logger (a component: `transfer`, `snmp`, `push-monitor`...) when `logger` is
 * given. Throws on an unknown level; returns the levels now in force.
 */
export function setLogLevel(level: string, logger?: string): { root: string; loggers: Record<string, string> } {
  const l = level.trim().toUpperCase();
  if (!RUNTIME_LEVELS.has(l)) throw new Error(`unknown log level "${level}": expected TRACE, DEBUG, INFO, WARN, ERROR or OFF`);
  if (active === undefined) throw new Error('no logger to change');
  if (active.router !== undefined) active.router.setLevel(l as LogbackLevel, logger);
  else if (logger === undefined || logger === '' || logger.toUpperCase() === 'ROOT') active.logger.level = l === 'OFF' ? 'silent' : l.toLowerCase();
  else throw new Error('per-logger levels need a logback file (logback-server.xml)');
  return logLevels();
}

/** The levels in force: root and per logger. */
export function logLevels(): { root: string; loggers: Record<string, string> } {
  if (active === undefined) return { root: 'INFO', loggers: {} };
  if (active.router !== undefined) return active.router.levelsNow();
  const level = active.logger.level;
  return { root: level === 'silent' ? 'OFF' : level.toUpperCase(), loggers: {} };
}

// REST changes the levels through this (src/http must not import src/server).
provideLogLevelControl({ levels: logLevels, set: setLogLevel });

function createPlainLogger(opts: LoggerOptions): Logger {
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
  return pino(pinoOptions(level, opts.base), destination);
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
