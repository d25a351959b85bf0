/**
 * One member of a cluster: several svc servers with the same host id on one database, behind a TCP
 * balancer (`multiplemonitors` > 1, database.md §3.6, docs/cluster.md). This module gives the
 * transfer scheduler an atomic claim of due rows, keeps a heartbeat of the member, and runs the
 * take-over of rows left RUNNING by a member that died (one member at a time, DatabaseLease).
 *
 * Everything lives in tables the original already has:
 * - the claim is serialised by a row lock on the MULTIPLEMONITOR row `claim:<host id>`, as the
 *   original's scanner locks its MULTIPLEMONITOR row (select for update in one transaction): inside
 *   it a member lists the due TOSUBMIT rows and marks them RUNNING, so the next member to get the
 *   lock no longer sees them;
 * - a claimed row names its member in its TRANSFERINFO map (key CLUSTERMEMBER, ignored by the
 *   original's tools like our SCHEDULERETRY);
 * - each member's heartbeat is the MULTIPLEMONITOR row `member:<host id>:<n>` (COUNTHOST = expiry in
 *   Unix seconds), written every `heartbeatMs`.
 *
 * Fencing: a member owns its claimed rows only while its last written heartbeat is far enough from
 * expiring (`owning()`): a quarter of `takeoverAfterMs` before the expiry it wrote, it stops claiming
 * and tells its fence listeners (the scheduler interrupts the transfers it started, leaving them
 * resumable, and writes nothing more for them), so when another member takes the rows over nothing
 * runs them here any more. When a heartbeat gets through again, the member hands back its own rows
 * left RUNNING or INTERRUPTED by the fence (under the claim lock) and claims again.
 */
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorCode } from '../model/error-code.js';
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import type { Limits } from '../model/limits.js';
import { DatabaseLease } from '../monitor/leader.js';
import type { Store } from '../store/index.js';
import { infoInteger, readInfoMap, updateInfoMap } from '../tasks/transfer-info.js';
import type { HostConfig } from '../model/host-config.js';
import { ConfigurationSync, HostConfigSync } from './config-sync.js';

/** Key of the claiming member's number in a row's TRANSFERINFO map (our own key). */
export const MEMBER_KEY = 'CLUSTERMEMBER';

export interface ClusterMemberOptions {
  hostId: string;
  /** This host's ids (host id and TLS host id): only rows it requests are claimed. */
  ownIds: string[];
  store: () => Store;
  logger: Logger;
  /** How often the heartbeat is written (default 5 s). */
  heartbeatMs?: number;
  /**
   * How long after its last heartbeat a member counts as dead and its RUNNING rows are handed to
   * the others (default 20 s). With the defaults a dead member's rows run again within about
   * 20 + 5 + 5 s, or 20 + 20 + 5 s when it also held the take-over job: under a minute.
   */
  takeoverAfterMs?: number | undefined;
  /** Applies CONFIGURATION rows set to UPDATEDINFO 3 (config-sync.ts), checked at each heartbeat. */
  configuration?: { members: number; apply: (limits: Limits) => void };
  /** Applies this host's HOSTCONFIG row set to UPDATEDINFO 3 (config-sync.ts), checked at each heartbeat. */
  hostConfig?: { members: number; apply: (row: HostConfig) => void };
  /**
   * Run once at start by one member at a time (lease `history-clean`): the scheduler's clean of
   * finished rows (database.md §6), which a single server runs at its start.
   */
  clean?: () => Promise<number>;
}

/** The member number written in a row's TRANSFERINFO, or undefined. */
export function memberOf(transferInfo: string): number | undefined {
  const v = infoInteger(readInfoMap(transferInfo)[MEMBER_KEY]);
  return v === undefined ? undefined : Number(v);
}

