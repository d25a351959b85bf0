/**
 * Live transfer updates for every open page, from the host's own engine events (start, progress,
 * end): one shared broadcaster, no database query per viewer. Events are folded into one latest
 * state per transfer and flushed to every viewer once per interval as a single server-sent event,
 * so a busy host costs each viewer at most one message per interval. A viewer whose socket does
 * not drain (more than `maxBuffered` bytes queued) skips flushes until it catches up: the next
 * snapshot supersedes what it missed, so nothing grows per connection.
 */
import type { ServerResponse } from 'node:http';
import { TaskStep, type TransferRecord } from '../model/transfer.js';
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
}

/** The row key the pages put in `data-key`. */
export function transferKey(r: { specialId: bigint; requester: string; requested: string }): string {
  return `${r.specialId}.${r.requester}.${r.requested}`;
}

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
}

/** Who asks for a stream: its address, and its session on the administration area. */
export interface Viewer {
  address: string;
  session?: string;
}

interface Tracked extends LiveTransfer {
  lastBytes: number;
  lastAt: number;
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

  private readonly onStart = (r: TransferRecord): void => {
    this.update(transferKey(r), { rank: r.rank, step: STEP_NAMES[r.globalStep] ?? '', status: r.stepStatus.char, end: false });
  };
  private readonly onProgress = (p: ProgressEvent): void => {
    this.update(transferKey(p.ref), { rank: p.rank, bytes: p.bytes, size: p.size, step: STEP_NAMES[TaskStep.TRANSFERTASK]!, end: false });
  };
  private readonly onEnd = (o: EndEvent): void => {
    const r = o.record;
    this.update(transferKey(r), { rank: r.rank, step: STEP_NAMES[r.globalStep] ?? '', status: o.code.char, end: true });
  };

  constructor(opts: BroadcasterOptions = {}) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.maxBuffered = opts.maxBuffered ?? 64 * 1024;
    this.maxViewers = opts.maxViewers ?? 200;
    this.maxPerClient = opts.maxPerClient ?? 4;
    this.warnings = opts.warnings;
  }

  /** Starts listening to an engine (once for all viewers). */
  attach(source: TransferEvents): void {
    this.source = source;
    source.on('start', this.onStart);
    source.on('progress', this.onProgress);
    source.on('end', this.onEnd);
    this.timer = setInterval(() => this.flush(), this.intervalMs);
    this.timer.unref();
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

  private update(key: string, change: Partial<LiveTransfer>): void {
    let t = this.tracked.get(key);
    if (t === undefined) {
      t = { key, rank: 0, bytes: 0, size: -1, rate: 0, step: '', status: '', end: false, lastBytes: 0, lastAt: Date.now() };
      this.tracked.set(key, t);
    }
    Object.assign(t, change);
    this.changed.add(key);
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
    let message: string | undefined;
    if (batch.length > 0) message = `event: transfers\ndata: ${JSON.stringify(batch)}\n\n`;
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
  return { key: t.key, rank: t.rank, bytes: t.bytes, size: t.size, rate: t.rate, step: t.step, status: t.status, end: t.end };
}
