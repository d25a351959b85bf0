/**
 * The transfer engine and its scheduler as one server lifecycle component (design.md §1): started
 * after the R66 network (it needs the connection pool and registers its handlers there), stopped
 * before it (running transfers end with Shutdown and are resumed at the next start). It lives in
 * src/server because it composes layers above the engine: the order service (src/operations) and
 * the cluster member (src/cluster).
 */
import type { Logger } from 'pino';
import type { Notify } from '../model/notifications.js';
import { securityOf, type ServerConfig } from '../config/index.js';
import type { RequestHandlers } from '../net/handlers.js';
import type { LocalIdentity } from '../net/partner.js';
import type { ConnectionPool } from '../net/pool.js';
import type { Store } from '../store/index.js';
import { createTaskRegistry, type EngineHooks, type TaskRegistry } from '../tasks/index.js';
import { engineWithOrders, ordersForEngine } from '../operations/engine-orders.js';
import type { TransferOrders } from '../operations/transfer-orders.js';
import { ANY_READABLE_FILE } from '../operations/order-files.js';
import type { TransferEngine } from '../transfer/engine.js';
import { setReceivedFileMode } from '../transfer/placement.js';
import { TransferScheduler } from '../transfer/scheduler.js';
import { ClusterMember } from '../cluster/member.js';
import { applyHostConfig } from '../cluster/config-sync.js';
import type { HostConfig } from '../model/host-config.js';
import type { Limits } from '../model/limits.js';
import { ConfigChangeWatch } from './config-changes.js';

export interface TransferServiceDeps {
  config: ServerConfig;
  /** The open store (available once the database component started). */
  store: () => Store;
  /** The started network: pool for outgoing transfers, handlers for incoming ones, our identity. */
  network: () => { pool: ConnectionPool; handlers: RequestHandlers; ctx: { identity: LocalIdentity } };
  logger: Logger;
  tasks?: TaskRegistry;
  /** Task hooks only a server provides (RESTART, the SNMP task's notifier). */
  hooks?: Pick<EngineHooks, 'restarter' | 'snmp'>;
  /** Application notifications (the SNMP agent's). */
  notify?: Notify;
}

export class TransferService {
  readonly name = 'transfers';
  private current: { engine: TransferEngine<TransferOrders>; scheduler: TransferScheduler; cluster?: ClusterMember; configChanges?: ConfigChangeWatch } | undefined;

  constructor(private readonly deps: TransferServiceDeps) {}

  /** True between start and stop (the engine exists). */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** The running engine (REST, the web UI and in-process clients use it). */
  get engine(): TransferEngine<TransferOrders> {
    if (this.current === undefined) throw new Error('the transfer engine is not started');
    return this.current.engine;
  }

  /**
   * The order service this service built with its engine (the TRANSFER and RESCHEDULE tasks, the
   * business TRANSFER and the partners' stop/cancel/restart orders use it).
   */
  get orders(): TransferOrders {
    return this.engine.orders;
  }

  async start(): Promise<void> {
    const { config, logger } = this.deps;
    setReceivedFileMode(securityOf(config).receivedFileMode);
    const store = this.deps.store();
    const net = this.deps.network();
    const options: Parameters<typeof engineWithOrders>[0] = {
      identity: net.ctx.identity,
      directories: config.directories,
      limits: config.limits,
      store,
      pool: net.pool,
      // Its rows of the R66 handler table are composed with the others (server/components.ts).
      tasks: this.deps.tasks ?? createTaskRegistry(),
      logger: logger.child({ component: 'transfer' }),
      ...(this.deps.notify ? { notify: this.deps.notify } : {}),
      roles: config.roles,
      ...(this.deps.hooks ? { hooks: this.deps.hooks } : {}),
      // Its own orders are local submissions (TRANSFER/RESCHEDULE tasks) and the rows it runs were
      // checked when submitted (asend/masend: any readable file; REST, web: confined, own services).
      extraServed: ANY_READABLE_FILE,
    };
    // The process's order service is built here, at composition, with this engine as its live one.
    const orders = ordersForEngine(options, () => engine);
    const engine = engineWithOrders(options, orders);
    const limits = await store.limits.get(config.hostId).catch(() => undefined);
    if (limits) {
      // A CONFIGURATION row replaces the XML values at start (bandwidth.md §3).
      engine.bandwidth.set({ writeGlobal: limits.writeGlobalLimit, readGlobal: limits.readGlobalLimit, writeSession: limits.writeSessionLimit, readSession: limits.readSessionLimit });
    }
    const ownIds = [config.hostId, ...(config.sslHostId ? [config.sslHostId] : [])];
    // A CONFIGURATION row set to UPDATEDINFO 3 is re-applied (database.md §9.2): the limits, and
    // HOSTCONFIG's business list, roles and aliases of the running configuration.
    const applyLimits = (l: Limits): void => void engine.bandwidth.set({ writeGlobal: l.writeGlobalLimit, readGlobal: l.readGlobalLimit, writeSession: l.writeSessionLimit, readSession: l.readSessionLimit });
    const applyHost = (row: HostConfig): void => applyHostConfig(config, row);
    // A cluster member (multiplemonitors > 1, docs/cluster.md) claims due rows atomically and
    // applies changed configuration rows once every member has; a single server watches them alone.
    const cluster = config.server.multipleMonitors > 1 ? new ClusterMember({
      hostId: config.hostId, ownIds, store: this.deps.store, logger, takeoverAfterMs: config.server.clusterTakeover,
      configuration: { members: config.server.multipleMonitors, apply: applyLimits },
      hostConfig: { members: config.server.multipleMonitors, apply: applyHost },
      // The clean of finished rows the scheduler runs at a single server's start, one member at a time.
      clean: () => store.runner.markFinishedAsDone(config.hostId),
    }) : undefined;
    await cluster?.start();
    const configChanges = cluster ? undefined : new ConfigChangeWatch({
      hostId: config.hostId, store: this.deps.store, periodMs: config.limits.delayCommand, applyLimits, applyHostConfig: applyHost, logger,
    });
    configChanges?.start();
    const scheduler = new TransferScheduler({
      engine, runner: store.runner, ownIds, ownerId: config.hostId, periodMs: config.limits.delayCommand, runLimit: config.limits.runLimit,
      retryDelayMs: config.limits.delayRetry, logger, ...(cluster ? { claim: cluster } : {}),
    });
    await scheduler.start();
    this.current = { engine, scheduler, ...(cluster ? { cluster } : {}), ...(configChanges ? { configChanges } : {}) };
  }

  describe(): string[] {
    return [...(this.current?.scheduler.describe() ?? []), ...(this.current?.cluster?.describe() ?? [])];
  }

  async stop(): Promise<void> {
    const cur = this.current;
    this.current = undefined;
    await cur?.scheduler.stop();
    await cur?.cluster?.stop();
    await cur?.configChanges?.stop();
  }
}
