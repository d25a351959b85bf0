/**
 * Prometheus metrics of a running host (prom-client). Everything is counted from the host's own
 * events (TransferEngine start/progress/end) and from in-memory gauges (pool, shaper, engine), so
 * a scrape costs the same whatever the size of RUNNER. The one database figure, the scheduler's
 * queue (TOSUBMIT rows of this host), is a count refreshed at most every `minimalDelay` ms
 * (server.xml `minimaldelay`, as the original's monitoring counts) in the background.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import type { TransferEngine } from '../transfer/engine.js';
import type { TransferOutcome, TransferProgress } from '../transfer/types.js';

/** What the metrics read at scrape time; each a function because the pieces start after us. */
export interface MetricSources {
  engine: () => TransferEngine | undefined;
  /** Open outgoing connections (the network's pool). */
  outgoingConnections: () => number;
  /** Open incoming connections, when the network tells it. */
  incomingConnections?: () => number;
  /** Incoming connections refused by the listeners' limits since start, when the network tells it. */
  refusedConnections?: () => number;
  /** Count of this host's TOSUBMIT rows (the scheduler's queue). */
  queued: () => Promise<number>;
  /** Minimum time between two `queued` counts (ms). */
  queueRefreshMs: number;
  /**
   * A scrape within this many ms of the previous one gets the same text (several scrapers, or a
   * scrape storm, cost one collection); default 0: every scrape collects.
   */
  scrapeCacheMs?: number;
}

/** Sampling period of the event-loop delay metrics (nodejs_eventloop_lag_*), in ms. */
const EVENT_LOOP_PRECISION_MS = 100;

/** ORIGINALSIZE of a TRANSFERINFO text, read without parsing its JSON (once per transfer). */
const ORIGINAL_SIZE = /"ORIGINALSIZE"\s*:\s*"?(-?\d+)/;

function originalSize(transferInfo: string): number {
  const m = ORIGINAL_SIZE.exec(transferInfo);
  return m === null ? -1 : Number(m[1]);
}

