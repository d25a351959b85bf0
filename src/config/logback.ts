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

export interface LogbackAppender {
  name: string;
  kind: 'console' | 'file' | 'rolling';
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
    const kind = /ConsoleAppender$/.test(cls) ? 'console' : /RollingFileAppender$/.test(cls) ? 'rolling' : /FileAppender$/.test(cls) ? 'file' : undefined;
    if (kind === undefined) { warnings.push(`${path}: ${where}: class ${cls} is not supported (console, file and rolling-file appenders are); ignored`); continue; }
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
