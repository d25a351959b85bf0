/**
 * One member of a cluster (several processes sharing one database and host id) does a singleton
 * job: a lease row in the shared database, taken when free or expired, renewed while held. When
 * the holder dies its lease expires and another member takes it at its next try (at most
 * `ttlMs + renewMs` later). Generic: name the job (`pushmonitor`, `purge`...) and ask `held`.
 *
 * The row lives in MULTIPLEMONITOR (the original's table of cluster counters, read by host id
 * only), under the key `lease:<job>:<host id>`: COUNTCONFIG = the holder's member number (random
 * per process), COUNTHOST = expiry in Unix seconds, COUNTRULE = how many times it changed hands.
 * No new table, the same statements on SQLite, PostgreSQL and MariaDB (row lock while it is read
 * and written). Members' clocks are assumed within a few seconds of each other (NTP).
 */
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../store/index.js';

export interface LeaseOptions {
  /** Job name (letters, digits, `-`). */
  job: string;
  hostId: string;
  store: () => Store;
  logger: Logger;
  /** How long a lease lasts without renewal (default 30 s). */
  ttlMs?: number;
  /** How often the holder renews and the others try (default 10 s). */
  renewMs?: number;
  /** Called when this member gains or loses the lease. */
  onChange?: (held: boolean) => void;
}

export class DatabaseLease {
  /** This process's member number (never 0, which marks a released lease). */
  readonly member = randomInt(1, 2 ** 31 - 1);
  private heldValue = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private rowExists = false;
  private readonly ttlMs: number;
  private readonly renewMs: number;

  constructor(private readonly opts: LeaseOptions) {
    if (!/^[\w-]+$/.test(opts.job)) throw new Error(`lease job name "${opts.job}": expected letters, digits, - or _`);
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.renewMs = opts.renewMs ?? 10_000;
  }

  get key(): string {
    return `lease:${this.opts.job}:${this.opts.hostId}`;
  }

  /** True while this member holds the lease. */
  get held(): boolean {
    return this.heldValue;
  }

  /** First try at once, then every `renewMs`. */
  async start(): Promise<void> {
    await this.tick();
    this.schedule();
  }

  /** Stops trying and gives the lease back (another member takes it at its next try). */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    if (!this.heldValue) return;
    this.set(false);
    await this.opts.store().transaction(async (tx) => {
      const row = await tx.multipleMonitors.getForUpdate(this.key);
      if (row?.countConfig === this.member) await tx.multipleMonitors.upsert({ ...row, countConfig: 0, countHost: 0 });
    }).catch(() => undefined);
  }

  /**
   * A one-off singleton: runs `job` if this member gets the lease now (free, expired or its own),
   * then gives the lease back; resolves undefined without running it when another member holds it
   * (that member does the job). The lease's `ttlMs` must exceed the job's duration.
   */
  async runExclusive<T>(job: () => Promise<T>): Promise<T | undefined> {
    await this.tick();
    if (!this.heldValue) return undefined;
    try {
      return await job();
    } finally {
      await this.stop();
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.tick().finally(() => { if (this.timer !== undefined) this.schedule(); });
    }, this.renewMs);
    this.timer.unref();
  }

  /** One try: take the lease when free, expired or ours (renewal). */
  tick(): Promise<void> {
    this.running = this.tryAcquire().then(
      (held) => this.set(held),
      (err: unknown) => {
        // A busy database (SQLite lock) or a lost connection: not ours until a try succeeds.
        this.opts.logger.warn({ job: this.opts.job, err: err instanceof Error ? err.message : String(err) }, 'lease: try failed');
        this.set(false);
      },
    );
    return this.running;
  }

  private async tryAcquire(): Promise<boolean> {
    const store = this.opts.store();
    // Rows in this process only (no-database mode): nobody else can hold the lease.
    if (store.inProcess) return true;
    const now = Math.floor(Date.now() / 1000);
    const expiry = now + Math.ceil(this.ttlMs / 1000);
    // The row must exist before it is read FOR UPDATE: a lock on no row locks nothing, and two
    // members taking a missing lease at once would both write it and both hold it for a while.
    if (!this.rowExists) {
      await store.multipleMonitors.insertIfAbsent({ hostId: this.key, countConfig: 0, countHost: 0, countRule: 0 });
      this.rowExists = true;
    }
    const taken = await store.transaction(async (tx) => {
      const row = await tx.multipleMonitors.getForUpdate(this.key);
      if (row !== undefined && row.countConfig !== this.member && row.countConfig !== 0 && row.countHost >= now) return false;
      const handovers = (row?.countRule ?? 0) + (row?.countConfig === this.member ? 0 : 1);
      await tx.multipleMonitors.upsert({ hostId: this.key, countConfig: this.member, countHost: expiry, countRule: handovers });
      return true;
    });
    if (!taken) return false;
    // Read back outside the transaction: a second writer that slipped in (SQLite) wins the row.
    return (await store.multipleMonitors.get(this.key))?.countConfig === this.member;
  }

  private set(held: boolean): void {
    if (held === this.heldValue) return;
    this.heldValue = held;
    this.opts.logger.info({ job: this.opts.job, member: this.member }, held ? 'lease: this member now runs the job' : 'lease: this member no longer runs the job');
    this.opts.onChange?.(held);
  }
}
