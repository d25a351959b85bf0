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
import { ServerTasks } from './task-registry.js';

export function extraComponents(runtime: ServerRuntime): Component[] {
  const network = new R66Network(runtime.config, () => ({ findHost: (id) => runtime.store.hosts.get(id), findRule: (id) => runtime.store.rules.get(id) }), runtime.log);
  // Task plug-ins (extendTaskFactory) are loaded and every rule checked before anything listens.
  const tasks = new ServerTasks(runtime);
  // RESTART (tasks.md §8): the ordered in-process restart, one second after the task succeeded.
  const restarter = { restartAfter: (ms: number) => void setTimeout(() => runtime.requestShutdown(true), ms).unref() };
  return [
    tasks,
    network,
    // Transfers (engine + scheduler of submitted rows) need the started network's pool and handlers.
    new TransferService({ config: runtime.config, store: () => runtime.store, network: () => network, logger: runtime.log, tasks: tasks.registry, hooks: { restarter } }),
    ...restListeners(runtime),
  ];
}
