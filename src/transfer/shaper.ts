/**
 * Bandwidth shaping (bandwidth.md §6.1): token buckets per direction, one global pair shared by
 * every transfer of the host and one pair per transfer session (the negotiated limit, §5).
 * The data path asks how long to wait before sending (write) or before reading on (read) a block;
 * waits under 10 ms are ignored like the original does, bursts of one check interval are allowed.
 */
import type { BandwidthLimits } from './types.js';

/** Waits shorter than this are not worth a timer (the original ignores them too). */
const MIN_WAIT_MS = 10;

/** A token bucket: `rate` bytes/s refill, at most `rate x intervalMs` bytes of burst. 0 = unlimited. */
export class TokenBucket {
  private tokens = 0;
  private last = performance.now();

  /** Starts empty: a new transfer gets no free burst, so its average over the whole transfer is the limit. */
  constructor(
    private rate: number,
    private intervalMs: number,
  ) {}

  get limit(): number {
    return this.rate;
  }

  private get capacity(): number {
    // At least one second's worth keeps small intervals from starving large blocks.
    return this.rate * Math.max(this.intervalMs, 1000) / 1000;
  }

  /** Changes the rate at once (run-time change of a global limit). */
  setRate(rate: number, intervalMs = this.intervalMs): void {
    this.refill();
    this.rate = Math.max(0, rate);
    this.intervalMs = intervalMs;
    this.tokens = Math.min(this.tokens, this.capacity);
  }

  /** Takes `bytes` now; returns how long (ms) the caller should wait so the rate holds. */
  take(bytes: number): number {
    if (this.rate <= 0) return 0;
    this.refill();
    this.tokens -= bytes;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.rate) * 1000;
  }

  private refill(): void {
    const now = performance.now();
    const elapsed = now - this.last;
    this.last = now;
    if (this.rate > 0) this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.rate) / 1000);
  }
}

/**
 * A traffic counter (bandwidth.md §6.2): bytes moved per check interval, reporting the throughput
 * of the last interval that ended, in bytes/s, as the original's global counters do for the
 * status documents. Intervals are aligned on the counter's start; an interval without traffic
 * reports 0. No timer: the intervals roll when bytes are added or the throughput is read.
 */
export class TrafficCounter {
  private bytes = 0;
  private start = performance.now();
  private last = 0;

  constructor(private intervalMs: number) {}

  /** Counts `bytes` moved now. */
  add(bytes: number): void {
    this.roll();
    this.bytes += bytes;
  }

  /** Bytes/s of the last check interval that ended. */
  throughput(): number {
    this.roll();
    return this.last;
  }

  /** A new check interval, from the next interval on. */
  setInterval(intervalMs: number): void {
    this.roll();
    this.intervalMs = intervalMs;
  }

  private roll(): void {
    const ended = Math.floor((performance.now() - this.start) / this.intervalMs);
    if (ended < 1) return;
    // Every byte counted so far was added in the first interval that ended (the add that would
    // have crossed its end rolled first); any later interval that ended had no traffic.
    this.last = ended === 1 ? Math.round((this.bytes * 1000) / this.intervalMs) : 0;
    this.bytes = 0;
    this.start += ended * this.intervalMs;
  }
}

/** The smallest positive of two limits (0 = unlimited on that side): bandwidth.md §5. */
export function combineLimits(own: number, remote: number): number {
  if (own > 0 && (remote <= 0 || own < remote)) return own;
  return remote > 0 ? remote : 0;
}

/** Normalises limits as the original does on every change (bandwidth.md §1 consistency rule). */
export function normaliseLimits(l: BandwidthLimits): BandwidthLimits {
  const pos = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
  const out = { writeGlobal: pos(l.writeGlobal), readGlobal: pos(l.readGlobal), writeSession: pos(l.writeSession), readSession: pos(l.readSession) };
  if (out.writeGlobal < out.writeSession) out.writeSession = out.writeGlobal;
  if (out.readGlobal < out.readSession) out.readSession = out.readGlobal;
  return out;
}

/**
 * The shaper of one transfer's data path: the global bucket of its direction plus its own, and the
 * host's traffic counter of that direction (every block of every transfer passes here).
 */
export class SessionShaper {
  private readonly own: TokenBucket;
  constructor(
    private readonly global: TokenBucket,
    limit: number,
    intervalMs: number,
    private readonly counter: TrafficCounter | null = null,
  ) {
    this.own = new TokenBucket(limit, intervalMs);
  }

  /** The wait (ms) before the next `bytes` may move; 0 when under the limits. */
  waitFor(bytes: number): number {
    this.counter?.add(bytes);
    const wait = Math.max(this.global.take(bytes), this.own.take(bytes));
    return wait >= MIN_WAIT_MS ? wait : 0;
  }
}

/** The host-wide shaper: global buckets and the session limits new transfers start with. */
export class BandwidthShaper {
  private limits: BandwidthLimits;
  private readonly writeGlobal: TokenBucket;
  private readonly readGlobal: TokenBucket;
  private readonly written: TrafficCounter;
  private readonly read: TrafficCounter;

  constructor(
    limits: BandwidthLimits,
    private intervalMs = 1000,
  ) {
    this.limits = normaliseLimits(limits);
    this.writeGlobal = new TokenBucket(this.limits.writeGlobal, intervalMs);
    this.readGlobal = new TokenBucket(this.limits.readGlobal, intervalMs);
    this.written = new TrafficCounter(intervalMs);
    this.read = new TrafficCounter(intervalMs);
  }

  get current(): BandwidthLimits {
    return { ...this.limits };
  }

  /**
   * The measured throughput of all transfers of this host over the last check interval, in
   * bytes/s: `read` = data received, `write` = data sent (bandwidth.md §6.2).
   */
  throughput(): { read: number; write: number } {
    return { read: this.read.throughput(), write: this.written.throughput() };
  }

  /**
   * Changes limits at run time; negative values keep the current one. Global limits apply at once
   * to running transfers, session limits to transfers that start afterwards (bandwidth.md §4).
   */
  set(change: Partial<BandwidthLimits>, intervalMs = this.intervalMs): BandwidthLimits {
    const keep = (v: number | undefined, cur: number): number => (v === undefined || v < 0 ? cur : v);
    this.limits = normaliseLimits({
      writeGlobal: keep(change.writeGlobal, this.limits.writeGlobal),
      readGlobal: keep(change.readGlobal, this.limits.readGlobal),
      writeSession: keep(change.writeSession, this.limits.writeSession),
      readSession: keep(change.readSession, this.limits.readSession),
    });
    this.intervalMs = intervalMs;
    this.writeGlobal.setRate(this.limits.writeGlobal, intervalMs);
    this.readGlobal.setRate(this.limits.readGlobal, intervalMs);
    this.written.setInterval(intervalMs);
    this.read.setInterval(intervalMs);
    return this.current;
  }

  /** This host's effective limit for a direction: min of global and session, ignoring zeros (§5). */
  ownLimit(isSender: boolean): number {
    return isSender ? combineLimits(this.limits.writeGlobal, this.limits.writeSession) : combineLimits(this.limits.readGlobal, this.limits.readSession);
  }

  /** A shaper for one transfer at its negotiated limit. */
  session(isSender: boolean, negotiated: number): SessionShaper {
    return new SessionShaper(isSender ? this.writeGlobal : this.readGlobal, negotiated, this.intervalMs, isSender ? this.written : this.read);
  }
}
