// Logback files (config.md §7). The original's logging library is not ours: we locate
// logback-server.xml / logback-client.xml and read what operators use (docs/logging.md): root and
// per-logger levels and appender references, console, file and rolling-file appenders (time and
// size policies, history limits), the encoder pattern, threshold filters and `${...}` variables
// from <property> and the environment. `loadLogbackConfig` keeps the short summary of old.
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from './errors.js';
import { checkRange, CONFIG_RANGES } from './ranges.js';
import type { LogbackConfig } from './types.js';
import { normaliseText, readXmlFile, type XmlElement } from './xml-read.js';

const LEVELS = new Set(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'OFF', 'ALL']);

/** `<confDir>/logback-<role>.xml` when it exists. */
export async function findLogbackFile(confDir: string, role: 'server' | 'client'): Promise<string | undefined> {
  const candidate = resolve(join(confDir, `logback-${role}.xml`));
  return stat(candidate).then((s) => (s.isFile() ? candidate : undefined), () => undefined);
}

function findAll(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (c.name === name) out.push(c);
    findAll(c, name, out);
  }
  return out;
}

/** Reads what we use of a logback file; a value containing `${...}` variables is not used. */
export async function loadLogbackConfig(file: string): Promise<LogbackConfig> {
  const path = resolve(file);
  const doc = await readXmlFile(path, ['configuration']);
  const rootLogger = doc.root.children.find((c) => c.name === 'root');
  const levelText = rootLogger?.attributes.level ?? rootLogger?.children.find((c) => c.name === 'level')?.attributes.value;
  const level = levelText?.trim().toUpperCase();
  let logFile: string | undefined;
  for (const appender of findAll(doc.root, 'appender')) {
    const f = appender.children.find((c) => c.name === 'file');
    const text = f === undefined ? '' : normaliseText(f.rawText);
    if (text !== '' && !text.includes('${')) { logFile = text; break; }
  }
  return { file: path, level: level !== undefined && LEVELS.has(level) ? level : undefined, logFile };
}

export type LogbackLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'OFF';

/** SyslogAppender: one UDP datagram per line, as logback sends it (RFC 3164 header + suffixPattern). */
export interface LogbackSyslog {
  host: string;
  port: number;
  /** The facility's number (USER = 1, LOCAL0 = 16...). */
  facility: number;
  suffixPattern: string;
}

/** logback's facility names (SyslogAppender's <facility>) and their numbers. */
const SYSLOG_FACILITIES: Readonly<Record<string, number>> = {
  KERN: 0, USER: 1, MAIL: 2, DAEMON: 3, AUTH: 4, SYSLOG: 5, LPR: 6, NEWS: 7, UUCP: 8, CRON: 9, AUTHPRIV: 10, FTP: 11,
  NTP: 12, AUDIT: 13, ALERT: 14, CLOCK: 15, LOCAL0: 16, LOCAL1: 17, LOCAL2: 18, LOCAL3: 19, LOCAL4: 20, LOCAL5: 21, LOCAL6: 22, LOCAL7: 23,
};

export interface LogbackAppender {
  name: string;
  kind: 'console' | 'file' | 'rolling' | 'syslog' | 'async';
  /** Syslog: where and how. */
  syslog?: LogbackSyslog | undefined;
  /** Async: the appenders it hands its lines to (its <appender-ref>s). */
  refs?: string[] | undefined;
  /** Console: `System.err` target. */
  stderr: boolean;
  /** File and rolling: the active file. */
  file: string | undefined;
  append: boolean;
  /** The encoder's pattern; undefined = JSON lines (also for JSON/Logstash encoders). */
  pattern: string | undefined;
  /** ThresholdFilter level. */
  threshold: LogbackLevel | undefined;
  rolling: {
    frequency: 'daily' | 'hourly' | number | undefined; size: string | undefined; maxHistory: number | undefined;
    /** `fileNamePattern` ending with `.gz` / `.zip`: rolled files are compressed. */
    compression?: 'gz' | 'zip' | undefined;
    /** `totalSizeCap` in bytes. */
    totalSizeCap?: number | undefined;
  } | undefined;
}

export interface LogbackLogger {
  name: string;
  level: LogbackLevel | undefined;
  additive: boolean;
  appenders: string[];
}

/** Everything we honour in a logback file. */
export interface LogbackSettings {
  file: string;
  rootLevel: LogbackLevel | undefined;
  rootAppenders: string[];
  loggers: LogbackLogger[];
  appenders: LogbackAppender[];
  /** What was not understood or not honoured, one line each (logged at start). */
  warnings: string[];
}

const child = (el: XmlElement, name: string): XmlElement | undefined => el.children.find((c) => c.name === name);

function levelOf(text: string | undefined): LogbackLevel | undefined {
  const l = text?.trim().toUpperCase();
  if (l === undefined || l === '') return undefined;
  if (l === 'ALL') return 'TRACE';
  return LEVELS.has(l) ? (l as LogbackLevel) : undefined;
}