export class ClusterMember {
  readonly name = 'cluster-member';
  /** This process's member number (random, never 0). */
  readonly member = randomInt(1, 2 ** 31 - 1);
  private readonly heartbeatMs: number;
  private readonly takeoverAfterMs: number;
  private readonly takeover: DatabaseLease;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private chores: Promise<void> | undefined;
  private readonly config: ConfigurationSync | undefined;
  private readonly hostConfig: HostConfigSync | undefined;
  /** Epoch ms until which this member owns its claimed rows (fencing; set by each heartbeat written). */
  private ownUntil = 0;
  /** Set when ownership lapsed; cleared when a heartbeat got through and the fenced rows were handed back. */
  private fenced = false;
  private fenceTimer: NodeJS.Timeout | undefined;
  /** The fence listeners' work (interrupted transfers ending), awaited before the rows are handed back. */
  private fencing: Promise<unknown> = Promise.resolve();
  private readonly fenceListeners: Array<() => Promise<void>> = [];
  /** Between start and stop. */
  private active = false;

  constructor(private readonly opts: ClusterMemberOptions) {
    this.takeoverAfterMs = Math.max(opts.takeoverAfterMs ?? 20_000, 1_000);
    // Several beats per expiry, so one slow write does not make a live member look dead.
    this.heartbeatMs = opts.heartbeatMs ?? Math.min(5_000, Math.floor(this.takeoverAfterMs / 4));
    this.takeover = new DatabaseLease({
      job: 'takeover', hostId: opts.hostId, store: opts.store, logger: opts.logger,
      ttlMs: this.takeoverAfterMs, renewMs: this.heartbeatMs,
    });
    const c = opts.configuration;
    this.config = c ? new ConfigurationSync({ hostId: opts.hostId, members: c.members, store: opts.store, apply: c.apply, logger: opts.logger }) : undefined;
    const h = opts.hostConfig;
    this.hostConfig = h ? new HostConfigSync({ hostId: opts.hostId, members: h.members, store: opts.store, apply: h.apply, logger: opts.logger }) : undefined;
  }

  /** How long before the expiry of its last heartbeat a member stops owning its rows. */
  private get fenceMarginMs(): number {
    return Math.floor(this.takeoverAfterMs / 4);
  }

  /**
   * True while this member may start or continue the transfers it claimed: its last heartbeat is
   * not about to expire. When it is, the fence is raised now (listeners told once).
   */
  owning(): boolean {
    if (!this.fenced && Date.now() >= this.ownUntil) this.fence();
    return !this.fenced;
  }

  /** `listener` is called (once per lapse) when this member stops owning its claimed rows. */
  onFence(listener: () => Promise<void>): void {
    this.fenceListeners.push(listener);
  }

  private fence(): void {
    if (this.fenced) return;
    this.fenced = true;
    clearTimeout(this.fenceTimer);
    this.opts.logger.error({ member: this.member, ownedUntil: new Date(this.ownUntil).toISOString() },
      'cluster: heartbeat not renewed in time; this member stops its claimed transfers (resumable) and claims nothing until the database answers again');
    this.fencing = Promise.allSettled(this.fenceListeners.map((l) => l()));
    // Nor does it keep the take-over job (its lease row may still be writable): another member
    // must be able to take this member's rows over.
    void this.takeover.stop();
  }

  /** The fence goes up when ownership lapses without a new heartbeat (timer reset by each one). */
  private armFence(): void {
    clearTimeout(this.fenceTimer);
    if (this.fenced || !this.active) return;
    this.fenceTimer = setTimeout(() => this.fence(), Math.max(this.ownUntil - Date.now(), 0));
    this.fenceTimer.unref();
  }

  /**
   * After a fence, a heartbeat got through: once the interrupted transfers ended, this member's rows
   * still RUNNING or INTERRUPTED by the fence go back to TOSUBMIT (nothing runs them here), then it
   * claims again. Rows another member took over meanwhile carry that member's number: untouched.
   */
  private async recover(): Promise<void> {
    await this.fencing;
    const moved = await this.handBackOwn();
    this.fenced = false;
    this.armFence();
    if (this.active) await this.takeover.start();
    this.opts.logger.warn({ member: this.member, handedBack: moved }, 'cluster: database reachable again; this member claims again');
  }

  private get claimKey(): string {
    return `claim:${this.opts.hostId}`;
  }

  private memberKey(member: number): string {
    return `member:${this.opts.hostId}:${member}`;
  }

  describe(): string[] {
    return [`cluster member ${this.member} of ${this.opts.hostId} (take-over after ${this.takeoverAfterMs} ms)`];
  }

