/**
 * One FileWatcher (filewatcher.md §3): scans its directories every `elapse` ms, moves each file
 * through the stability state machine (size, modification time, MD5) and orders the transfer of
 * every file that became stable, to each `to` host in order; keeps its state file and lock file;
 * reports to its servers.
 *
 * Exactly once (docs/decisions/, "FileWatcher exactly once"): the orders of a file (host and
 * transfer id) are written to the state file before any is given; an order found in the state
 * file at the next action is reconciled with the local database before anything is given again.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { compileRegex, scanDirectories, type ScanFilter, type ScanProblems } from './scanner.js';
import type { WatcherConfig } from './config.js';
import { newItem, type FileItem } from './item.js';
import { WatchLock } from './lock.js';
import type { OrderRequest, OrderResult, OrderState, WatchOrders } from './watch-orders.js';
import { ReportBuilder, SPOOLED_INFORM_CLASS, type MonitorSummary } from './report.js';
import { loadState, saveState } from './state-file.js';

/** Answer of a server to a report: `Validated`, or `needfull` when it lost the state. */
export type InformAnswer = 'Validated' | 'needfull';

export interface WatcherDeps {
  orders: WatchOrders;
  logger: Logger;
  /** Sends a business request; resolves with the server's answer, throws when it failed. */
  inform?(host: string, header: string): Promise<InformAnswer>;
  /** Called once the first scan is done (tests, the service-mode launcher). */
  onScanned?(): void;
}

/** Direct and parallel with limitParallel 0 (the original's unbounded pool): at most this many at once. */
export const UNBOUNDED_PARALLEL = 64;
/** Orders written to the state file in one write before they are given. */
const ORDER_CHUNK = 256;
/** Files whose last failure is remembered (so a refusal is logged once); beyond, failures are logged each time. */
const MAX_FAILURES_LOGGED = 100_000;
/** Sent files stat'ed per scan before their checks are spread over several scans. */
export const DONE_CHECKS_PER_SCAN = 10_000;

/** A file as a watcher keeps it: the scan that last listed it, its place in the stride of sent files. */
interface Tracked extends FileItem {
  /** The last scan that listed it; 0: not looked at yet by this process. */
  seen: number;
  slot: number;
}

export class FileWatcher {
  readonly config: WatcherConfig;
  private readonly items = new Map<string, Tracked>();
  /** The same items by directory key, then by name (a scan looks a listed name up without building its path). */
  private readonly byDir = new Map<string, Map<string, Tracked>>();
  private readonly filter: ScanFilter;
  private readonly lock: WatchLock;
  private readonly log: Logger;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private knownProblems: ScanProblems = new Map();
  /** The last failure logged per file: the same failure again is not logged at every retry (issue 32). */
  private readonly failuresLogged = new Map<string, string>();
  private readonly reports = new Map<string, ReportBuilder>();
  private counters = { globalOk: 0, globalError: 0, todayOk: 0, todayError: 0, day: new Date().toDateString() };
  private stateBroken = false;
  private lastReport = 0;
  private scanNo = 0;
  private nextSlot = 0;
  /** Sent files are stat'ed in one scan out of this many (see scan()). */
  private doneStride = 1;

  constructor(config: WatcherConfig, private readonly deps: WatcherDeps) {
    this.config = config;
    this.filter = { regex: compileRegex(config.regex), minimalSize: config.minimalSize, recursive: config.recursive };
    this.log = deps.logger.child({ watcher: config.name });
    this.lock = new WatchLock(config.statusFile, { elapseMs: config.elapse, onTakeover: (m) => this.log.warn(m) });
  }

