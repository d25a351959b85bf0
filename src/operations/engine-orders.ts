/**
 * A transfer engine with the order service of its process (design.md §1, issue 33): the engine
 * does not build the service, the composition does, through this one function for every
 * composition alike (the server's transfer service, the client's openEngine, the test hosts).
 * The service writes the rows of the transfers the engine creates (prepareNow, submitLater, the
 * TRANSFER and RESCHEDULE tasks) and runs "send now" on the engine; the engine's stop, cancel and
 * restart of a row that does not run here are the stored orders (stored-orders.ts).
 */
import type { RunnerRepository } from '../store/index.js';
import { TransferEngine } from '../transfer/engine.js';
import { localFileSystem } from '../transfer/file/local-file-system.js';
import type { TransferFileSystem } from '../transfer/file/storage.js';
import type { StoredOrders, TransferEngineOptions } from '../transfer/types.js';
import { restartStored, stopOrCancelStored } from './stored-orders.js';
import { TransferOrders } from './transfer-orders.js';

/**
 * `orders`: the process's service when it was made before the engine (the FileWatcher's spool,
 * with its watched directories served and this engine as its live one); else one made here from
 * the engine's options (its store, partners, directories, block size and `extraServed`).
 */
export function engineWithOrders(opts: Omit<TransferEngineOptions, 'orders' | 'storedOrders'>, orders?: TransferOrders): TransferEngine<TransferOrders> {
  // `live` is read at each order, once the engine below exists.
  const service = orders ?? new TransferOrders({
    store: { runner: opts.store.runner, rules: opts.rules ?? opts.store.rules, hosts: { get: (id) => opts.pool.partner(id) }, nextTransferId: () => opts.store.nextTransferId() },
    hostId: opts.ownerId ?? opts.identity.hostId, sslHostId: opts.identity.sslHostId, directories: opts.directories, blockSize: opts.limits.blockSize,
    extraServed: opts.extraServed ?? [], files: opts.files, live: () => engine,
  });
  const engine: TransferEngine<TransferOrders> = new TransferEngine({ ...opts, orders: service, storedOrders: storedOrdersOf(opts.store.runner, opts.files ?? localFileSystem) });
  return engine;
}

/** The engine's orders on its rows that do not run here: it knows they do not, so a row left RUNNING by a crash may be restarted. */
export function storedOrdersOf(runner: RunnerRepository, files: TransferFileSystem): StoredOrders {
  return {
    stopOrCancel: (key, kind) => stopOrCancelStored(runner, files, key, kind),
    restart: (key, at) => restartStored(runner, key, at, true),
  };
}