  async start(): Promise<void> {
    const store = this.opts.store();
    // The lock row must exist (FOR UPDATE on no row locks nothing); members starting at once may
    // all insert it, the others' inserts do nothing. The leases create their own rows the same way.
    await store.multipleMonitors.insertIfAbsent({ hostId: this.claimKey, countConfig: 0, countHost: 0, countRule: 0 });
    this.active = true;
    await this.beat();
    await this.resubmitInterrupted();
    if (this.opts.clean) {
      // The clean a single server runs at its start, by one member at a time.
      const clean = new DatabaseLease({ job: 'history-clean', hostId: this.opts.hostId, store: this.opts.store, logger: this.opts.logger, ttlMs: 60_000 });
      const cleaned = await clean.runExclusive(this.opts.clean);
      this.opts.logger.info({ cleaned: cleaned ?? 'another member cleans' }, 'cluster: finished transfers marked done');
    }
    await this.takeover.start();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.active = false;
    clearTimeout(this.fenceTimer);
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.beating?.catch(() => undefined);
    await this.chores?.catch(() => undefined);
    await this.takeover.stop();
    // Called after the scheduler stopped: its transfers ended with Shutdown. A single host resets
    // them at its next start; here the other members run them now.
    await this.handBackOwn().catch((err: unknown) => this.opts.logger.warn({ err: (err as Error).message }, 'cluster: cannot hand back this member\'s transfers'));
    await this.opts.store().multipleMonitors.delete(this.memberKey(this.member)).catch(() => undefined);
  }

  /**
   * INTERRUPTED rows back to TOSUBMIT, as a single server does at its start (database.md §6); its
   * RUNNING rows are left alone here: other members run them (the take-over handles dead ones).
   */
  private async resubmitInterrupted(): Promise<void> {
    const store = this.opts.store();
    const rows = await store.runner.list({ ownerReq: this.opts.hostId, updatedInfo: [UpdatedInfo.INTERRUPTED] });
    for (const r of rows) await store.runner.move(r, { kind: 'handBack' });
    if (rows.length > 0) this.opts.logger.info({ reset: rows.length }, 'cluster: interrupted transfers reset for resubmission at start');
  }

  /**
   * This member's rows left RUNNING, or INTERRUPTED by a shutdown or a fence, back to TOSUBMIT,
   * under the claim lock. Returns how many.
   */
  private async handBackOwn(): Promise<number> {
    const store = this.opts.store();
    const rows = await store.runner.list({ ownerReq: this.opts.hostId, updatedInfo: [UpdatedInfo.RUNNING, UpdatedInfo.INTERRUPTED] });
    return this.handBack(rows.filter((r) => memberOf(r.transferInfo) === this.member));
  }

  /**
   * `rows` back to TOSUBMIT (rank kept) under the claim lock, each only if it still is RUNNING, or
   * INTERRUPTED by a shutdown (Shutdown status: a member's stop or fence, not a stop order), for
   * the same member. Returns how many moved.
   */
  private async handBack(rows: TransferRecord[]): Promise<number> {
    if (rows.length === 0) return 0;
    return this.opts.store().transaction(async (tx) => {
      await tx.multipleMonitors.getForUpdate(this.claimKey);
      let moved = 0;
      for (const r of rows) {
        const current = await tx.runner.get(r);
        if (current === undefined || !resumable(current) || memberOf(current.transferInfo) !== memberOf(r.transferInfo)) continue;
        await tx.runner.move(current, { kind: 'handBack', at: new Date() });
        moved++;
      }
      return moved;
    });
  }

