/**
 * The transfer-order service (src/operations) for both REST generations: built once per REST
 * services object from its store and configuration, with the running engine when the server has
 * one (`services.transfers`: a running transfer is interrupted by it), else acting on the stored
 * rows the way the engine does for a transfer not running on this host (rest-v1.md §12.7).
 */
import { remoteReadable, TransferOrders, type OrderResult } from '../operations/index.js';
import type { TransferKey } from '../model/transfer.js';
import type { RestServices } from './context.js';

const cache = new WeakMap<RestServices, TransferOrders>();

/** The order service of these REST services (one per server). */
export function ordersOf(services: RestServices): TransferOrders {
  let orders = cache.get(services);
  if (orders === undefined) {
    const { config, store } = services;
    orders = new TransferOrders({
      store, hostId: config.hostId, sslHostId: config.sslHostId, directories: config.directories, blockSize: config.limits.blockSize,
      extraServed: remoteReadable(config.directories), live: () => services.transfers, now: () => services.now(),
    });
    cache.set(services, orders);
  }
  return orders;
}

export function stopOrCancelTransfer(services: RestServices, key: TransferKey, kind: 'stop' | 'cancel'): Promise<OrderResult> {
  const orders = ordersOf(services);
  return kind === 'stop' ? orders.stop(key) : orders.cancel(key);
}

export function restartTransfer(services: RestServices, key: TransferKey, at: Date | undefined): Promise<OrderResult> {
  return ordersOf(services).restart(key, at);
}
