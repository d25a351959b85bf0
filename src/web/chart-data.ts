/**
 * The figures behind the monitoring home's pictures, from the server's own numbers: throughput in and
 * out sampled from the bandwidth counters every 5 s for the last hour (kept in memory: it starts
 * empty when the server starts), transfers per minute by status over the last hour (one grouped count
 * per minute in the database on the STOPTRANS index, a closed minute is recomputed every 5 minutes
 * at most, the last two every 10 s), and the transfers in error over the last 24 h by partner and by
 * rule (at most 1000 rows read). Shared by every viewer: one computation per 10 s whatever the
 * number of open pages.
 */
import type { RuntimeCounters } from '../http/context.js';
import { UpdatedInfo } from '../model/transfer.js';
import type { RunnerRepository } from '../store/index.js';

export interface ThroughputPoint {
  at: number;
  /** Bytes per second. */
  in: number;
  out: number;
}

export interface MinuteCounts {
  /** Start of the minute (ms). */
  at: number;
  done: number;
  error: number;
  running: number;
  other: number;
}

export interface Bar {
  label: string;
  count: number;
}

export interface ChartFigures {
  now: number;
  throughput: ThroughputPoint[];
  perMinute: MinuteCounts[];
  errorsByPartner: Bar[];
  errorsByRule: Bar[];
  /** Error rows read (at most ERROR_ROWS). */
  errorRows: number;
}

const HOUR = 3_600_000;
const MINUTE = 60_000;
const ERROR_ROWS = 1000;
const ERROR_WINDOW = 24 * HOUR;

export interface ChartDataDeps {
  runner: Pick<RunnerRepository, 'tally' | 'list'>;
  hostId: string;
  counters: RuntimeCounters;
  now?: () => number;
  sampleMs?: number;
}

function tallyByStatus(at: number, groups: Array<{ updatedInfo: UpdatedInfo; count: number }>): MinuteCounts {
  const m: MinuteCounts = { at, done: 0, error: 0, running: 0, other: 0 };
  for (const g of groups) {
    if (g.updatedInfo === UpdatedInfo.DONE) m.done += g.count;
    else if (g.updatedInfo === UpdatedInfo.INERROR || g.updatedInfo === UpdatedInfo.INTERRUPTED) m.error += g.count;
    else if (g.updatedInfo === UpdatedInfo.RUNNING) m.running += g.count;
    else m.other += g.count;
  }
  return m;
}

function topBars(counts: Map<string, number>, n: number): Bar[] {
  return [...counts].map(([label, count]) => ({ label, count })).sort((x, y) => y.count - x.count || x.label.localeCompare(y.label)).slice(0, n);
}

export class ChartData {
  private readonly samples: ThroughputPoint[] = [];
  private readonly minutes = new Map<number, { counts: MinuteCounts; computedAt: number }>();
  private cached: { at: number; value: Promise<ChartFigures> } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: ChartDataDeps) {
    this.now = deps.now ?? Date.now;
  }

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.deps.sampleMs ?? 5000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One throughput sample; samples older than an hour are dropped. */
  sample(): void {
    const at = this.now();
    this.samples.push({ at, in: this.deps.counters.inBandwidth(), out: this.deps.counters.outBandwidth() });
    while (this.samples.length > 0 && this.samples[0]!.at < at - HOUR) this.samples.shift();
  }

  /** The figures, computed at most once per 10 s for every viewer. */
  figures(): Promise<ChartFigures> {
    const now = this.now();
    if (this.cached === undefined || now - this.cached.at >= 10_000) {
      const value = this.compute(now);
      this.cached = { at: now, value };
      // A failed computation is not kept: the next viewer tries again.
      value.catch(() => { if (this.cached?.value === value) this.cached = undefined; });
    }
    return this.cached.value;
  }

  private async compute(now: number): Promise<ChartFigures> {
    const current = Math.floor(now / MINUTE) * MINUTE;
    const perMinute: MinuteCounts[] = [];
    for (let at = current - 59 * MINUTE; at <= current; at += MINUTE) {
      const known = this.minutes.get(at);
      const maxAge = at >= current - MINUTE ? 10_000 : 5 * MINUTE;
      if (known !== undefined && now - known.computedAt < maxAge) {
        perMinute.push(known.counts);
        continue;
      }
      const groups = await this.deps.runner.tally({ ownerReq: this.deps.hostId, stopFrom: new Date(at), stopTo: new Date(at + MINUTE - 1) }, this.deps.hostId);
      const counts = tallyByStatus(at, groups);
      this.minutes.set(at, { counts, computedAt: now });
      perMinute.push(counts);
    }
    for (const at of this.minutes.keys()) if (at < current - 59 * MINUTE) this.minutes.delete(at);
    const errors = await this.deps.runner.list(
      { ownerReq: this.deps.hostId, updatedInfo: [UpdatedInfo.INERROR, UpdatedInfo.INTERRUPTED], stopFrom: new Date(now - ERROR_WINDOW) },
      { orderBy: 'stop', descending: true, limit: ERROR_ROWS },
    );
    const byPartner = new Map<string, number>();
    const byRule = new Map<string, number>();
    for (const r of errors) {
      const partner = r.requester === this.deps.hostId ? r.requested : r.requester;
      byPartner.set(partner, (byPartner.get(partner) ?? 0) + 1);
      byRule.set(r.idRule, (byRule.get(r.idRule) ?? 0) + 1);
    }
    return {
      now, throughput: [...this.samples], perMinute,
      errorsByPartner: topBars(byPartner, 8), errorsByRule: topBars(byRule, 8), errorRows: errors.length,
    };
  }
}
