/**
 * Logging as a logback file says (docs/logging.md): pino writes JSON lines to one router, which
 * applies the root and per-logger levels (a logback `<logger name>` is one of our components:
 * `transfer`, `snmp`, ... optionally written `svc.transfer`), the appender references and
 * additivity, each appender's threshold filter, and writes to console, file or rolling file
 * (pino-roll) either the JSON line or the encoder's pattern. The levels can be changed while the
 * server runs (`setLogLevel`).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogbackAppender, LogbackLevel, LogbackSettings } from '../config/logback.js';
import { RolledFiles } from './log-archive.js';
import { openSyslogSender } from './syslog-sink.js';

const PINO_LEVEL: Record<LogbackLevel, number> = { TRACE: 10, DEBUG: 20, INFO: 30, WARN: 40, ERROR: 50, OFF: Infinity };
const LEVEL_NAME: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'ERROR' };
/** Keys of the JSON envelope and the host id (%X{hostid} shows it), not repeated after the message. */
const ENVELOPE = new Set(['level', 'time', 'pid', 'hostname', 'hostid', 'msg', 'component']);

type Entry = Record<string, unknown>;
type Render = (e: Entry) => string;

const pad2 = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Java SimpleDateFormat subset: yyyy yy MM dd HH mm ss SSS; `ISO8601` as logback's default. */
function dateFormatter(fmt: string | undefined): (d: Date) => string {
  const f = fmt === undefined || fmt === 'ISO8601' ? 'yyyy-MM-dd HH:mm:ss,SSS' : fmt;
  return (d) => f.replace(/yyyy|yy|MM|dd|HH|mm|ss|SSS|'([^']*)'/g, (t, quoted: string | undefined) => {
    switch (t) {
      case 'yyyy': return String(d.getFullYear());
      case 'yy': return pad2(d.getFullYear() % 100);
      case 'MM': return pad2(d.getMonth() + 1);
      case 'dd': return pad2(d.getDate());
      case 'HH': return pad2(d.getHours());
      case 'mm': return pad2(d.getMinutes());
      case 'ss': return pad2(d.getSeconds());
      case 'SSS': return pad2(d.getMilliseconds(), 3);
      default: return quoted ?? t;
    }
  });
}

function extras(e: Entry, shown: Set<string>): string {
  const parts = Object.entries(e).filter(([k]) => !ENVELOPE.has(k) && !shown.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return parts.length === 0 ? '' : ` ${parts.join(' ')}`;
}

/**
 * A logback PatternLayout compiled to a function of one log entry. Honoured: %d/%date{fmt},
 * %level/%le/%p, %logger/%lo/%c (the component), %msg/%m/%message (then the entry's other fields
 * as key=value), %n, %thread/%t (`main`), %X{key}/%mdc{key} (a field of the entry: hostid...),
 * %ex/%throwable (the `err` field), format modifiers (%-5level, %.20logger), colour wrappers
 * (%highlight(...) etc.: the text without colour). Other conversion words print nothing.
 */
export function compilePattern(pattern: string): Render {
  // Colour and style wrappers: keep their content.
  const plain = pattern.replace(/%(?:highlight|black|red|green|yellow|blue|magenta|cyan|white|gray|bold\w+)\(((?:[^()]|\([^()]*\))*)\)/g, '$1');
  const parts: Render[] = [];
  const shown = new Set<string>();
  const re = /%(-?\d*)(?:\.(\d+))?([a-zA-Z]+)(?:\{([^}]*)\})?|%%|([^%]+)/g;
  for (let m = re.exec(plain); m !== null; m = re.exec(plain)) {
    if (m[5] !== undefined) { const lit = m[5]; parts.push(() => lit); continue; }
    if (m[0] === '%%') { parts.push(() => '%'); continue; }
    const [, width = '', max, word = '', option] = m;
    let render: Render;
    switch (word) {
      case 'd': case 'date': { const f = dateFormatter(option); render = (e) => f(typeof e.time === 'string' ? new Date(e.time) : new Date()); break; }
      case 'level': case 'le': case 'p': render = (e) => LEVEL_NAME[e.level as number] ?? String(e.level); break;
      case 'logger': case 'lo': case 'c': render = (e) => (typeof e.component === 'string' ? e.component : 'svc'); break;
      case 'msg': case 'm': case 'message': render = (e) => `${String(e.msg ?? '')}${extras(e, shown)}`; break;
      case 'n': render = () => '\n'; break;
      case 'thread': case 't': render = () => 'main'; break;
      case 'X': case 'mdc': { const key = option ?? ''; if (key) shown.add(key); render = (e) => (e[key] === undefined ? '' : String(e[key])); break; }
      case 'ex': case 'exception': case 'throwable': case 'xEx': case 'xException': case 'rEx': shown.add('err'); render = (e) => (e.err === undefined ? '' : ` ${JSON.stringify(e.err)}`); break;
      case 'nopex': case 'nopexception': render = () => ''; break;
      default: render = () => '';
    }
    const w = Number(width || '0');
    const cut = max === undefined ? undefined : Number(max);
    parts.push(w === 0 && cut === undefined ? render : (e) => {
      let s = render(e);
      if (cut !== undefined && s.length > cut) s = s.slice(s.length - cut);
      return w < 0 ? s.padEnd(-w) : s.padStart(w);
    });
  }
  return (e) => parts.map((p) => p(e)).join('');
}

