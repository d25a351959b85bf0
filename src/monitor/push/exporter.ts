/**
 * The push monitoring job (monitoring.md §A.2): fixed-delay runs; each selects this host's
 * transfer records with `last <= STOPTRANS <= now` (all of them on the first run), pushes them in
 * one request and only then stores `now` as the new `last`. A failed push changes nothing: the
 * next run sends the same records plus the newer ones, so a receiver that was down loses nothing.
 *
 * `last` is read from the database at every run (not only at start): in a cluster another member
 * may have advanced it, and an operator may set it back to replay history.
 */
import type { Logger } from 'pino';
import type { TransferRecord } from '../../model/transfer.js';
import type { Store } from '../../store/index.js';
import type { DatabaseLease } from '../leader.js';
import { LastDateStore } from './last-date.js';
import { pushItem, type PushItem } from './payload.js';
import type { PushTarget } from './target.js';

export interface PushExporterOptions {
  hostId: string;
  store: () => Store;
  target: PushTarget;
  delayMs: number;
  intervalIncluded: boolean;
  transformLongAsString: boolean;
  intervalKey: string;
  logger: Logger;
  /** Most records in one push (default 10,000); more are pushed in slices, one right after the other. */
  maxBatch?: number;
  /** When given, a run does anything only while this member holds the lease (cluster, §A.7). */
  lease?: DatabaseLease;
}

const DEFAULT_MAX_BATCH = 10_000;

export type RunResult = 'pushed' | 'empty' | 'failed' | 'not-leader';

export class PushExporter {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<RunResult> | undefined;
  private readonly last: LastDateStore;
  private failingSince: Date | undefined;
  private stopped = false;
  /** The last run pushed a slice only: the next one starts at once. */
  private more = false;

  constructor(private readonly opts: PushExporterOptions) {
    this.last = new LastDateStore(() => opts.store().hostConfigs, opts.hostId);
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
    await this.opts.target.close();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.run().finally(() => this.schedule());
    }, this.more ? 0 : this.opts.delayMs);
    this.timer.unref();
  }

  /** One run (also called by tests); concurrent calls share it. */
  run(): Promise<RunResult> {
    this.current ??= this.runOnce().finally(() => { this.current = undefined; });
    return this.current;
  }

  /**
   * The records of `from <= STOPTRANS <= now`, by transfer id. After a long outage (or on the first
   * run over a big history) they are taken in slices of `maxBatch` by STOPTRANS: the slice ends
   * just before the STOPTRANS of its last row, which becomes `to` (and the next `from`, inclusive),
   * so nothing is skipped; the next slice follows at once.
   */
  private async select(from: Date | undefined, now: Date): Promise<{ rows: TransferRecord[]; to: Date }> {
    const { opts } = this;
    const max = opts.maxBatch ?? DEFAULT_MAX_BATCH;
    const filter = { ownerReq: opts.hostId, ...(from !== undefined ? { stopFrom: from } : {}), stopTo: now };
    const runner = opts.store().runner;
    const first = await runner.list(filter, { orderBy: 'stop', limit: max + 1 });
    const byId = (rows: TransferRecord[]): TransferRecord[] => rows.sort((a, b) => (a.specialId < b.specialId ? -1 : a.specialId > b.specialId ? 1 : 0));
    if (first.length <= max) return { rows: byId(first), to: now };
    const cut = first[max - 1]!.stop;
    // More than a slice share one STOPTRANS: no slice boundary inside it, push them all (the original's way).
    if (cut.getTime() <= first[0]!.stop.getTime()) return { rows: await runner.list(filter, { orderBy: 'specialId' }), to: now };
    return { rows: byId(first.filter((r) => r.stop.getTime() < cut.getTime())), to: cut };
  }

  /**
   * The items of one run. The records are dropped here, before the push waits for its receiver:
   * kept across that wait they would outlive the young generation and be promoted (1-2 MB a
   * second on a busy host), and only a full collection frees the old generation.
   */
  private async items(from: Date | undefined, now: Date): Promise<{ items: PushItem[]; to: Date }> {
    const { opts } = this;
    const { rows, to } = await this.select(from, now);
    const payload = { hostId: opts.hostId, transformLongAsString: opts.transformLongAsString, intervalIncluded: opts.intervalIncluded, from, to, intervalKey: opts.intervalKey };
    return { items: rows.map((r) => pushItem(r, payload)), to };
  }

  private async runOnce(): Promise<RunResult> {
    const { opts } = this;
    if (opts.lease !== undefined && !opts.lease.held) return 'not-leader';
    const now = new Date();
    try {
      const from = await this.last.read();
      const { items, to } = await this.items(from, now);
      if (items.length > 0) await opts.target.push({ items, from, to });
      // A member that lost the lease while pushing must not move the shared date.
      if (opts.lease !== undefined && !opts.lease.held) return 'not-leader';
      await this.last.write(to);
      this.more = to !== now;
      if (this.failingSince !== undefined) {
        opts.logger.warn({ since: this.failingSince.toISOString(), records: items.length }, 'push monitoring: the receiver accepts again; the records of the outage were pushed');
        this.failingSince = undefined;
      }
      return items.length > 0 ? 'pushed' : 'empty';
    } catch (err) {
      this.more = false;
      // Logged once per outage, not at every run.
      if (this.failingSince === undefined) {
        this.failingSince = now;
        opts.logger.warn({ target: opts.target.describe(), err: err instanceof Error ? err.message : String(err) }, 'push monitoring failed; the same records are pushed again at the next runs');
      }
      return 'failed';
    }
  }
}
