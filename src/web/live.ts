/**
 * Live transfer updates for every open page, from the host's own engine events (start, progress,
 * end) and from the database rows any other writer changed (src/web/db-feed.ts: a CLI client on the
 * same database, another cluster member), polled once per interval while someone watches: one
 * shared broadcaster, no database query per viewer. Events are folded into one latest
 * state per transfer and flushed to every viewer once per interval as a single server-sent event,
 * so a busy host costs each viewer at most one message per interval. A viewer whose socket does
 * not drain (more than `maxBuffered` bytes queued) skips flushes until it catches up: the next
 * snapshot supersedes what it missed, so nothing grows per connection.
 */
import type { ServerResponse } from 'node:http';
import { TaskStep, TRANSFER_STATUS, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import type { RateLimitedLog } from '../net/rate-log.js';

export interface ProgressEvent {
  ref: { specialId: bigint; requester: string; requested: string };
  rank: number;
  bytes: number;
  size: number;
}

export interface EndEvent {
  record: TransferRecord;
  code: { char: string; name: string };
}

/** What the broadcaster listens to: a TransferEngine satisfies it. */
export interface TransferEvents {
  on(event: 'start', listener: (record: TransferRecord) => void): unknown;
  on(event: 'progress', listener: (p: ProgressEvent) => void): unknown;
  on(event: 'end', listener: (o: EndEvent) => void): unknown;
  off(event: 'start' | 'progress' | 'end', listener: (...args: never[]) => void): unknown;
}

/** One transfer's state as the pages show it (JSON of the `transfers` event). */
export interface LiveTransfer {
  key: string;
  rank: number;
  bytes: number;
  size: number;
  /** Bytes per second over the last interval. */
  rate: number;
  step: string;
  status: string;
  end: boolean;
  /** From the database row (any writer): the owner, UPDATEDINFO name, step status name, STOPTRANS. */
  owner?: string;
  info?: string;
  statusName?: string;
  stop?: string;
}

/** The header figures, sent when they change. */
export interface LiveFacts {
  /** Monitoring's `IN:<n>Mbits OUT:<n>Mbits`. */
  bandwidth: string;
  /** Administration's `IN:<x>MB/s OUT:<y>MB/s`. */
  bandwidthMB: string;
  channels: string;
  /** Administration's `Local`: running transfers and the run limit. */
  local: string;
  connections: string;
}

/** Where the rows written by other processes come from (src/web/db-feed.ts). */
export interface RowFeed {
  poll(): Promise<TransferRecord[]>;
  /** Nobody watches: forget the position, the next viewer's page is fresh anyway. */
  reset(): void;
}

/** The row key the pages put in `data-key`. */
export function transferKey(r: { specialId: bigint; requester: string; requested: string }): string {
  return `${r.specialId}.${r.requester}.${r.requested}`;
}

/** A tracked transfer without news for this long is dropped. */
const STALE_MS = 10 * 60_000;

export const STEP_NAMES = ['NOTASK', 'PRETASK', 'TRANSFERTASK', 'POSTTASK', 'ALLDONETASK', 'ERRORTASK'];

export interface BroadcasterOptions {
  intervalMs?: number;
  /** Bytes queued on one viewer's socket beyond which flushes skip it. */
  maxBuffered?: number;
  /** Viewers beyond this are refused (503). */
  maxViewers?: number;
  /** Streams one address, and one admin session, may hold at once (beyond: 429), so no client takes every slot. */
  maxPerClient?: number;
  /** Where refusals are logged, once per address and interval. */
  warnings?: RateLimitedLog;
  /** This host's id: the owner of the rows the engine's events are about. */
  hostId?: string;
  /** Rows changed in the database, polled once per interval while someone watches. */
  feed?: RowFeed;
  /** The header figures (bandwidth, channels, connections). */
  facts?: () => LiveFacts;
  /** Formats STOPTRANS as the pages do. */
  formatTime?: (d: Date) => string;
  /** Where a failing database poll is reported (once per minute). */
  onFeedError?: (err: unknown) => void;
}

/** Who asks for a stream: its address, and its session on the administration area. */
export interface Viewer {
  address: string;
  session?: string;
}

interface Tracked extends LiveTransfer {
  lastBytes: number;
  lastAt: number;
  /** Last engine event (ms): the engine's rank and bytes are fresher than the stored row's. */
  engineAt: number;
}

export class LiveBroadcaster {
  private readonly viewers = new Set<ServerResponse>();
  private readonly tracked = new Map<string, Tracked>();
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private heartbeat = 0;
  private readonly intervalMs: number;
  private readonly maxBuffered: number;
  private readonly maxViewers: number;
  private readonly maxPerClient: number;
  private readonly warnings: RateLimitedLog | undefined;
  /** Open streams per address and per session (keys `a:` and `s:`). */
  private readonly perClient = new Map<string, number>();
  private source: TransferEvents | undefined;
  private readonly hostId: string | undefined;
  private readonly feed: RowFeed | undefined;
  private readonly facts: (() => LiveFacts) | undefined;
  private readonly formatTime: (d: Date) => string;
  private readonly onFeedError: ((err: unknown) => void) | undefined;
  private lastFacts = '';
  private polling = false;
  private feedErrorAt = 0;

  private readonly onStart = (r: TransferRecord): void => {
    this.update(transferKey(r), { rank: r.rank, step: STEP_NAMES[r.globalStep] ?? '', status: r.stepStatus.char, end: false }, true);
  };
  private readonly onProgress = (p: ProgressEvent): void => {
    this.update(transferKey(p.ref), { rank: p.rank, bytes: p.bytes, size: p.size, step: STEP_NAMES[TaskStep.TRANSFERTASK]!, end: false }, true);
  };
  private readonly onEnd = (o: EndEvent): void => {
    const r = o.record;
    this.update(transferKey(r), { rank: r.rank, step: STEP_NAMES[r.globalStep] ?? '', status: o.code.char, end: true }, true);
  };

  constructor(opts: BroadcasterOptions = {}) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.maxBuffered = opts.maxBuffered ?? 64 * 1024;
    this.maxViewers = opts.maxViewers ?? 200;
    this.maxPerClient = opts.maxPerClient ?? 4;
    this.warnings = opts.warnings;
    this.hostId = opts.hostId;
    this.feed = opts.feed;
    this.facts = opts.facts;
    this.formatTime = opts.formatTime ?? ((d) => d.toISOString());
    this.onFeedError = opts.onFeedError;
  }

  /** Starts the once-per-interval flush (database poll, then one message to every viewer). */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Starts listening to an engine (once for all viewers). */
  attach(source: TransferEvents): void {
    this.source = source;
    source.on('start', this.onStart);
    source.on('progress', this.onProgress);
    source.on('end', this.onEnd);
    this.start();
  }

  /** One interval: rows changed in the database (only while someone watches), then the flush. */
  async tick(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      if (this.feed !== undefined) {
        if (this.viewers.size === 0) this.feed.reset();
        else this.fold(await this.feed.poll());
      }
    } catch (err) {
      if (Date.now() - this.feedErrorAt > 60_000) {
        this.feedErrorAt = Date.now();
        this.onFeedError?.(err);
      }
    } finally {
      this.polling = false;
    }
    this.flush();
  }

  /** Folds stored rows into the tracked states: the database is the truth for every writer. */
  fold(rows: readonly TransferRecord[]): void {
    const now = Date.now();
    for (const r of rows) {
      const key = transferKey(r);
      const mine = this.hostId === undefined || r.ownerReq === this.hostId;
      const id = mine ? key : `${key}@${r.ownerReq}`;
      const running = r.updatedInfo === UpdatedInfo.RUNNING;
      const change: Partial<LiveTransfer> = {
        owner: r.ownerReq, info: TRANSFER_STATUS[r.updatedInfo] ?? 'UNKNOWN', statusName: r.stepStatus.name, stop: this.formatTime(r.stop),
        step: STEP_NAMES[r.globalStep] ?? '', status: r.stepStatus.char, end: !running,
      };
      const t = this.tracked.get(id);
      // The engine's own events carry fresher rank and bytes for this host's running transfers.
      if (t === undefined || now - t.engineAt > 3 * this.intervalMs || !running) {
        change.rank = r.rank;
        change.bytes = r.rank * r.blockSize;
      }
      this.update(id, { key, ...change });
    }
  }

  get viewerCount(): number {
    return this.viewers.size;
  }

  /**
   * Takes over a response as an event stream; when refused, nothing is written and the status to
   * answer is returned: 503 when every slot is taken, 429 when this address or session holds its
   * `maxeventstreamsperclient` already.
   */
  subscribe(res: ServerResponse, viewer: Viewer): undefined | 429 | 503 {
    const keys = [`a:${viewer.address}`, ...(viewer.session !== undefined ? [`s:${viewer.session}`] : [])];
    const refusal = this.viewers.size >= this.maxViewers ? 503 : keys.some((k) => (this.perClient.get(k) ?? 0) >= this.maxPerClient) ? 429 : undefined;
    if (refusal !== undefined) {
      const why = refusal === 503 ? `all ${this.maxViewers} slots taken` : `maxeventstreamsperclient ${this.maxPerClient} reached`;
      this.warnings?.warn(`events:${viewer.address}`, { ip: viewer.address, viewers: this.viewers.size }, `live events stream refused (${why})`);
      return refusal;
    }
    for (const k of keys) this.perClient.set(k, (this.perClient.get(k) ?? 0) + 1);
    res.once('close', () => {
      for (const k of keys) {
        const left = (this.perClient.get(k) ?? 1) - 1;
        if (left > 0) this.perClient.set(k, left);
        else this.perClient.delete(k);
      }
    });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write('retry: 3000\n\n');
    // The current state of the running transfers, so a new page is right at once.
    const current = [...this.tracked.values()].filter((t) => !t.end).map(publicView);
    if (current.length > 0) res.write(`event: transfers\ndata: ${JSON.stringify(current)}\n\n`);
    this.viewers.add(res);
    res.on('close', () => this.viewers.delete(res));
    return undefined;
  }

  /** Serves `/events` on a hijacked fastify reply: the stream, or the refusal's status. */
  serve(res: ServerResponse, viewer: Viewer): void {
    const refusal = this.subscribe(res, viewer);
    if (refusal !== undefined) res.writeHead(refusal, { 'retry-after': '30' }).end();
  }

  private update(id: string, change: Partial<LiveTransfer>, fromEngine = false): void {
    let t = this.tracked.get(id);
    if (t === undefined) {
      t = { key: id, rank: 0, bytes: change.bytes ?? 0, size: -1, rate: 0, step: '', status: '', end: false, lastBytes: change.bytes ?? 0, lastAt: Date.now(), engineAt: 0 };
      if (fromEngine && this.hostId !== undefined) t.owner = this.hostId;
      this.tracked.set(id, t);
    }
    Object.assign(t, change);
    if (fromEngine) t.engineAt = Date.now();
    this.changed.add(id);
  }

  /** Sends what changed since the last flush; forgets ended transfers once sent. */
  flush(): void {
    const now = Date.now();
    const batch: LiveTransfer[] = [];
    for (const key of this.changed) {
      const t = this.tracked.get(key);
      if (t === undefined) continue;
      const seconds = (now - t.lastAt) / 1000;
      if (seconds > 0) t.rate = Math.max(0, Math.round((t.bytes - t.lastBytes) / seconds));
      t.lastBytes = t.bytes;
      t.lastAt = now;
      batch.push(publicView(t));
      if (t.end) this.tracked.delete(key);
    }
    this.changed.clear();
    // A running row whose end was never seen (deleted, or its writer died) is not kept for ever.
    for (const [id, t] of this.tracked) if (now - t.lastAt > STALE_MS) this.tracked.delete(id);
    let message: string | undefined;
    if (batch.length > 0) message = `event: transfers\ndata: ${JSON.stringify(batch)}\n\n`;
    const facts = this.viewers.size > 0 && this.facts !== undefined ? JSON.stringify(this.facts()) : this.lastFacts;
    if (facts !== this.lastFacts) {
      this.lastFacts = facts;
      message = `${message ?? ''}event: facts\ndata: ${facts}\n\n`;
    }
    else if (++this.heartbeat * this.intervalMs >= 15_000) message = ': keep-alive\n\n';
    if (message === undefined) return;
    this.heartbeat = 0;
    for (const res of this.viewers) {
      // A viewer that does not read is skipped, not buffered for: the next snapshot supersedes.
      if (res.writableLength > this.maxBuffered) continue;
      res.write(message);
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.source) {
      this.source.off('start', this.onStart);
      this.source.off('progress', this.onProgress);
      this.source.off('end', this.onEnd);
    }
    for (const res of this.viewers) res.end();
    this.viewers.clear();
    this.tracked.clear();
  }
}

function publicView(t: Tracked): LiveTransfer {
  const stored = t.info !== undefined ? { info: t.info, statusName: t.statusName, stop: t.stop } : {};
  return { key: t.key, rank: t.rank, bytes: t.bytes, size: t.size, rate: t.rate, step: t.step, status: t.status, end: t.end, ...(t.owner !== undefined ? { owner: t.owner } : {}), ...stored };
}
