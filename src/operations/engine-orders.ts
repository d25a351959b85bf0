/**
 * A transfer engine with the order service of its process (design.md §1, issue 33): the engine
 * does not build the service, the composition does (the server's transfer service with
 * ordersForEngine, the client's openEngine and the test hosts with engineWithOrders).
 * The service writes the rows of the transfers the engine creates (prepareNow, submitLater, the
 * TRANSFER and RESCHEDULE tasks) and runs "send now" on the engine; the engine's stop, cancel and
 * restart of a row that does not run here are the stored orders (stored-orders.ts).
 */
import type { RunnerRepository } from '../store/index.js';
import { aliveWindowMs } from '../transfer/alive.js';
import { TransferEngine } from '../transfer/engine.js';
import { localFileSystem } from '../transfer/file/local-file-system.js';
import type { TransferFileSystem } from '../transfer/file/storage.js';
import type { StoredOrders, TransferEngineOptions } from '../transfer/types.js';
import { restartStored, stopOrCancelStored } from './stored-orders.js';
import { registerPartnerOrders } from './partner-orders.js';
import { TransferOrders, type LiveTransfers } from './transfer-orders.js';

/**
 * The order service of a process that runs `live` (its engine, looked up at each order), from the
 * engine's options: its store, partners, directories, block size and `extraServed`. The server's
 * transfer service (src/server) and engineWithOrders build it with this.
 */
export function ordersForEngine(opts: Omit<TransferEngineOptions, 'orders' | 'storedOrders'>, live: () => LiveTransfers | undefined): TransferOrders {
  return new TransferOrders({
    store: { runner: opts.store.runner, rules: opts.rules ?? opts.store.rules, hosts: { get: (id) => opts.pool.partner(id) }, nextTransferId: () => opts.store.nextTransferId() },
    hostId: opts.ownerId ?? opts.identity.hostId, sslHostId: opts.identity.sslHostId, directories: opts.directories, blockSize: opts.limits.blockSize,
    extraServed: opts.extraServed ?? [], files: opts.files, live, aliveWindowMs: aliveWindowMs(opts.limits.timeoutCon, opts.aliveWindowMs),
  });
}

/**
 * The engine with `orders` (default one made by ordersForEngine with this engine live: a client,
 * a test host; the FileWatcher's spool gives the one it made, with its watched directories
 * served). With `opts.handlers` (a client's or a test host's table) the engine's Request row and
 * the partners' stop/cancel/restart orders, answered by `orders`, are registered there; a server
 * composes its table itself (server/components.ts).
 */
export function engineWithOrders(opts: Omit<TransferEngineOptions, 'orders' | 'storedOrders'>, orders?: TransferOrders): TransferEngine<TransferOrders> {
  // `live` is read at each order, once the engine below exists.
  const service = orders ?? ordersForEngine(opts, () => engine);
  const engine: TransferEngine<TransferOrders> = new TransferEngine({ ...opts, orders: service, storedOrders: storedOrdersOf(opts.store.runner, opts.files ?? localFileSystem) });
  if (opts.handlers) registerPartnerOrders(opts.handlers, { orders: service, authority: engine });
  return engine;
}

/** The engine's orders on its rows that do not run here: it knows they do not, so a row left RUNNING by a crash may be restarted. */
export function storedOrdersOf(runner: RunnerRepository, files: TransferFileSystem): StoredOrders {
  return {
    stopOrCancel: (key, kind) => stopOrCancelStored(runner, files, key, kind),
    restart: (key, at) => restartStored(runner, key, at, true),
  };
}
