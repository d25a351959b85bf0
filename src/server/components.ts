/**
 * Components a running server adds after the database and its identity check, in start order
 * (they stop in reverse). One line each, e.g. `new R66Listener(runtime)`. Kept apart from
 * runtime.ts so adding a listener, HTTP or the scheduler does not touch the composition logic.
 */
import { effectiveRole } from '../config/index.js';
import { parseBusiness } from '../config/hostconfig-xml.js';
import { MonitorComponent } from '../monitor/component.js';
import { adminExportHandlers, EXPORT_SUBTYPES } from '../net/commands/admin-exports.js';
import { ADMIN_ORDER_JSON_SUBTYPES, ADMIN_ORDER_SUBTYPES, adminOrderHandlers } from '../net/commands/admin-orders.js';
import { baseValidHandler, ignoredStartupHandler, noTransferHandler } from '../net/commands/valid-base.js';
import { limitsAfterOrder } from '../operations/bandwidth.js';
import { notifyBandwidthOrder, notifyBlockOrder, notifyOrder } from '../monitor/snmp/admin-order-warnings.js';
import type { RestServices } from '../http/index.js';
import type { TaskRegistry } from '../tasks/index.js';
import { shutdownOrderHandler } from '../net/commands/shutdown-order.js';
import { R66Network } from '../net/network.js';
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import { PacketType } from '../protocol/index.js';
import { TransferService } from './transfer-service.js';
import { partnerOrderHandlers, TRANSFER_ORDERS } from '../operations/partner-orders.js';
import { adminExportSource, importForOrder, ownIdsOf, roleOfPartner } from '../admin/index.js';
import { BusinessRegistry, businessHandlers } from './business.js';
import type { Component } from './component.js';
import { liveRestServices, restListeners } from './rest-services.js';
import type { ServerRuntime } from './runtime.js';
import { ServerTasks } from './task-registry.js';
import { WebAreas } from '../web/component.js';

export function extraComponents(runtime: ServerRuntime): Component[] {
  const network = new R66Network(runtime.config, () => ({
    findHost: (id) => runtime.store.hosts.get(id), findRule: (id) => runtime.store.rules.get(id), findTransfer: (key) => runtime.store.runner.get(key),
  }), runtime.log, process.env, runtime.notifications.notify);
  // Task plug-ins (extendTaskFactory) are loaded and every rule checked before anything listens.
  const tasks = new ServerTasks(runtime);
  // RESTART (tasks.md §8): the ordered in-process restart, one second after the task succeeded.
  const restarter = { restartAfter: (ms: number) => void setTimeout(() => runtime.requestShutdown(true), ms).unref() };
  const transfers = new TransferService({ config: runtime.config, store: () => runtime.store, network: () => network, logger: runtime.log, tasks: tasks.registry, hooks: { restarter, snmp: () => runtime.notifications.notifier }, notify: runtime.notifications.notify });
  const business = businessRegistry(runtime, tasks, transfers, restarter);
  // One set of live services for REST, the web areas and the R66 admin orders (bandwidth, block).
  const live = liveRestServices(runtime, { transfers, business, tasks: tasks.registry, openConnections: () => network.openConnections });
  composeR66Handlers(runtime, network, business, transfers);
  composeAdminOrders(runtime, network, transfers, { services: live, tasks: tasks.registry });
  return [
    tasks,
    network,
    // Transfers (engine + scheduler of submitted rows) need the started network's pool and handlers.
    transfers,
    new MonitorComponent(runtime, { transfers, network }),
    ...restListeners(runtime, { transfers, business, tasks: tasks.registry }, live),
    new WebAreas({ config: runtime.config, log: runtime.log, services: live, events: () => transfers.engine, pool: () => network.pool, closeConnections: (id) => network.closePartner(id) }),
  ];
}

/**
 * The server's R66 handler table (net/handlers.ts), composed here and nowhere else: which module
 * answers which request kind and Valid/JsonCommand sub-kind. The network puts the built-in rows
 * (test, information, the JsonCommand base for the rest). The transfer engine's row (request)
 * reaches the engine of the running transfer service (made at its start, made again at a
 * restart); the stop/cancel/restart sub-kinds reach that service's order service (the one the
 * TRANSFER tasks use). A handler that declines a packet of its sub-kind (a JSON class
 * that is not its own) passes it to the kind's row for the rest, never to another module.
 */
