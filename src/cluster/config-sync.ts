/**
 * CONFIGURATION rows set to UPDATEDINFO 3 reach every member (database.md §9.2): each member
 * re-applies the row (bandwidth limits) once, counts itself in COUNTCONFIG of the host's
 * MULTIPLEMONITOR row under its row lock, and the last of `members` resets the row to 1
 * (NOTUPDATED) and the counter to 0, as the original resets it only when every member saw it.
 * HOSTS and RULES need nothing here: every member reads them from the database at each use.
 */
import type { Logger } from 'pino';
import type { Limits } from '../model/limits.js';
import { UpdatedInfo } from '../model/transfer.js';
import type { Store } from '../store/index.js';

export interface ConfigurationSyncOptions {
  hostId: string;
  /** `multiplemonitors`: how many members must see a change before it is marked seen. */
  members: number;
  store: () => Store;
  /** Applies a changed CONFIGURATION row in this process (the engine's bandwidth shaper). */
  apply: (limits: Limits) => void;
  logger: Logger;
}

export class ConfigurationSync {
  /** The row last applied while it still said 3 (not applied twice while others catch up). */
  private applied: string | undefined;

  constructor(private readonly opts: ConfigurationSyncOptions) {}

  /** One look at the CONFIGURATION row; true when this member applied a change. */
  async check(): Promise<boolean> {
    const { hostId, members } = this.opts;
    const store = this.opts.store();
    const row = await store.limits.get(hostId);
    if (row === undefined || row.updatedInfo !== UpdatedInfo.TOSUBMIT) {
      this.applied = undefined;
      return false;
    }
    const text = JSON.stringify(row);
    if (this.applied === text) return false;
    this.opts.apply(row);
    this.applied = text;
    const seen = await store.transaction(async (tx) => {
      const mm = (await tx.multipleMonitors.getForUpdate(hostId)) ?? { hostId, countConfig: 0, countHost: 0, countRule: 0 };
      const n = Math.max(mm.countConfig, 0) + 1;
      if (n >= members) await tx.limits.setUpdatedInfo(hostId, UpdatedInfo.NOTUPDATED);
      await tx.multipleMonitors.upsert({ ...mm, countConfig: n >= members ? 0 : n });
      return n;
    });
    this.opts.logger.info({ seen, of: members }, 'cluster: changed CONFIGURATION applied');
    return true;
  }
}
