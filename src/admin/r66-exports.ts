/**
 * The server's side of the R66 export orders (net/commands/admin-exports.ts): the history and
 * configuration exports of the history module, on this runtime's store and directories. The legacy
 * history order has its own purge rule (database.md §10.2), which only this form uses.
 */
import { effectiveRole, type ServerConfig } from '../config/index.js';
import type { AdminExportSource, ConfigExportItem, HistoryOrder, HistoryResult } from '../net/commands/admin-exports.js';
import type { Logger } from 'pino';
import type { Notify } from '../model/notifications.js';
import type { AuthenticatedPartner } from '../net/partner.js';
import type { Store } from '../store/index.js';
import { exportConfigV1, type ConfigItem } from './config-files.js';
import { exportHistoryV1 } from './history.js';

/**
 * Legacy order (Valid 16/17): selection on STARTTRANS only, no status filter; the purge deletes this
 * owner's finished rows with STARTTRANS >= start and STOPTRANS <= stop (only the bounds given).
 * A RUNNING row is never purged (our addition: the original could catch one at its very end).
 */
async function basicHistory(store: Store, config: ServerConfig, order: HistoryOrder): Promise<HistoryResult> {
  const exported = await exportHistoryV1({ store, hostId: config.hostId, archiveDir: config.directories.arch }, { start: order.start, stop: order.stop });
  if (!order.purge) return exported;
  const purged = await store.runner.deleteWhere({
    ownerReq: config.hostId, status: { done: true }, notRunning: true,
    ...(order.start ? { startFrom: order.start } : {}), ...(order.stop ? { stopTo: order.stop } : {}),
  });
  return { ...exported, purged };
}

/** This server's own host ids (plain and TLS): a caller using one of them may do anything. */
export function ownIdsOf(config: ServerConfig): string[] {
  return [config.hostId, ...(config.sslHostId !== undefined ? [config.sslHostId] : [])];
}

/** The effective role of an authenticated partner (server.xml roles, admin flag). */
export function roleOfPartner(config: ServerConfig): (partner: AuthenticatedPartner) => number {
  return (partner) => effectiveRole(config.roles, partner.hostId, partner.host.adminRole);
}

export function adminExportSource(config: ServerConfig, store: () => Store, log: Logger, notifications?: Notify): AdminExportSource {
  return {
    ownIds: ownIdsOf(config),
    roleOf: roleOfPartner(config),
    exportHistory: async (order) => {
      if (order.form === 'basic') return basicHistory(store(), config, order);
      return exportHistoryV1({ store: store(), hostId: config.hostId, archiveDir: config.directories.arch }, {
        start: order.start, stop: order.stop, startId: order.startId, stopId: order.stopId, rule: order.rule, partner: order.partner,
        pending: order.pending, transfer: order.transfer, done: order.done, error: order.error, purge: order.purge, clean: order.clean,
      });
    },
    exportConfig: async (items) => {
      const files = await exportConfigV1({ store: store(), hostId: config.hostId, cryptoKey: config.identity.cryptoKey }, config.directories.arch, items as ReadonlySet<ConfigItem>);
      return files as Partial<Record<ConfigExportItem, string>>;
    },
    notify: (message, partnerId) => {
      log.warn({ partner: partnerId }, message);
      notifications?.('warning', message, partnerId);
    },
  };
}