function composeR66Handlers(runtime: ServerRuntime, network: R66Network, business: BusinessRegistry, transfers: TransferService): void {
  const { handlers } = network;
  const { config } = runtime;
  // The row of the engine running now (TransferService.engine fails while it is not started).
  let engineRows: { engine: TransferService['engine']; rows: ReturnType<TransferService['engine']['handlerRows']> } | undefined;
  const running = (): TransferService => {
    // A request in the short while the listener runs and the engine not yet (or no more): the
    // requester retries later, as for an overloaded host.
    if (!transfers.running) throw new R66Error(ErrorCode.ServerOverloaded, 'the transfer service is not running: retry later');
    return transfers;
  };
  const rows = (): ReturnType<TransferService['engine']['handlerRows']> => {
    const engine = running().engine;
    if (engineRows?.engine !== engine) engineRows = { engine, rows: engine.handlerRows() };
    return engineRows.rows;
  };
  handlers.register('request', (ctx, p) => rows().request(ctx, p), 'transfer engine');
  // The partners' stop, cancel and restart: the order service REST, the web pages and the CLI call.
  const orderRows = partnerOrderHandlers({
    orders: { stop: (ref) => running().orders.stop(ref), cancel: (ref) => running().orders.cancel(ref), restart: (ref, at) => running().orders.restart(ref, at) },
    authority: { isOwnId: (id) => running().engine.isOwnId(id), roleOf: (id, isAdmin) => running().engine.roleOf(id, isAdmin) },
  }, handlers.restOf('valid'), handlers.restOf('jsonCommand'));
  handlers.registerSubKinds('valid', TRANSFER_ORDERS, orderRows.valid, 'transfer orders');
  handlers.registerSubKinds('jsonCommand', TRANSFER_ORDERS, orderRows.jsonCommand, 'transfer orders');
  const biz = businessHandlers({
    registry: () => business,
    ownIds: ownIdsOf(config),
    allowed: async (hostId) => {
      if (config.business.includes(hostId)) return true;
      const row = await runtime.store.hostConfigs.get(config.hostId);
      return row !== undefined && parseBusiness(row.business).includes(hostId);
    },
  }, handlers.restOf('jsonCommand'));
  handlers.register('businessRequest', biz.businessRequest, 'business requests');
  handlers.registerSubKinds('jsonCommand', [PacketType.BUSINESSREQUEST], biz.jsonCommand, 'business requests');
  // History and configuration exports (r66-protocol.md §9.11).
  const admin = adminExportHandlers(adminExportSource(config, () => runtime.store, runtime.log, runtime.notifications.notify), handlers.restOf('valid'), handlers.restOf('jsonCommand'));
  handlers.registerSubKinds('valid', EXPORT_SUBTYPES, admin.valid, 'admin exports');
  handlers.registerSubKinds('jsonCommand', EXPORT_SUBTYPES, admin.jsonCommand, 'admin exports');
  handlers.register('shutdown', shutdownOrderHandler({
    adminPassword: config.server.adminPassword, ownIds: ownIdsOf(config), roleOf: roleOfPartner(config),
    shutdown: (restart) => runtime.requestShutdown(restart), notify: runtime.notifications.notify,
  }), 'shutdown order');
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
    snmp: () => runtime.notifications.notifier,
    roleOf: async (hostId) => {
      if (ownIdsOf(config).includes(hostId)) return effectiveRole([], hostId, true);
      const host = await runtime.store.hosts.get(hostId);
      return effectiveRole(config.roles, hostId, host?.adminRole ?? false);
    },
    // The business TRANSFER submits through the order service, as the TRANSFER task does.
    submit: (s) => transfers.orders.submitLater({
      partner: s.to, rule: s.rule ?? '', file: s.file ?? '', md5: s.md5, fileInfo: s.info, noFollow: true,
      ...(s.blockSize !== undefined ? { blockSize: s.blockSize } : {}), ...(s.id !== undefined ? { id: s.id } : {}), ...(s.start !== undefined ? { start: s.start } : {}),
    }),
  });
}

/**
 * The R66 admin orders besides exports (net/commands/admin-orders.ts): bandwidth through the live
 * control REST and the web pages change, the configuration import of src/admin, block and unblock
 * on the running engine (the one block state the partners' requests, the order service and the
 * scheduler consult), the JSON shutdown order as the Shutdown packet's.
 */
function composeAdminOrders(runtime: ServerRuntime, network: R66Network, transfers: TransferService, live: { services: () => RestServices; tasks: TaskRegistry }): void {
  const { handlers } = network;
  const { config } = runtime;
  const orders = adminOrderHandlers({
    ownIds: ownIdsOf(config), roleOf: roleOfPartner(config), adminPassword: config.server.adminPassword,
    bandwidth: {
      current: () => live.services().bandwidth.get(),
      change: (order, partnerId) => {
        const bw = live.services().bandwidth;
        bw.set(limitsAfterOrder(bw.get(), order));
        notifyBandwidthOrder(runtime.notifications.notify, bw.get(), partnerId);
        return bw.get();
      },
    },
    importConfig: (items, partnerId) => {
      // "Order received" (monitoring.md §B.5): once the role is checked, whatever the import gives, as the export's.
      notifyOrder(runtime.notifications.notify, 'import', partnerId);
      return importForOrder({ store: runtime.store, config, tasks: live.tasks, log: runtime.log }, partnerId, items);
    },
    block: (block, partnerId) => {
      transfers.engine.blockRequests(block);
      notifyBlockOrder(runtime.notifications.notify, block, partnerId);
    },
  }, handlers.restOf('valid'), handlers.restOf('jsonCommand'), handlers.restOf('shutdown'));
  handlers.registerSubKinds('valid', ADMIN_ORDER_SUBTYPES, orders.valid, 'admin orders');
  handlers.registerSubKinds('jsonCommand', ADMIN_ORDER_JSON_SUBTYPES, orders.jsonCommand, 'admin orders');
  handlers.register('blockRequest', orders.blockRequest, 'block order');
  // The Valid sub-types no module takes (answers, notices, unknown ones): never Unimplemented.
  handlers.registerDefault('valid', baseValidHandler, 'valid');
  // Packets that open no conversation: Startup ignored, Data/EndTransfer without a transfer R.
  handlers.registerDefault('startup', ignoredStartupHandler, 'ignored');
  handlers.registerDefault('data', noTransferHandler, 'no transfer');
  handlers.registerDefault('endTransfer', noTransferHandler, 'no transfer');
}
