/**
 * Components a running server adds after the database and its identity check, in start order
 * (they stop in reverse). One line each, e.g. `new R66Listener(runtime)`. Kept apart from
 * runtime.ts so adding a listener, HTTP or the scheduler does not touch the composition logic.
 */
import { R66Network } from '../net/network.js';
import { TransferService } from '../transfer/index.js';
import type { Component } from './component.js';
import { restListeners } from './rest-services.js';
import type { ServerRuntime } from './runtime.js';

export function extraComponents(runtime: ServerRuntime): Component[] {
  const network = new R66Network(runtime.config, () => ({ findHost: (id) => runtime.store.hosts.get(id), findRule: (id) => runtime.store.rules.get(id) }), runtime.log);
  return [
    network,
    // Transfers (engine + scheduler of submitted rows) need the started network's pool and handlers.
    new TransferService({ config: runtime.config, store: () => runtime.store, network: () => network, logger: runtime.log }),
    ...restListeners(runtime),
  ];
}
