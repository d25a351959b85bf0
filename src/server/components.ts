/**
 * Components a running server adds after the database and its identity check, in start order
 * (they stop in reverse). One line each, e.g. `new R66Listener(runtime)`. Kept apart from
 * runtime.ts so adding a listener, HTTP or the scheduler does not touch the composition logic.
 */
import { effectiveRole } from '../config/index.js';
import { parseBusiness } from '../http/hostconfig-xml.js';
import { MonitorComponent } from '../monitor/component.js';
import { R66Network } from '../net/network.js';
import { TransferService } from '../transfer/index.js';
import { ownIdsOf } from '../admin/index.js';
import { BusinessRegistry, businessHandlers } from './business.js';
import type { Component } from './component.js';
import { liveRestServices, restListeners } from './rest-services.js';
import type { ServerRuntime } from './runtime.js';
import { ServerTasks } from './task-registry.js';
import { WebAreas } from '../web/component.js';

export function extraComponents(runtime: ServerRuntime): Component[] {
  const network = new R66Network(runtime.config, () => ({
    findHost: (id) => runtime.store.hosts.get(id), findRule: (id) => runtime.store.rules.get(id), findTransfer: (key) => runtime.store.runner.get(key),
  }), runtime.log);
  // Task plug-ins (extendTaskFactory) are loaded and every rule checked before anything listens.
  const tasks = new ServerTasks(runtime);
  // RESTART (tasks.md §8): the ordered in-process restart, one second after the task succeeded.
  const restarter = { restartAfter: (ms: number) => void setTimeout(() => runtime.requestShutdown(true), ms).unref() };
  const transfers = new TransferService({ config: runtime.config, store: () => runtime.store, network: () => network, logger: runtime.log, tasks: tasks.registry, hooks: { restarter } });
  const business = businessRegistry(runtime, tasks, transfers, restarter);
  const handlers = businessHandlers({
    registry: () => business,
    ownIds: ownIdsOf(runtime.config),
    allowed: async (hostId) => {
      if (runtime.config.business.includes(hostId)) return true;
      const row = await runtime.store.hostConfigs.get(runtime.config.hostId);
      return row !== undefined && parseBusiness(row.business).includes(hostId);
    },
  }, network.handlers.get('jsonCommand'));
  network.handlers.register('businessRequest', handlers.businessRequest);
  network.handlers.register('jsonCommand', handlers.jsonCommand);
  return [
    tasks,
    network,
    // Transfers (engine + scheduler of submitted rows) need the started network's pool and handlers.
    transfers,
    new MonitorComponent(runtime, { transfers, network }),
    ...restListeners(runtime, { transfers, business, tasks: tasks.registry }),
    new WebAreas({ config: runtime.config, log: runtime.log, services: liveRestServices(runtime, { transfers, business, tasks: tasks.registry }), events: () => transfers.engine, pool: () => network.pool }),
  ];
}

/** Business tasks (r66-protocol.md §9.11) with the server's task types, engine and restart. */
function businessRegistry(runtime: ServerRuntime, tasks: ServerTasks, transfers: TransferService, restarter: { restartAfter(ms: number): void }): BusinessRegistry {
  const { config } = runtime;
  return new BusinessRegistry({
    hostId: config.hostId,
    directories: config.directories,
    tasks: tasks.registry,
    logger: runtime.log,
    defaultTimeoutMs: config.limits.timeoutCon,
    restarter,
    roleOf: async (hostId) => {
      if (ownIdsOf(config).includes(hostId)) return effectiveRole([], hostId, true);
      const host = await runtime.store.hosts.get(hostId);
      return effectiveRole(config.roles, hostId, host?.adminRole ?? false);
    },
    submit: (s) => transfers.engine.submitLater({
      partner: s.to, rule: s.rule ?? '', file: s.file ?? '', md5: s.md5, fileInfo: s.info, noFollow: true,
      ...(s.blockSize !== undefined ? { blockSize: s.blockSize } : {}), ...(s.id !== undefined ? { id: s.id } : {}), ...(s.start !== undefined ? { start: s.start } : {}),
    }),
  });
}