/** A logback file size (`500MB`, `1 GB`, `1024`: bytes without a unit); undefined when it is not one. */
function sizeInBytes(text: string): number | undefined {
  const m = /^(\d+)\s*(|b|kb|mb|gb)s?$/i.exec(text.trim());
  if (m === null) return undefined;
  const unit = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'b' | 'kb' | 'mb' | 'gb'];
  return Number(m[1]) * unit;
}

/** Maps `%d{...}` of a fileNamePattern to a period: the smallest unit the date format names. */
function frequencyOf(pattern: string): 'daily' | 'hourly' | number | undefined {
  const m = /%d(?:ate)?(?:\{([^}]*)\})?/.exec(pattern);
  if (m === null) return undefined;
  const fmt = m[1] ?? 'yyyy-MM-dd';
  if (/m/.test(fmt.replace(/MM/g, ''))) return 60_000;
  if (/[Hh]/.test(fmt)) return 'hourly';
  return 'daily';
}

/** Reads the logback file fully (see docs/logging.md for what is honoured). */
export async function loadLogbackSettings(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LogbackSettings> {
  const path = resolve(file);
  const doc = await readXmlFile(path, ['configuration']);
  const warnings: string[] = [];
  const props = new Map<string, string>();
  const expand = (text: string, where: string): string | undefined => {
    let missing: string | undefined;
    const out = text.replace(/\$\{([^}:]+)(?::-([^}]*))?\}/g, (_m, name: string, def: string | undefined) => {
      const v = props.get(name) ?? env[name] ?? def;
      if (v === undefined) missing = name;
      return v ?? '';
    });
    if (missing !== undefined) { warnings.push(`${path}: ${where}: variable \${${missing}} is not defined (<property> or environment); ignored`); return undefined; }
    return out;
  };
  const text = (el: XmlElement | undefined, where: string): string | undefined => {
    if (el === undefined) return undefined;
    const t = normaliseText(el.rawText);
    return t === '' ? undefined : expand(t, where);
  };
  for (const p of findAll(doc.root, 'property')) {
    const name = p.attributes.name;
    const value = p.attributes.value ?? normaliseText(p.rawText);
    if (name !== undefined) props.set(name, expand(value, `property ${name}`) ?? '');
  }
  const appenders: LogbackAppender[] = [];
  for (const a of doc.root.children.filter((c) => c.name === 'appender')) {
    const name = a.attributes.name ?? '';
    const cls = a.attributes.class ?? '';
    const where = `appender ${name}`;
    if (/AsyncAppender$/.test(cls)) {
      // Our appenders never block the server (pino writes files asynchronously), so the queue
      // settings of logback's AsyncAppender have nothing to act on: said, not ignored in silence.
      for (const c of a.children.filter((e) => ['queueSize', 'discardingThreshold', 'neverBlock', 'maxFlushTime', 'includeCallerData'].includes(e.name))) {
        warnings.push(`${path}: ${where}: <${c.name}> is not acted on (lines are handed to the referenced appenders as they come; writing never blocks the server)`);
      }
      appenders.push({ ...baseAppender(name, 'async'), refs: a.children.filter((c) => c.name === 'appender-ref').map((c) => c.attributes.ref ?? '').filter((r) => r !== '') });
      continue;
    }
    if (/SyslogAppender$/.test(cls)) {
      const syslog = syslogOf(a, where, text, path);
      if (syslog !== undefined) appenders.push({ ...baseAppender(name, 'syslog'), syslog, threshold: thresholdOf(a, where, text) });
      continue;
    }
    const kind = /ConsoleAppender$/.test(cls) ? 'console' : /RollingFileAppender$/.test(cls) ? 'rolling' : /FileAppender$/.test(cls) ? 'file' : undefined;
    if (kind === undefined) { warnings.push(`${path}: ${where}: class ${cls} is not supported (console, file, rolling-file, syslog and async appenders are); ignored`); continue; }
    const encoder = child(a, 'encoder') ?? child(a, 'layout');
    const json = /json|logstash/i.test(encoder?.attributes.class ?? '');
    const pattern = json ? undefined : text(encoder !== undefined ? child(encoder, 'pattern') ?? child(encoder, 'Pattern') : undefined, where);
    const filter = a.children.find((c) => c.name === 'filter' && /ThresholdFilter$/.test(c.attributes.class ?? ''));
    for (const f of a.children.filter((c) => c.name === 'filter' && c !== filter)) warnings.push(`${path}: ${where}: filter ${f.attributes.class ?? ''} is not supported; ignored`);
    let activeFile = text(child(a, 'file'), where);
    let rolling: LogbackAppender['rolling'];
    if (kind === 'rolling') {
      const policy = child(a, 'rollingPolicy');
      const trigger = child(a, 'triggeringPolicy');
      const namePattern = policy ? text(child(policy, 'fileNamePattern'), where) : undefined;
      const size = text(policy ? child(policy, 'maxFileSize') : undefined, where) ?? text(trigger ? child(trigger, 'maxFileSize') : undefined, where);
      const history = text(policy ? child(policy, 'maxHistory') ?? child(policy, 'maxIndex') : undefined, where);
      // logback sizes: a bare number is bytes (pino-roll would read it as megabytes).
      const fileSize = size === undefined ? undefined : sizeInBytes(size);
      if (size !== undefined && fileSize === undefined) warnings.push(`${path}: ${where}: maxFileSize ${size} is not a size (e.g. 10MB); not rolled by size`);
      const capText = text(policy ? child(policy, 'totalSizeCap') : undefined, where);
      const cap = capText === undefined ? undefined : sizeInBytes(capText);
      if (capText !== undefined && cap === undefined) warnings.push(`${path}: ${where}: totalSizeCap ${capText} is not a size (e.g. 1GB); ignored`);
      const compression = /\.gz$/i.test(namePattern ?? '') ? 'gz' : /\.zip$/i.test(namePattern ?? '') ? 'zip' : undefined;
      // Numbers are held to the range table like every configuration number (ranges.ts).
      const bounded = (key: 'rollingPolicy/maxHistory' | 'rollingPolicy/maxFileSize', value: string | number | undefined): number | undefined => {
        if (value === undefined) return undefined;
        const r = checkRange(String(value), CONFIG_RANGES[key]);
        if (r.ok) return Number(r.value);
        if (r.notNumber) { warnings.push(`${path}: ${where}: ${key.split('/')[1]} ${r.message}; ignored`); return undefined; }
        throw new ConfigError(r.message, { file: path, element: `${where}/${key}` });
      };
      const maxHistory = bounded('rollingPolicy/maxHistory', history);
      bounded('rollingPolicy/maxFileSize', fileSize);
      bounded('rollingPolicy/maxFileSize', cap);
      rolling = {
        frequency: namePattern ? frequencyOf(namePattern) : undefined, size: fileSize === undefined ? undefined : `${fileSize}b`, maxHistory,
        ...(compression !== undefined ? { compression } : {}), ...(cap !== undefined ? { totalSizeCap: cap } : {}),
      };
      // Without <file> logback writes straight to the pattern's name; we keep one active file beside it.
      activeFile ??= namePattern?.replace(/[._-]?%(d(ate)?(\{[^}]*\})?|i)/g, '').replace(/\.(gz|zip)$/, '');
    }
    if (kind !== 'console' && activeFile === undefined) { warnings.push(`${path}: ${where}: no usable <file>; ignored`); continue; }
    appenders.push({
      name, kind, stderr: /System\.err/.test(text(child(a, 'target'), where) ?? ''), file: activeFile, append: text(child(a, 'append'), where) !== 'false',
      pattern, threshold: filter ? levelOf(text(child(filter, 'level'), where)) : undefined, rolling,
    });
  }
  const refs = (el: XmlElement): string[] => el.children.filter((c) => c.name === 'appender-ref').map((c) => c.attributes.ref ?? '').filter((r) => r !== '');
  const rootEl = child(doc.root, 'root');
  const attr = (value: string | undefined, where: string): string | undefined => (value === undefined ? undefined : expand(value, where));
  const loggers: LogbackLogger[] = doc.root.children.filter((c) => c.name === 'logger' && c.attributes.name !== undefined).map((l) => ({
    name: l.attributes.name ?? '', level: levelOf(attr(l.attributes.level ?? child(l, 'level')?.attributes.value, `logger ${l.attributes.name ?? ''}`)), additive: l.attributes.additivity !== 'false', appenders: refs(l),
  }));
  return {
    file: path, rootLevel: levelOf(attr(rootEl?.attributes.level ?? (rootEl ? child(rootEl, 'level')?.attributes.value : undefined), 'root')),
    rootAppenders: rootEl ? refs(rootEl) : [], loggers, appenders, warnings,
  };
}

