/**
 * Monitoring as one server lifecycle component, started after the transfer service (it listens to
 * the engine's events) and stopped before it: Prometheus metrics and the health endpoint, push
 * monitoring (HTTP or Elasticsearch) and the SNMP agent, each only when configured.
 */
import type { Logger } from 'pino';
import { loadSnmpConfig, type ServerConfig } from '../config/index.js';
import { UpdatedInfo } from '../model/transfer.js';
import type { R66Network } from '../net/network.js';
import type { Store } from '../store/index.js';
import type { TransferEngine } from '../transfer/engine.js';
import { MetricsEndpoint } from './http-endpoint.js';
import { guardHttpServer } from '../net/http-gate.js';
import { DatabaseLease } from './leader.js';
import { HostMetrics } from './metrics.js';
import { ElasticsearchPushTarget } from './push/es-target.js';
import { PushExporter } from './push/exporter.js';
import { HttpPushTarget } from './push/http-target.js';
import { pushTls, type PushTarget } from './push/target.js';
import { SnmpService } from './snmp/agent.js';
import type { NotificationHub } from './snmp/hub.js';
import { loadMonitoringSettings, type MonitoringSettings } from './settings.js';

/** What monitoring reads of the running host (src/server's ServerRuntime is one). */
export interface MonitorRuntime {
  readonly config: ServerConfig;
  readonly log: Logger;
  readonly store: Store;
  /** The server's notification hub: the SNMP agent attaches its notifier to it. */
  readonly notifications?: NotificationHub;
}

export interface MonitorDeps {
  /** The transfer service: `engine` is the running engine and throws while it is stopped. */
  transfers: { readonly engine: TransferEngine };
  network: R66Network;
}

/** A started facility: what stops it and what it says in the start-up banner. */
export interface MonitorPart {
  stop(): Promise<void>;
  describe(): string[];
}

/**
 * The `<monitoring>` settings of each loaded configuration, read once with it: a restart that keeps
 * the previous configuration (its server.xml no longer loads) keeps these too instead of reading the
 * broken file again and stopping the process.
 */
const settingsOfConfig = new WeakMap<object, MonitoringSettings>();

async function settingsFor(config: { file: string }): Promise<MonitoringSettings> {
  const known = settingsOfConfig.get(config);
  if (known !== undefined) return known;
  const settings = await loadMonitoringSettings(config.file);
  settingsOfConfig.set(config, settings);
  return settings;
}

/** Open outgoing connections of the network's pool; 0 while the network is stopped. */
function openOutgoing(network: R66Network): number {
  try {
    return network.pool.size;
  } catch {
    return 0;
  }
}

/** A lifecycle component of the server (src/server/component.ts's Component). */
export class MonitorComponent {
  readonly name = 'monitoring';
  private parts: MonitorPart[] = [];
  private settingsValue: MonitoringSettings | undefined;

  constructor(private readonly runtime: MonitorRuntime, private readonly deps: MonitorDeps) {}

  get settings(): MonitoringSettings | undefined {
    return this.settingsValue;
  }

  /** The running engine, or undefined (stopped service). */
  engine(): TransferEngine | undefined {
    try {
      return this.deps.transfers.engine;
    } catch {
      return undefined;
    }
  }

