/**
 * Configuration rows set to UPDATEDINFO 3 reach every member (database.md §9.2): each member
 * re-applies the row once, counts itself in COUNTCONFIG of a MULTIPLEMONITOR row under its row
 * lock, and the last of `members` resets the row to 1 (NOTUPDATED) and the counter to 0, as the
 * original resets it only when every member saw it.
 * - CONFIGURATION (bandwidth limits): counted in the host's own MULTIPLEMONITOR row, as the original;
 * - HOSTCONFIG (business, roles, aliases): counted in the svc row `hostconfig:<host id>`, so a change
 *   of both at once does not mix their counts (the original has one counter for both).
 * HOSTS and RULES need nothing here: every member reads them from the database at each use.
 * A single server (`members` 1) applies such a row the same way and marks it seen at once, with no
 * counter (server/transfer-service.ts runs it at each scheduler period).
 */
import type { Logger } from 'pino';
import { parseRoleSet, type AliasEntry, type RoleEntry } from '../config/index.js';
import { parseAliases, parseBusiness, parseRoles } from '../config/hostconfig-xml.js';
import type { HostConfig } from '../model/host-config.js';
import type { Limits } from '../model/limits.js';
import { UpdatedInfo } from '../model/transfer.js';
import type { Repositories, Store } from '../store/index.js';

export interface ChangeSyncOptions<T> {
  hostId: string;
  /** `multiplemonitors`: how many members must see a change before it is marked seen. */
  members: number;
  store: () => Store;
  /** Applies a changed row in this process. */
  apply: (row: T) => void;
  logger: Logger;
}

interface RowAccess<T> {
  /** Table name, for the log. */
  table: string;
  /** Key of the MULTIPLEMONITOR row whose COUNTCONFIG counts the members that applied the change. */
  counterKey: string;
  read(repos: Repositories): Promise<T | undefined>;
  markSeen(repos: Repositories): Promise<unknown>;
}

/** One row of the host, re-applied by every member when set to UPDATEDINFO 3. */
class ChangeSync<T extends { updatedInfo: number }> {
  /** The row last applied while it still said 3 (not applied twice while others catch up). */
  private applied: string | undefined;
  /**
   * The row this member last counted itself for. Apart from `applied`: a count that failed (two
   * members' first counts of a new MULTIPLEMONITOR row deadlock on MariaDB, one is rolled back) is
   * tried again at the next check, else the row would stay at 3 for ever.
   */
  private counted: string | undefined;

  constructor(private readonly opts: ChangeSyncOptions<T>, private readonly row: RowAccess<T>) {}

  /** One look at the row; true when this member applied a change. */
  async check(): Promise<boolean> {
    const { members } = this.opts;
    const store = this.opts.store();
    const row = await this.row.read(store);
    if (row === undefined || row.updatedInfo !== UpdatedInfo.TOSUBMIT) {
      this.applied = undefined;
      this.counted = undefined;
      return false;
    }
    const text = JSON.stringify(row);
    if (this.counted === text) return false;
    if (this.applied !== text) {
      this.opts.apply(row);
      this.applied = text;
    }
    if (members <= 1) {
      // A single server: no one else to wait for, no MULTIPLEMONITOR counter to keep.
      await this.row.markSeen(store);
      this.opts.logger.info(`changed ${this.row.table} applied`);
      return true;
    }
    const key = this.row.counterKey;
    // The counter row exists before it is locked. Absent (a HOSTCONFIG counter's first change), two
    // members counting at once both read nothing (FOR UPDATE locks no absent row on PostgreSQL),
    // both wrote 1, and the change was never marked seen.
    const zero = { hostId: key, countConfig: 0, countHost: 0, countRule: 0 };
    await store.multipleMonitors.insertIfAbsent(zero);
    const seen = await store.transaction(async (tx) => {
      // Deleted meanwhile (an administrator's clean-up): counted from zero again.
      const mm = (await tx.multipleMonitors.getForUpdate(key)) ?? zero;
      const n = Math.max(mm.countConfig, 0) + 1;
      if (n >= members) await this.row.markSeen(tx);
      await tx.multipleMonitors.upsert({ ...mm, countConfig: n >= members ? 0 : n });
      return n;
    });
    this.counted = text;
    this.opts.logger.info({ seen, of: members }, `cluster: changed ${this.row.table} applied`);
    return true;
  }
}

/** The CONFIGURATION row (bandwidth limits) of the host. */
export class ConfigurationSync extends ChangeSync<Limits> {
  constructor(opts: ChangeSyncOptions<Limits>) {
    super(opts, {
      table: 'CONFIGURATION', counterKey: opts.hostId,
      read: (r) => r.limits.get(opts.hostId),
      markSeen: (r) => r.limits.setUpdatedInfo(opts.hostId, UpdatedInfo.NOTUPDATED),
    });
  }
}

/** The HOSTCONFIG row (business list, roles, aliases) of the host. */
export class HostConfigSync extends ChangeSync<HostConfig> {
  constructor(opts: ChangeSyncOptions<HostConfig>) {
    super(opts, {
      table: 'HOSTCONFIG', counterKey: `hostconfig:${opts.hostId}`,
      read: (r) => r.hostConfigs.get(opts.hostId),
      markSeen: (r) => r.hostConfigs.setUpdatedInfo(opts.hostId, UpdatedInfo.NOTUPDATED),
    });
  }
}

/** What a HOSTCONFIG row sets in the running configuration (the lists the server's checks read). */
export interface HostConfigTarget {
  business: string[];
  roles: RoleEntry[];
  aliases: AliasEntry[];
}

/**
 * Replaces the business list, roles and aliases of `target` (in place: the engine and the order
 * checks hold these arrays) by those of a changed HOSTCONFIG row, as the original re-reads them.
 */
export function applyHostConfig(target: HostConfigTarget, row: HostConfig): void {
  target.business.splice(0, target.business.length, ...parseBusiness(row.business));
  target.roles.splice(0, target.roles.length, ...parseRoles(row.roles).map((r) => ({ hostId: r.hostName, roles: parseRoleSet(r.roleList.join(' ')) })));
  target.aliases.splice(0, target.aliases.length, ...parseAliases(row.aliases).map((a) => ({ realId: a.hostName, aliasIds: a.aliasList })));
}
