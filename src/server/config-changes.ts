/**
 * A single server's watch of its configuration rows (database.md §9.2): the CONFIGURATION row
 * (bandwidth limits) and the HOSTCONFIG row (business list, roles, aliases) of this host set to
 * UPDATEDINFO 3 (by a configuration import, REST v2, the web System page, or a tool writing the
 * database) are applied to the running server at the next scheduler period, then marked seen.
 * In a cluster the member does the same, counting the members (cluster/member.ts).
 */
import type { Logger } from 'pino';
import { ConfigurationSync, HostConfigSync } from '../cluster/config-sync.js';
import type { HostConfig } from '../model/host-config.js';
import type { Limits } from '../model/limits.js';
import type { Store } from '../store/index.js';

export interface ConfigChangeWatchOptions {
  hostId: string;
  store: () => Store;
  periodMs: number;
  applyLimits: (row: Limits) => void;
  applyHostConfig: (row: HostConfig) => void;
  logger: Logger;
}

export class ConfigChangeWatch {
  private readonly syncs: Array<ConfigurationSync | HostConfigSync>;
  private timer: NodeJS.Timeout | undefined;
  private turn: Promise<void> = Promise.resolve();
  /** The failure last logged: a database that stays down is said once, not every period. */
  private lastFailure: string | undefined;

  constructor(private readonly opts: ConfigChangeWatchOptions) {
    const common = { hostId: opts.hostId, members: 1, store: opts.store, logger: opts.logger };
    this.syncs = [new ConfigurationSync({ ...common, apply: opts.applyLimits }), new HostConfigSync({ ...common, apply: opts.applyHostConfig })];
  }

  start(): void {
    this.timer = setInterval(() => {
      this.turn = this.turn.then(() => this.check());
    }, this.opts.periodMs);
    this.timer.unref();
  }

  /** One look at both rows; a failure (the database away) is logged and tried again next period. */
  async check(): Promise<void> {
    for (const sync of this.syncs) {
      try {
        await sync.check();
        this.lastFailure = undefined;
      } catch (err) {
        const text = err instanceof Error ? err.message : String(err);
        if (text !== this.lastFailure) this.opts.logger.warn({ err: text }, 'configuration changes: cannot read or mark the changed rows; tried again at the next period');
        this.lastFailure = text;
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.turn;
  }
}