/** Adds `n` to the count of `key`. */
function add(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

const keyOf = (r: { specialId: bigint; requester: string; requested: string }): string => `${r.specialId}|${r.requester}|${r.requested}`;

/** A transfer seen running on this host: for bytes deltas and the duration. */
interface Live {
  rule: string;
  started: number;
  bytes: number;
  isSender: boolean;
}

export class HostMetrics {
  readonly registry = new Registry();
  private readonly live = new Map<string, Live>();
  private readonly started: Counter<'rule' | 'role'>;
  private readonly ended: Counter<'rule' | 'status'>;
  private readonly running: Gauge<'rule'>;
  private readonly bytes: Counter<'direction'>;
  private readonly duration: Histogram<'rule' | 'status'>;
  private readonly errors: Counter<'code' | 'name'>;
  private engine: TransferEngine | undefined;
  /**
   * The per-transfer counts are plain numbers, handed to prom-client at scrape time (its labelled
   * inc() hashes the labels at every call: several per transfer, for a figure read every 15 s).
   */
  private readonly startedCounts = new Map<string, number>();
  private readonly endedCounts = new Map<string, number>();
  private readonly byteCounts = { in: 0, out: 0 };
  private scrape: { at: number; text: Promise<string> } | undefined;
  private queueValue = 0;
  private queueAt = 0;
  private queueRefresh: Promise<void> | undefined;
  private readonly listeners = {
    start: (r: TransferRecord) => this.onStart(r),
    progress: (p: TransferProgress) => this.onProgress(p),
    end: (o: TransferOutcome) => this.onEnd(o),
  };

  constructor(private readonly sources: MetricSources, hostId: string) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ hostid: hostId });
    // The event-loop delay histogram samples every `eventLoopMonitoringPrecision` ms on a timer of
    // its own; prom-client's 10 ms default cost the receiving host about a tenth more CPU per
    // small transfer in the bench (docs/performance-log.md, fifteenth session). At 100 ms a
    // stall is seen when it delays a sample: long stalls always, short ones only some of the time.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_PRECISION_MS });
    const fromCounts = (counts: Map<string, number>, names: readonly [string, string]) => function collect(this: Counter<string>): void {
      this.reset();
      for (const [key, n] of counts) {
        const cut = key.indexOf('\n');
        this.inc({ [names[0]]: key.slice(0, cut), [names[1]]: key.slice(cut + 1) }, n);
      }
    };
    const startedCounts = this.startedCounts;
    const endedCounts = this.endedCounts;
    const byteCounts = this.byteCounts;
    this.started = new Counter({ name: 'svc_r66_transfers_started_total', help: 'Transfers started on this host, by rule and role (sender/receiver)', labelNames: ['rule', 'role'], registers, collect: fromCounts(startedCounts, ['rule', 'role']) });
    this.ended = new Counter({ name: 'svc_r66_transfers_ended_total', help: 'Transfers ended on this host, by rule and final state (DONE, INERROR, INTERRUPTED...)', labelNames: ['rule', 'status'], registers, collect: fromCounts(endedCounts, ['rule', 'status']) });
    const live = this.live;
    this.running = new Gauge({
      name: 'svc_r66_transfers_running', help: 'Transfers running on this host, by rule', labelNames: ['rule'], registers,
      collect() {
        // Rules seen before stay at 0 rather than disappearing.
        const byRule = new Map<string, number>();
        for (const key of startedCounts.keys()) byRule.set(key.slice(0, key.indexOf('\n')), 0);
        for (const l of live.values()) add(byRule, l.rule);
        for (const [rule, n] of byRule) this.set({ rule }, n);
      },
    });
    this.bytes = new Counter({
      name: 'svc_r66_transfer_bytes_total', help: 'File bytes moved by transfers: in = received, out = sent', labelNames: ['direction'], registers,
      collect() {
        this.reset();
        if (byteCounts.in > 0) this.inc({ direction: 'in' }, byteCounts.in);
        if (byteCounts.out > 0) this.inc({ direction: 'out' }, byteCounts.out);
      },
    });
    this.duration = new Histogram({
      name: 'svc_r66_transfer_duration_seconds', help: 'Duration of transfers on this host (start to end of the conversation), by rule and final state',
      labelNames: ['rule', 'status'], buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800], registers,
    });
    this.errors = new Counter({ name: 'svc_r66_transfer_errors_total', help: 'Transfers ended in error, by error code (character) and its name', labelNames: ['code', 'name'], registers });
    const gauge = <L extends string>(name: string, help: string, labelNames: L[], fill: (g: Gauge<L>) => void | Promise<void>): void => {
      const g: Gauge<L> = new Gauge<L>({ name, help, labelNames, registers, collect: () => fill(g) });
    };
    gauge('svc_r66_connections_open', 'Open R66 connections (TCP/TLS), by direction', ['direction'], (g) => {
      g.set({ direction: 'outgoing' }, sources.outgoingConnections());
      if (sources.incomingConnections) g.set({ direction: 'incoming' }, sources.incomingConnections());
    });
    const refused = sources.refusedConnections;
    if (refused !== undefined) {
      // A counter read from the listeners at scrape time (they count; we only report).
      const c: Counter = new Counter({
        name: 'svc_r66_connections_refused_total', help: 'Incoming R66 connections refused by the server.xml security limits (maxconnections, maxconnectionsperaddress)',
        registers, collect: () => { c.reset(); c.inc(refused()); },
      });
    }
    gauge('svc_r66_channels_active', 'Local channels carrying a transfer on this host', [], (g) => g.set(this.engine?.runningCount ?? 0));
    gauge('svc_r66_bandwidth_bytes_per_second', 'Global throughput over the last check interval: in = read, out = written', ['direction'], (g) => {
      const t = this.engine?.bandwidth.throughput() ?? { read: 0, write: 0 };
      g.set({ direction: 'in' }, t.read);
      g.set({ direction: 'out' }, t.write);
    });
    gauge('svc_r66_bandwidth_limit_bytes_per_second', 'Global bandwidth limits in force (0 = unlimited)', ['direction'], (g) => {
      const l = this.engine?.bandwidth.current;
      g.set({ direction: 'in' }, l?.readGlobal ?? 0);
      g.set({ direction: 'out' }, l?.writeGlobal ?? 0);
    });
    gauge('svc_r66_scheduler_queue', `Submitted transfers waiting for the scheduler (TOSUBMIT rows of this host; counted at most every ${sources.queueRefreshMs} ms)`, [],
      async (g) => g.set(await this.queued()));
  }

  /** Subscribes to the (new) engine's events; called when the transfer service has started. */
  attach(): void {
    const engine = this.sources.engine();
    if (engine === undefined || engine === this.engine) return;
    this.detach();
    this.engine = engine;
    engine.on('start', this.listeners.start);
    engine.on('progress', this.listeners.progress);
    engine.on('end', this.listeners.end);
  }

  detach(): void {
    const engine = this.engine;
    this.engine = undefined;
    engine?.off('start', this.listeners.start);
    engine?.off('progress', this.listeners.progress);
    engine?.off('end', this.listeners.end);
    this.live.clear();
  }

  /** The text exposition (Content-Type `registry.contentType`). */
  text(): Promise<string> {
    const cacheMs = this.sources.scrapeCacheMs ?? 0;
    const now = performance.now();
    if (cacheMs > 0 && this.scrape !== undefined && now - this.scrape.at < cacheMs) return this.scrape.text;
    const text = this.registry.metrics();
    this.scrape = { at: now, text };
    return text;
  }

  private onStart(r: TransferRecord): void {
    const key = keyOf(r);
    if (this.live.has(key)) return;
    this.live.set(key, { rule: r.idRule, started: performance.now(), bytes: 0, isSender: r.retrieveMode });
    add(this.startedCounts, `${r.idRule}\n${r.retrieveMode ? 'sender' : 'receiver'}`);
  }

  private onProgress(p: TransferProgress): void {
    const live = this.live.get(keyOf(p.ref));
    if (live === undefined) return;
    const delta = p.bytes - live.bytes;
    if (delta > 0) this.byteCounts[p.isSender ? 'out' : 'in'] += delta;
    live.bytes = Math.max(live.bytes, p.bytes);
  }

  private onEnd(o: TransferOutcome): void {
    const r = o.record;
    const key = keyOf(r);
    const live = this.live.get(key);
    this.live.delete(key);
    const status = UpdatedInfo[r.updatedInfo] ?? 'UNKNOWN';
    const ok = o.code.char === 'O';
    if (live !== undefined) {
      // Small files end before their first progress event: the rest of the file counts at the end.
      const size = ok ? originalSize(r.transferInfo) : -1;
      if (size > live.bytes) this.byteCounts[live.isSender ? 'out' : 'in'] += size - live.bytes;
      this.duration.observe({ rule: r.idRule, status }, (performance.now() - live.started) / 1000);
    }
    add(this.endedCounts, `${r.idRule}\n${status}`);
    if (!ok) this.errors.inc({ code: o.code.char, name: o.code.name });
  }

  /** The cached queue count; a refresh runs in the background when the value is older than allowed. */
  private async queued(): Promise<number> {
    if (Date.now() - this.queueAt >= this.sources.queueRefreshMs) {
      this.queueRefresh ??= this.sources.queued().then(
        (n) => { this.queueValue = n; this.queueAt = Date.now(); },
        () => { this.queueAt = Date.now(); },
      ).finally(() => { this.queueRefresh = undefined; });
      // The first scrape waits for a value; later ones answer at once with the previous count.
      if (this.queueAt === 0) await this.queueRefresh;
    }
    return this.queueValue;
  }
}