interface Sink {
  threshold: number;
  write(entry: Entry, line: string): void;
  close(): Promise<void>;
}

interface Writable { write(s: string): unknown; end?(): unknown; flushSync?(): void }

/** Where the appenders of one process write besides what the file says. */
export interface RouterOptions {
  /** Console appenders write to this file instead (service mode: no console). */
  consoleFile?: string;
  /** Console appenders write to stderr whatever their target (client commands: stdout carries their results). */
  consoleToStderr?: boolean;
  /** Every file line written before the call returns (client commands end with process.exit, no flush). */
  sync?: boolean;
}

/** A file stream, and for a rolling file the housekeeping of its rolled files to wait for at close. */
async function openStream(a: LogbackAppender, options: RouterOptions): Promise<Writable & { settled?: () => Promise<void> }> {
  if (a.kind === 'console') {
    if (options.consoleFile !== undefined) return pino.destination({ dest: options.consoleFile, mkdir: true, sync: true });
    return pino.destination({ dest: a.stderr || options.consoleToStderr === true ? 2 : 1, sync: true });
  }
  const sync = options.sync ?? false;
  if (a.kind === 'file' || a.rolling === undefined || (a.rolling.frequency === undefined && a.rolling.size === undefined)) {
    return pino.destination({ dest: a.file ?? '', append: a.append, mkdir: true, sync });
  }
  const { default: roll } = await import('pino-roll');
  const r = a.rolling;
  const file = a.file ?? '';
  // maxHistory, totalSizeCap and compression are applied by RolledFiles (pino-roll's own limit
  // knows only the files this process created and not compressed ones).
  const stream = await roll({
    file, mkdir: true, sync, ...(r.frequency !== undefined ? { frequency: r.frequency } : {}), ...(r.size !== undefined ? { size: r.size } : {}),
  });
  const rolled = new RolledFiles(file, { compression: r.compression, maxHistory: r.maxHistory, totalSizeCap: r.totalSizeCap }, (err, path) => {
    // The log cannot report its own file's trouble through itself: stderr.
    process.stderr.write(`svc-r66: rolled log file ${path}: ${err.message}\n`);
  });
  if (!rolled.active) return stream;
  let last: Promise<void> = Promise.resolve();
  // 'ready' follows every opening: the first and each roll to the next file. A synchronous stream
  // has opened its first file already (its name is known), an asynchronous one not yet.
  const housekeep = (): void => { if (stream.file) last = rolled.housekeep(stream.file); };
  stream.on('ready', housekeep);
  housekeep();
  return Object.assign(stream, { settled: () => last });
}

/** SyslogAppender: the suffixPattern rendered after the syslog header, one datagram a line. */
function openSyslogSink(a: LogbackAppender & { syslog: NonNullable<LogbackAppender['syslog']> }): Sink {
  const sender = openSyslogSender(a.syslog);
  const render = compilePattern(a.syslog.suffixPattern);
  return {
    threshold: a.threshold === undefined ? 0 : PINO_LEVEL[a.threshold],
    write: (entry) => sender.send(Number(entry.level), typeof entry.time === 'string' || typeof entry.time === 'number' ? new Date(entry.time) : new Date(), render(entry)),
    close: () => sender.close(),
  };
}

/** AsyncAppender: hands each line to the appenders it references (they close on their own). */
function asyncSink(targets: Sink[]): Sink {
  return { threshold: 0, write: (entry, line) => { for (const t of targets) if (Number(entry.level) >= t.threshold) t.write(entry, line); }, close: async () => undefined };
}

async function openSink(a: LogbackAppender, options: RouterOptions): Promise<Sink> {
  if (a.kind === 'syslog' && a.syslog !== undefined) return openSyslogSink({ ...a, syslog: a.syslog });
  const stream = await openStream(a, options);
  const render = a.pattern === undefined ? undefined : compilePattern(a.pattern);
  return {
    threshold: a.threshold === undefined ? 0 : PINO_LEVEL[a.threshold],
    write: (entry, line) => void stream.write(render === undefined ? line : render(entry)),
    close: () => new Promise<void>((resolve) => {
      try { stream.flushSync?.(); } catch { /* not open yet */ }
      const end = stream.end?.bind(stream);
      if (a.kind === 'console' || end === undefined) return resolve();
      const ended = new Promise<void>((done) => {
        (stream as unknown as NodeJS.WritableStream).once?.('close', () => done());
        end();
        setTimeout(done, 1000).unref();
      });
      // A compression under way finishes before the close resolves (a stop leaves no temporary archive).
      void ended.then(() => stream.settled?.()).then(() => resolve(), () => resolve());
    }),
  };
}

