/**
 * The configuration import as the original's ConfigImport orders ask it (r66-protocol.md §9.11,
 * rest-v1.md §12.3): per item a server-side file or the id of a transfer the caller sent here
 * before (the id wins), with or without purge. A thin call of importConfig (config-files.ts), the
 * import REST v1 and v2 use: each item is imported on its own, as the original does, so its answer
 * can say `Host:OK Rule:KO`.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/index.js';
import { ILLEGAL_SPECIAL_ID } from '../model/transfer.js';
import type { Store } from '../store/index.js';
import type { TaskRegistry } from '../tasks/index.js';
import { CONFIG_ITEMS, ConfigTransferError, importConfig, type ConfigItem } from './config-files.js';
import { ownIdsOf } from './r66-exports.js';

/** One item of an import order: a file on this server, or a transfer id (ILLEGAL_SPECIAL_ID: none). */
export interface ImportItemOrder {
  file: string | null;
  transferId: bigint;
  purge: boolean;
}

export interface ImportOrderContext {
  store: Store;
  config: ServerConfig;
  /** The server's task types, rules are checked against them (as REST's import). */
  tasks?: TaskRegistry;
  log: Logger;
}

/**
 * The file of transfer `specialId` that `user` sent to this server (requester `user`, requested
 * this server, owner this server), if that transfer exists.
 */
export async function fileReceivedFrom(store: Store, config: ServerConfig, user: string, specialId: bigint): Promise<string | undefined> {
  for (const requested of ownIdsOf(config)) {
    const record = await store.runner.get({ specialId, requester: user, requested, ownerReq: config.hostId });
    if (record !== undefined) return record.filename;
  }
  return undefined;
}

/**
 * Imports the asked items for `user`, hosts first then rules, business, aliases, roles; true for
 * an item imported, false for one that could not be (no such file or transfer, a file outside the
 * host's directories, or not what the item expects: the reason goes to the log).
 */
export async function importForOrder(ctx: ImportOrderContext, user: string, order: Partial<Record<ConfigItem, ImportItemOrder>>): Promise<Partial<Record<ConfigItem, boolean>>> {
  const { store, config } = ctx;
  const fctx = { store, hostId: config.hostId, cryptoKey: config.identity.cryptoKey, ...(ctx.tasks ? { tasks: ctx.tasks } : {}) };
  const out: Partial<Record<ConfigItem, boolean>> = {};
  for (const item of CONFIG_ITEMS) {
    const asked = order[item];
    if (asked === undefined) continue;
    const file = asked.transferId !== ILLEGAL_SPECIAL_ID ? await fileReceivedFrom(store, config, user, asked.transferId) : asked.file;
    if (!file) {
      ctx.log.warn({ partner: user, item, transfer: asked.transferId.toString() }, 'configuration import: no file received from this partner with that transfer id');
      out[item] = false;
      continue;
    }
    try {
      out[item] = (await importConfig(fctx, { [item]: { file, purge: asked.purge } }, config.directories))[item]?.imported === true;
    } catch (err) {
      if (!(err instanceof ConfigTransferError)) throw err;
      ctx.log.warn({ partner: user, item, reason: err.message }, 'configuration import refused');
      out[item] = false;
    }
  }
  return out;
}