  /**
   * The due rows this member may start, marked RUNNING under the claim lock so no other member
   * gets them. Rows where this host is only the requested side are returned unmarked (the
   * scheduler marks them INTERRUPTED, which any member may do).
   */
  async claimDue(now: Date, limit: number): Promise<TransferRecord[]> {
    // Fenced: nothing is claimed (the rows may be taken over by another member at any time).
    if (!this.owning()) return [];
    const claimed = await this.opts.store().transaction(async (tx) => {
      await tx.multipleMonitors.getForUpdate(this.claimKey);
      const due = await tx.runner.listDue(this.opts.hostId, now, limit);
      const claimed: TransferRecord[] = [];
      for (const record of due) {
        if (!this.opts.ownIds.includes(record.requester)) {
          claimed.push(record);
          continue;
        }
        const transferInfo = updateInfoMap(record.transferInfo, { [MEMBER_KEY]: this.member });
        await tx.runner.move(record, { kind: 'dueStart' }, { transferInfo });
        // The engine's own first write says RUNNING again; its in-memory row stays as listed.
        claimed.push({ ...record, transferInfo });
      }
      return claimed;
    });
    // Ownership lapsed during the claim: the rows it marked are handed back at the recovery or
    // taken over, never started here.
    return this.owning() ? claimed : [];
  }

  /**
   * Every `heartbeatMs`: the heartbeat, and beside it (never delaying the next heartbeat, which
   * would fence this member) the configuration checks and the take-over, one round at a time.
   */
  private schedule(): void {
    this.timer = setTimeout(() => {
      this.beating = this.beat()
        .catch((err: unknown) => this.opts.logger.warn({ err: (err as Error).message }, 'cluster: heartbeat failed'))
        .finally(() => { if (this.timer !== undefined) this.schedule(); });
      this.chores ??= (async () => {
        await this.config?.check();
        await this.hostConfig?.check();
        if (this.takeover.held && !this.fenced) await this.takeOver();
      })()
        .catch((err: unknown) => this.opts.logger.warn({ err: (err as Error).message }, 'cluster: configuration check or take-over failed'))
        .finally(() => { this.chores = undefined; });
    }, this.heartbeatMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    // Ownership counts from before the write (a write that took long leaves less of it) and ends
    // a margin before the expiry, which is rounded up to the second (others compare seconds).
    const sentAt = Date.now();
    const expiry = Math.ceil((sentAt + this.takeoverAfterMs) / 1000);
    await this.opts.store().multipleMonitors.upsert({ hostId: this.memberKey(this.member), countConfig: this.member, countHost: expiry, countRule: 0 });
    this.ownUntil = sentAt + this.takeoverAfterMs - this.fenceMarginMs;
    if (this.fenced) await this.recover();
    else this.armFence();
  }

  /**
   * RUNNING rows claimed by a member whose heartbeat expired (and those it INTERRUPTED with
   * Shutdown when fenced) go back to TOSUBMIT under the claim lock (their RANK kept, so the next
   * claimer resumes from it). Returns how many.
   */
  async takeOver(): Promise<number> {
    const store = this.opts.store();
    const running = (await store.runner.list({ ownerReq: this.opts.hostId, updatedInfo: [UpdatedInfo.RUNNING, UpdatedInfo.INTERRUPTED] })).filter(resumable);
    const now = Math.floor(Date.now() / 1000);
    const alive = new Map<number, boolean>();
    const orphans: TransferRecord[] = [];
    for (const r of running) {
      const m = memberOf(r.transferInfo);
      if (m === undefined || m === this.member) continue;
      if (!alive.has(m)) alive.set(m, ((await store.multipleMonitors.get(this.memberKey(m)))?.countHost ?? 0) >= now);
      if (alive.get(m) === false) orphans.push(r);
    }
    if (orphans.length === 0) return 0;
    // Each still RUNNING (or interrupted) for the same dead member: not ended or re-claimed meanwhile.
    const moved = await this.handBack(orphans);
    for (const m of alive.keys()) if (alive.get(m) === false) await store.multipleMonitors.delete(this.memberKey(m)).catch(() => undefined);
    this.opts.logger.warn({ moved, member: this.member }, 'cluster: transfers of a dead member handed back for resubmission');
    return moved;
  }
}

/** RUNNING, or INTERRUPTED with Shutdown (a member's stop or fence; not a stop order's H). */
function resumable(r: TransferRecord): boolean {
  return r.updatedInfo === UpdatedInfo.RUNNING
    || (r.updatedInfo === UpdatedInfo.INTERRUPTED && (r.infoStatus === ErrorCode.Shutdown || r.stepStatus === ErrorCode.Shutdown));
}