function baseAppender(name: string, kind: 'syslog' | 'async'): LogbackAppender {
  return { name, kind, stderr: false, file: undefined, append: true, pattern: undefined, threshold: undefined, rolling: undefined };
}

type TextOf = (el: XmlElement | undefined, where: string) => string | undefined;

function thresholdOf(a: XmlElement, where: string, text: TextOf): LogbackLevel | undefined {
  const filter = a.children.find((c) => c.name === 'filter' && /ThresholdFilter$/.test(c.attributes.class ?? ''));
  return filter ? levelOf(text(child(filter, 'level'), where)) : undefined;
}

/** SyslogAppender's <syslogHost> (localhost), <port> (514), <facility> (USER) and <suffixPattern>. */
function syslogOf(a: XmlElement, where: string, text: TextOf, path: string): LogbackSyslog | undefined {
  const facilityName = (text(child(a, 'facility'), where) ?? 'USER').toUpperCase();
  const facility = SYSLOG_FACILITIES[facilityName];
  if (facility === undefined) {
    throw new ConfigError(`facility ${facilityName} is not a syslog facility (${Object.keys(SYSLOG_FACILITIES).join(', ')})`, { file: path, element: `${where}/facility` });
  }
  const portText = text(child(a, 'port'), where) ?? '514';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new ConfigError(`port ${portText} is out of range; expected an integer from 1 to 65535`, { file: path, element: `${where}/port` });
  }
  return { host: text(child(a, 'syslogHost'), where) ?? 'localhost', port, facility, suffixPattern: text(child(a, 'suffixPattern'), where) ?? '[%thread] %logger %msg' };
}