  async start(): Promise<void> {
    const { config, log } = this.runtime;
    const settings = await settingsFor(config);
    this.settingsValue = settings;
    if (!settings.enabled) {
      log.warn('monitoring is off (SVC_MONITORING=off): no metrics, push monitoring nor SNMP');
      return;
    }
    try {
      if (settings.metricsPort > 0) this.parts.push(await this.startMetrics(settings));
      const push = await this.startPush(settings);
      if (push !== undefined) this.parts.push(push);
      const agent = await this.startSnmp();
      if (agent !== undefined) this.parts.push(agent);
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  describe(): string[] {
    return this.parts.flatMap((p) => p.describe());
  }

  async stop(): Promise<void> {
    for (const part of this.parts.splice(0).reverse()) await part.stop().catch(() => undefined);
  }

  /** The SNMP agent (§B) when `server/snmpconfig` names a file that loads; else SNMP is off (warning). */
  private async startSnmp(): Promise<MonitorPart | undefined> {
    const { config, log } = this.runtime;
    const file = config.server.snmpConfigFile;
    if (file === undefined) return undefined;
    const snmp = await loadSnmpConfig(file).catch((err: unknown) => {
      log.warn({ file, err: err instanceof Error ? err.message : String(err) }, 'SNMP disabled: snmpconfig cannot be loaded');
      return undefined;
    });
    if (snmp === undefined) return undefined;
    const { network } = this.deps;
    const service = new SnmpService(snmp, {
      hostId: config.hostId, port: config.server.useNoSsl ? config.network.serverPort : config.network.serverSslPort, store: () => this.runtime.store,
      engine: () => this.engine(), connections: () => network.incomingConnections + openOutgoing(network), minimalDelayMs: config.server.minimalDelay,
      logger: log.child({ component: 'snmp' }), ...(this.runtime.notifications ? { hub: this.runtime.notifications } : {}),
    });
    try {
      await service.start();
    } catch (err) {
      // A port taken or privileged (161 as non-root) must not keep the server from running.
      log.warn({ file, err: err instanceof Error ? err.message : String(err) }, 'SNMP disabled: the agent cannot start');
      await service.stop().catch(() => undefined);
      return undefined;
    }
    return { stop: () => service.stop(), describe: () => service.describe() };
  }

  /** Push monitoring (§A) when `pushMonitor` has a url; in a cluster only the lease holder pushes. */
  private async startPush(settings: MonitoringSettings): Promise<MonitorPart | undefined> {
    const { config, log } = this.runtime;
    const push = config.pushMonitor;
    if (push === null) return undefined;
    if (settings.pushLeader === 'never') {
      log.info('push monitoring configured but <monitoring><pushleader> is never on this member: another member pushes');
      return undefined;
    }
    const https = push.url.split(',').some((u) => u.trim().toLowerCase().startsWith('https:'));
    const tls = https ? await pushTls(config.ssl, settings.pushInsecure) : undefined;
    const timeoutMs = config.limits.timeoutCon;
    const logger = log.child({ component: 'push-monitor' });
    const target: PushTarget = push.kind === 'rest'
      ? new HttpPushTarget(push, config.hostId, settings.brand === 'svc' ? 'X-SVC' : 'X-WAARP', timeoutMs, tls)
      : new ElasticsearchPushTarget(push, { hostId: config.hostId, timeoutMs, tls, service: settings.searchService, logger });
    const lease = settings.pushLeader === 'auto' ? new DatabaseLease({ job: 'pushmonitor', hostId: config.hostId, store: () => this.runtime.store, logger }) : undefined;
    await lease?.start();
    const exporter = new PushExporter({
      hostId: config.hostId, store: () => this.runtime.store, target, delayMs: push.delay, intervalIncluded: push.intervalIncluded,
      transformLongAsString: push.transformLongAsString, intervalKey: settings.brand === 'svc' ? 'svcMonitor' : 'waarpMonitor', logger, ...(lease ? { lease } : {}),
    });
    exporter.start();
    return {
      stop: async () => { await exporter.stop(); await lease?.stop(); },
      describe: () => [`${target.describe()} every ${push.delay} ms${lease ? ' (one member of the cluster pushes: database lease)' : ''}`],
    };
  }

  private async startMetrics(settings: MonitoringSettings): Promise<MonitorPart> {
    const { runtime, deps } = this;
    const { config } = runtime;
    const metrics = new HostMetrics({
      engine: () => this.engine(),
      outgoingConnections: () => openOutgoing(deps.network),
      incomingConnections: () => deps.network.incomingConnections,
      refusedConnections: () => deps.network.refusedConnections,
      queued: () => runtime.store.runner.count({ ownerReq: config.hostId, updatedInfo: [UpdatedInfo.TOSUBMIT] }),
      queueRefreshMs: Math.max(config.server.minimalDelay, 1000),
      // Scrapers a second apart or less (an HA pair of Prometheus servers) share one collection.
      scrapeCacheMs: 1000,
    }, config.hostId);
    metrics.attach();
    const endpoint = new MetricsEndpoint({
      port: settings.metricsPort, address: settings.metricsAddress, metricsPath: settings.metricsPath, healthPath: settings.healthPath,
      metrics: () => metrics.text(), contentType: metrics.registry.contentType,
      guard: (server) => guardHttpServer(server, 'metrics', config, runtime.log),
      health: {
        database: async () => { await runtime.store.hostConfigs.get(config.hostId); },
        listeners: () => ({ ports: deps.network.ports, expected: (config.server.useNoSsl ? 1 : 0) + (config.server.useSsl ? 1 : 0) }),
      },
    });
    await endpoint.start();
    return {
      // A restart builds new metrics: this registry's collectors go with it.
      stop: async () => { metrics.detach(); await endpoint.stop(); metrics.registry.clear(); },
      describe: () => [`metrics on http://${settings.metricsAddress}:${endpoint.port}${settings.metricsPath}, health on ${settings.healthPath}`],
    };
  }
}