/** Levels by component name, the root level, and where each component's lines go. */
export class LogRouter implements DestinationStream {
  private rootLevel: number;
  private readonly levels = new Map<string, number>();
  private readonly routes = new Map<string, { sinks: Sink[]; additive: boolean }>();
  private logger: Logger | undefined;

  constructor(private readonly settings: LogbackSettings, private readonly sinks: Map<string, Sink>, fallbackLevel: LogbackLevel) {
    this.rootLevel = PINO_LEVEL[settings.rootLevel ?? fallbackLevel];
    for (const l of settings.loggers) {
      for (const name of componentsOf(l.name)) {
        if (l.level !== undefined) this.levels.set(name, PINO_LEVEL[l.level]);
        this.routes.set(name, { sinks: l.appenders.map((r) => sinks.get(r)).filter((s) => s !== undefined), additive: l.additive });
      }
    }
  }

  attach(logger: Logger): void {
    this.logger = logger;
    this.syncPinoLevel();
  }

  /** The lowest level any logger wants: pino must produce those lines for the router to filter. */
  private syncPinoLevel(): void {
    if (this.logger === undefined) return;
    const min = Math.min(this.rootLevel, ...this.levels.values());
    this.logger.level = min === Infinity ? 'silent' : (pino.levels.labels[min] ?? 'info');
  }

  setLevel(level: LogbackLevel, logger?: string): void {
    if (logger === undefined || logger === '' || logger.toUpperCase() === 'ROOT') this.rootLevel = PINO_LEVEL[level];
    else for (const name of componentsOf(logger)) this.levels.set(name, PINO_LEVEL[level]);
    this.syncPinoLevel();
  }

  levelsNow(): { root: string; loggers: Record<string, string> } {
    const name = (n: number): string => (n === Infinity ? 'OFF' : LEVEL_NAME[n] ?? String(n));
    return { root: name(this.rootLevel), loggers: Object.fromEntries([...this.levels].map(([k, v]) => [k, name(v)])) };
  }

  write(line: string): void {
    let entry: Entry;
    try { entry = JSON.parse(line) as Entry; } catch { return; }
    const level = Number(entry.level);
    const component = typeof entry.component === 'string' ? entry.component : '';
    if (level < (this.levels.get(component) ?? this.rootLevel)) return;
    const route = this.routes.get(component);
    const targets = route !== undefined && !route.additive ? route.sinks : [...this.settings.rootAppenders.map((r) => this.sinks.get(r)), ...(route?.sinks ?? [])];
    for (const sink of new Set(targets)) if (sink !== undefined && level >= sink.threshold) sink.write(entry, line);
  }

  async close(): Promise<void> {
    for (const s of this.sinks.values()) await s.close();
  }
}

/** `svc.transfer`, `svc-r66.transfer` and `transfer` all name the component `transfer`. */
/**
 * The original's logger names (Java packages, longest prefix first) and the components of ours that
 * do that work, so a logback file of a Java host keeps its levels and appenders (issue 34 item 5).
 */
const JAVA_LOGGERS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['org.waarp.openr66.context.task', ['tasks']],
  ['org.waarp.openr66.protocol.monitoring', ['push-monitor']],
  ['org.waarp.openr66.protocol.snmp', ['snmp']],
  ['org.waarp.snmp', ['snmp']],
  ['org.waarp.openr66.protocol.localhandler.packet.business', ['business']],
  ['org.waarp.openr66.context', ['transfer']],
  ['org.waarp.openr66.protocol', ['transfer']],
  ['org.waarp.openr66.commander', ['transfer']],
  ['org.waarp.openr66.database', ['transfer']],
  ['org.waarp', ['transfer', 'tasks', 'business', 'snmp', 'push-monitor']],
];

/** Our components a logger name stands for: ours (`transfer`, `svc.transfer`) or the original's. */
function componentsOf(loggerName: string): readonly string[] {
  const java = JAVA_LOGGERS.find(([prefix]) => loggerName === prefix || loggerName.startsWith(`${prefix}.`));
  return java ? java[1] : [loggerName.replace(/^svc(-r66)?\./, '')];
}

/**
 * Opens every appender the file uses and returns the router pino writes to.
 */
export async function openLogRouter(settings: LogbackSettings, fallbackLevel: LogbackLevel, options: RouterOptions = {}): Promise<LogRouter> {
  const sinks = new Map<string, Sink>();
  const byName = new Map(settings.appenders.map((a) => [a.name, a]));
  const used = new Set([...settings.rootAppenders, ...settings.loggers.flatMap((l) => l.appenders)]);
  // An async appender's references are used too (logback allows them only one level deep).
  for (const name of [...used]) for (const r of byName.get(name)?.refs ?? []) used.add(r);
  for (const a of settings.appenders) if (used.has(a.name) && a.kind !== 'async') sinks.set(a.name, await openSink(a, options));
  for (const a of settings.appenders) {
    if (used.has(a.name) && a.kind === 'async') sinks.set(a.name, asyncSink((a.refs ?? []).map((r) => sinks.get(r)).filter((s) => s !== undefined)));
  }
  return new LogRouter(settings, sinks, fallbackLevel);
}