  /** Pre-start checks of §3.4 that need no database; throws an Error naming the problem. */
  checkSetup(): void {
    const c = this.config;
    for (const [what, f] of [['status file', c.statusFile], ['stop file', c.stopFile]] as const) {
      if (statSync(f, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`the ${what} ${f} is a directory`);
    }
    for (const d of c.directories) {
      if (!statSync(d, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`the directory ${d} does not exist`);
    }
  }

  get stopFileExists(): boolean {
    return existsSync(this.config.stopFile);
  }

  /** Asks the watcher to end after the current file; run() then resolves. */
  stop(): void {
    this.stopping = true;
    this.wakeUp?.();
  }

  /** A file-system event: scan now rather than at the end of the wait (the stability rules still decide). */
  wake(): void {
    this.wakeUp?.();
  }

  /** Runs until the stop file appears or stop() is called. */
  async run(): Promise<void> {
    await this.lock.acquire();
    try {
      const loaded = await loadState(this.config.statusFile);
      if (loaded.problem !== null) this.log.error(loaded.problem);
      this.load(loaded.items);
      this.log.info({ files: this.items.size, directories: this.config.directories }, 'watcher started');
      let first = true;
      let reportTimer: NodeJS.Timeout | undefined;
      if (this.reportsOn && this.config.elapseWaarp >= 1000) {
        reportTimer = setInterval(() => void this.report(), this.config.elapseWaarp);
      }
      try {
        while (!this.shouldStop()) {
          await this.scan();
          if (first) {
            first = false;
            this.deps.onScanned?.();
          }
          if (this.reportsOn && this.config.elapseWaarp < 1000) await this.report();
          if (this.shouldStop()) break;
          await this.pause(this.config.elapse);
        }
      } finally {
        if (reportTimer !== undefined) clearInterval(reportTimer);
      }
      if (this.reportsOn) await this.report();
      this.log.info('watcher stopped');
    } finally {
      await this.lock.release().catch(() => undefined);
    }
  }

  private shouldStop(): boolean {
    if (!this.stopping && this.stopFileExists) {
      this.log.info({ stopFile: this.config.stopFile }, 'stop file found');
      this.stopping = true;
    }
    return this.stopping;
  }

  /**
   * The original's fixed delay between scans. A file-system event may end it early, but not before
   * a quarter of it: the stability rules see every file over several scans whatever wakes them.
   */
  private pause(ms: number): Promise<void> {
    const earliest = Date.now() + Math.max(100, ms / 4);
    return new Promise((resolve) => {
      let timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        if (this.stopping) return done();
        const wait = earliest - Date.now();
        this.wakeUp = null;
        if (wait <= 0) return done();
        clearTimeout(timer);
        timer = setTimeout(done, wait);
      };
    });
  }

  /**
   * One scan (§3.2): state machine over the candidates, orders of the stable files, removals, save.
   *
   * A file sent and idle (used, DONE, no order open) is only looked at for a modification (rules
   * 3-4; rules 5-7 cannot change it). With ignoreAlreadyUsed and no minimalSize it needs nothing
   * but its presence in the listing (rule 2), so it is not stat'ed. Otherwise it is stat'ed in one
   * scan out of `doneStride`: every scan while there are at most DONE_CHECKS_PER_SCAN such files,
   * every second scan up to twice that, and so on (docs/filewatcher.md, "Performance").
   */
  async scan(): Promise<void> {
    const problems: ScanProblems = new Map();
    const gen = ++this.scanNo;
    const stride = this.doneStride;
    const skipUsed = this.config.ignoreAlreadyUsed && this.config.minimalSize <= 0;
    const skip = (dir: string): ((name: string) => boolean) | null => {
      const known = this.byDir.get(dir);
      if (known === undefined || (stride === 1 && !skipUsed)) return null;
      return (name) => {
        const item = known.get(name);
        // Items read from the state file are looked at once before any is skipped.
        if (item === undefined || item.seen === 0 || !item.used) return false;
        // Sent and idle: stat'ed for a modification (or, with ignoreAlreadyUsed, for minimalSize)
        // in one scan out of `stride` (every scan when stride is 1).
        if (!skipUsed && (item.status !== 'DONE' || item.orders !== null || (item.slot + gen) % stride === 0)) return false;
        item.seen = gen;
        return true;
      };
    };
    const candidates = await scanDirectories(this.config.directories, this.filter, problems, skip);
    this.noteProblems(problems);
    const actionable: Array<{ item: Tracked; dirRank: number }> = [];
    let changed = false;
    const now = Date.now();
    for (const c of candidates) {
      const item = this.items.get(c.key);
      if (item === undefined) {
        this.put(c.key, newItem(c.key), gen);
        changed = true;
        continue;
      }
      item.seen = gen;
      if (item.used && this.config.ignoreAlreadyUsed) continue;
      if (c.size !== item.size) {
        item.size = c.size;
        item.status = 'CHANGING';
        changed = true;
        continue;
      }
      if (c.mtimeMs !== item.lastTime) {
        item.lastTime = c.mtimeMs;
        item.status = 'CHANGING';
        if (item.used) item.hash = null;
        changed = true;
        continue;
      }
      // A sent file whose size and time did not change: its hash could only be equal and DONE stays
      // DONE, so it is not read again (a scan of 100,000 sent files reads none).
      if (item.used && item.status === 'DONE') continue;
      let hash: string;
      try {
        hash = await md5(c.key);
      } catch (err) {
        this.fileFailure(c.key, (err as Error).message, 'info', 'file not readable now');
        continue;
      }
      if (item.hash !== hash) {
        item.hash = hash;
        item.status = 'CHANGING';
        changed = true;
        continue;
      }
      const before = item.status;
      const sentWithId = item.used && !this.config.ignoreAlreadyUsed && item.specialId !== null;
      if (item.status === 'START') item.status = 'CHANGING';
      else if (item.status === 'CHANGING') item.status = 'VALID';
      else if (item.status === 'VALID' && sentWithId) item.status = 'RESTART';
      if (item.status !== before) changed = true;
      const toIgnore = item.used && item.specialId !== null && item.status !== 'RESTART';
      if ((item.status === 'VALID' || item.status === 'RESTART') && !toIgnore) {
        item.timeUsed = now;
        actionable.push({ item, dirRank: c.dirRank });
      }
    }
    if (actionable.length > 0) {
      // In the order of the directories, then of the names.
      actionable.sort((x, y) => x.dirRank - y.dirRank || (x.item.file < y.item.file ? -1 : x.item.file > y.item.file ? 1 : 0));
      await this.act(actionable.map((a) => a.item));
      changed = true;
    }
    let idle = 0;
    for (const [key, item] of this.items) {
      if (item.seen !== gen && !this.underProblem(key)) {
        this.forget(key);
        changed = true;
        this.logEvent({ file: key }, 'file removed');
      } else if (item.used && item.status === 'DONE') {
        idle++;
      }
    }
    this.doneStride = Math.max(1, Math.ceil(idle / DONE_CHECKS_PER_SCAN));
    if (changed || this.stateBroken) await this.save();
    await this.lock.beat().catch(() => undefined);
  }

  /** Items known before the first scan (the state file's). */
  load(items: Iterable<[string, FileItem]>): void {
    for (const [key, i] of items) this.put(key, i);
  }

  private put(key: string, fileItem: FileItem, seen = 0): void {
    // The marks are set once here, so every item has one shape.
    const item = Object.assign(fileItem, { seen, slot: this.nextSlot++ });
    this.items.set(key, item);
    const cut = key.lastIndexOf('/');
    const dir = key.slice(0, Math.max(cut, 1));
    let names = this.byDir.get(dir);
    if (names === undefined) this.byDir.set(dir, (names = new Map()));
    names.set(key.slice(cut + 1), item);
  }

  private forget(key: string): void {
    this.items.delete(key);
    this.failuresLogged.delete(key);
    const cut = key.lastIndexOf('/');
    const dir = key.slice(0, Math.max(cut, 1));
    const names = this.byDir.get(dir);
    names?.delete(key.slice(cut + 1));
    if (names?.size === 0) this.byDir.delete(dir);
  }

  /** Logs a directory that cannot be listed once, and when it can be again. */
  private noteProblems(problems: ScanProblems): void {
    for (const [dir, why] of problems) if (this.knownProblems.get(dir) !== why) this.log.error({ directory: dir, reason: why }, 'directory cannot be scanned; its files are kept as they were');
    for (const dir of this.knownProblems.keys()) if (!problems.has(dir)) this.log.warn({ directory: dir }, 'directory can be scanned again');
    this.knownProblems = problems;
  }

  /** Files under a directory that could not be listed are kept (not taken as removed). */
  private underProblem(key: string): boolean {
    for (const dir of this.knownProblems.keys()) if (key.startsWith(`${dir.replace(/\\/g, '/')}/`)) return true;
    return false;
  }

  private async save(): Promise<boolean> {
    try {
      await saveState(this.config.statusFile, this.items.values());
      if (this.stateBroken) this.log.warn({ statusFile: this.config.statusFile }, 'state file written again');
      this.stateBroken = false;
      return true;
    } catch (err) {
      if (!this.stateBroken) this.log.error({ statusFile: this.config.statusFile, err: (err as Error).message }, 'cannot write the state file (full disk?): no new transfer is ordered until it can be written');
      this.stateBroken = true;
      return false;
    }
  }

  private get parallelism(): number {
    if (this.config.submit || !this.config.parallel) return 1;
    return this.config.limitParallel <= 0 ? UNBOUNDED_PARALLEL : this.config.limitParallel;
  }

  /** Orders the transfers of stable files: intents written first, then given, chunk by chunk. */
  private async act(files: FileItem[]): Promise<void> {
    for (let i = 0; i < files.length && !this.shouldStop(); i += ORDER_CHUNK) {
      const chunk = files.slice(i, i + ORDER_CHUNK);
      const resumed = new Set<FileItem>();
      const fresh = chunk.filter((f) => {
        if (f.status === 'RESTART') {
          // A modified file sent before: a new transfer (the previous one is finished).
          f.used = false;
          f.orders = null;
        }
        if (f.orders !== null) resumed.add(f);
        return f.orders === null;
      });
      if (fresh.length > 0) {
        let ids: bigint[];
        try {
          ids = await this.deps.orders.newIds(fresh.length * this.config.to.length);
        } catch (err) {
          this.log.error({ err: (err as Error).message }, 'cannot get transfer ids from the database: files held until the next scan');
          for (const f of chunk) f.hash = null;
          return;
        }
        let n = 0;
        for (const f of fresh) f.orders = this.config.to.map((to) => ({ to, id: ids[n++] as bigint, done: false }));
      }
      // The intents reach the disk before any order is given.
      if (!(await this.save())) {
        for (const f of chunk) f.hash = null;
        return;
      }
      const forget: Array<{ to: string; id: bigint }> = [];
      await pool(chunk, this.parallelism, async (f) => {
        if (this.shouldStop()) return;
        await this.transferOne(f, resumed.has(f), forget);
      });
      if (forget.length > 0 && (await this.save())) await this.deps.orders.forget(forget).catch(() => undefined);
    }
  }

  /** The orders of one file, host after host (§3.3). */
  private async transferOne(f: FileItem, resumed: boolean, forget: Array<{ to: string; id: bigint }>): Promise<void> {
    const c = this.config;
    const orders = f.orders ?? [];
    let failure: OrderResult | null = null;
    for (const o of orders) {
      if (o.done) continue;
      const req: OrderRequest = {
        to: o.to, rule: c.rule, file: f.file, id: o.id, info: infoText(c.info), noFollow: c.info.includes('-nofollow'), md5: c.md5, blockSize: c.block, noLog: c.noLog,
      };
      let result: OrderResult;
      let state: OrderState = 'none';
      try {
        // An order written before: what became of it decides (never given twice).
        if (resumed) state = await this.deps.orders.state(o.to, o.id, c.submit);
      } catch (err) {
        failure = { ok: false, message: `cannot read the local record of transfer ${o.id}: ${(err as Error).message}`, connection: false };
        break;
      }
      if (state === 'done') result = { ok: true, message: '', connection: false };
      else if (c.submit) result = await this.deps.orders.submit(req);
      else result = await this.deps.orders.run(req);
      if (!result.ok) {
        failure = result;
        break;
      }
      o.done = true;
    }
    this.count(failure === null);
    if (failure === null) {
      this.failuresLogged.delete(f.file);
      f.used = true;
      f.status = 'DONE';
      f.specialId = orders.length === 1 ? (orders[0] as { id: bigint }).id : null;
      if (c.noLog && !c.submit) forget.push(...orders);
      f.orders = null;
      this.logEvent({ file: f.file, to: c.to, ids: orders.map((o) => String(o.id)) }, c.submit ? 'file submitted' : 'file sent');
      return;
    }
    // Retried once the hash is computed again (two scans later), with the same transfer ids.
    f.used = false;
    f.status = 'VALID';
    f.hash = null;
    this.fileFailure(f.file, failure.message, failure.connection && !c.logWarn ? 'info' : 'error', 'transfer failed, retried later');
  }

  /**
   * A file's failure, logged once per reason: the same reason at the next retries goes to DEBUG
   * (a refused file was logged at every scan, hundreds of lines a second). A new reason, a success
   * or the file's removal ends the silence.
   */
  private fileFailure(file: string, reason: string, level: 'info' | 'error', msg: string): void {
    const line = { file, err: reason };
    if (this.failuresLogged.get(file) === reason) {
      this.log.debug(line, `${msg} (again)`);
      return;
    }
    this.log[level](line, msg);
    if (this.failuresLogged.size < MAX_FAILURES_LOGGED) this.failuresLogged.set(file, reason);
  }

  private count(ok: boolean): void {
    const today = new Date().toDateString();
    if (today !== this.counters.day) this.counters = { ...this.counters, todayOk: 0, todayError: 0, day: today };
    if (ok) {
      this.counters.globalOk++;
      this.counters.todayOk++;
    } else {
      this.counters.globalError++;
      this.counters.todayError++;
    }
  }

  private logEvent(fields: Record<string, unknown>, msg: string): void {
    if (this.config.logWarn) this.log.warn(fields, msg);
    else this.log.info(fields, msg);
  }

  private get reportsOn(): boolean {
    return this.config.waarpHosts.length > 0 && this.deps.inform !== undefined;
  }

  summary(): MonitorSummary {
    const c = this.config;
    return {
      name: c.name, directories: c.directories, stopFile: c.stopFile, statusFile: c.statusFile, elapse: c.elapse, recursive: c.recursive,
      globalOk: this.counters.globalOk, globalError: this.counters.globalError, todayOk: this.counters.todayOk, todayError: this.counters.todayError,
    };
  }

  /** Items as they are now (tests, reports). */
  get state(): ReadonlyMap<string, FileItem> {
    return this.items;
  }

  /** One report to every server (§5); failures are logged at INFO and the next report is full. */
  async report(): Promise<void> {
    const inform = this.deps.inform;
    if (inform === undefined || Date.now() - this.lastReport < 200) return;
    this.lastReport = Date.now();
    for (const host of this.config.waarpHosts) {
      let builder = this.reports.get(host);
      if (builder === undefined) this.reports.set(host, (builder = new ReportBuilder()));
      const { json, snapshot } = builder.build(this.summary(), this.items);
      try {
        const answer = await inform(host, `${SPOOLED_INFORM_CLASS} ${json}`);
        if (answer === 'needfull') builder.fail();
        else builder.commit(snapshot);
      } catch (err) {
        builder.fail();
        this.log.info({ server: host, err: (err as Error).message }, 'state report not delivered');
      }
    }
  }
}

/** The transfer information without the `-nofollow` marker. */
function infoText(info: string): string {
  return info.replace(/(^|\s)-nofollow(?=\s|$)/g, ' ').trim() || 'noinfo';
}

export function md5(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('md5');
    createReadStream(file).on('data', (d) => h.update(d)).on('end', () => resolve(h.digest('base64'))).on('error', reject);
  });
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
