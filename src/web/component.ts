/**
 * The web areas of a running server as one component: the monitoring area (HTTP,
 * `serverhttpport`, bound per `serverhttpaddresses`) and the administration area (HTTPS,
 * `serverhttpsport`, `serverhttpsaddresses`, the `admkeypath` key store). A port <= 0 disables an
 * area. One live broadcaster feeds both from the engine's events.
 */
import type { Logger } from 'pino';
import { sendMessage } from '../client/message.js';
import { securityOf, type ServerConfig } from '../config/index.js';
import { AuthGuard } from '../http/auth-guard.js';
import type { RestServices } from '../http/context.js';
import type { ConnectionPool } from '../net/pool.js';
import { RateLimitedLog } from '../net/rate-log.js';
import { loadTlsMaterial } from '../net/tls.js';
import { formatIsoLocal } from '../model/iso-date.js';
import type { LiveTransfers } from '../operations/index.js';
import { createAdminApp } from './admin/app.js';
import { SessionStore } from './admin/sessions.js';
import { ChartData } from './chart-data.js';
import { DatabaseFeed } from './db-feed.js';
import { headerFacts } from './facts.js';
import { LiveBroadcaster, type BroadcasterOptions, type TransferEvents } from './live.js';
import { createMonitorApp } from './monitor-app.js';
import { WebListener } from './server.js';
import type { WebServices } from './services.js';
import { StatusDocuments } from './status-doc.js';

export interface WebAreaDeps {
  config: ServerConfig;
  log: Logger;
  services: () => RestServices;
  /** The running engine: its start/progress/end events, and the live side of transfer orders. */
  events: () => (TransferEvents & LiveTransfers) | undefined;
  /** The R66 connection pool, for the Hosts page's connection test. */
  pool?: () => ConnectionPool;
  /** Closes the R66 connections with a partner, both ways (R66Network.closePartner), for the Hosts page. */
  closeConnections?: (hostId: string) => Promise<number>;
}

export class WebAreas {
  readonly name = 'web';
  private live: LiveBroadcaster | undefined;
  private charts: ChartData | undefined;
  private listeners: WebListener[] = [];

  constructor(private readonly deps: WebAreaDeps) {}

  private webServices(): WebServices {
    const { deps } = this;
    const pool = deps.pool;
    return {
      rest: deps.services(),
      events: deps.events,
      serverLang: { value: 'en' },
      ...(pool !== undefined ? { testConnection: async (hostId: string) => (await sendMessage(pool(), hostId, 'CheckConnection', deps.config.limits.timeoutCon)).answer } : {}),
      ...(deps.closeConnections !== undefined ? { closeConnections: deps.closeConnections } : {}),
    };
  }

  /** What the pages show live besides the engine's events: rows any writer changed, the header figures. */
  private liveSources(services: WebServices): Pick<BroadcasterOptions, 'hostId' | 'feed' | 'facts' | 'formatTime' | 'onFeedError'> {
    const rest = services.rest;
    return {
      hostId: this.deps.config.hostId, feed: new DatabaseFeed(rest.store.runner), facts: () => headerFacts(rest.counters, rest.config.limits.runLimit), formatTime: formatIsoLocal,
      onFeedError: (err) => this.deps.log.warn({ err: String(err) }, 'web live rows: reading the changed transfers failed (the pages show the engine events only until it works again)'),
    };
  }

  async start(): Promise<void> {
    const { network } = this.deps.config;
    if (network.serverHttpPort <= 0 && network.serverHttpsPort <= 0) return;
    const services = this.webServices();
    const security = securityOf(this.deps.config);
    const live = new LiveBroadcaster({ maxPerClient: security.maxEventStreamsPerClient, warnings: new RateLimitedLog(this.deps.log, security.warnIntervalMs), ...this.liveSources(services) });
    const events = this.deps.events();
    if (events !== undefined) live.attach(events);
    live.start();
    this.live = live;
    if (network.serverHttpPort > 0) {
      const status = new StatusDocuments(services.rest);
      const charts = new ChartData({ runner: services.rest.store.runner, hostId: this.deps.config.hostId, counters: services.rest.counters });
      charts.start();
      this.charts = charts;
      this.listeners.push(new WebListener('web-monitoring', network.serverHttpPort, network.serverHttpAddresses, () => createMonitorApp({ services, live, status, charts }), 'web monitoring'));
    }
    if (network.serverHttpsPort > 0) {
      const admin = await this.adminArea(services, live);
      if (admin !== undefined) this.listeners.push(admin);
    }
    try {
      for (const l of this.listeners) await l.start();
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** The HTTPS administration area, or undefined (with a warning) when no admin key store is configured. */
  private async adminArea(services: WebServices, live: LiveBroadcaster): Promise<WebListener | undefined> {
    const { config, log } = this.deps;
    const { server, network } = config;
    if (server.adminKeyPath === undefined) {
      log.warn({ port: network.serverHttpsPort }, 'serverhttpsport is set but server/admkeypath is not: the HTTPS administration area is off (give admkeypath, admkeystorepass and admkeypass)');
      return undefined;
    }
    const tls = (await loadTlsMaterial({ keyPath: server.adminKeyPath, keyStorePass: server.adminKeyStorePassword, keyPass: server.adminKeyPassword })).server;
    const rest = services.rest;
    // The order service REST uses, built by the composition (server/rest-services.ts).
    const orders = rest.orders;
    const ctx = { services, orders, blocked: { value: false }, sessions: new SessionStore(config.hostId), guard: new AuthGuard(securityOf(config), log, Date.now, 'web administration'), live };
    return new WebListener('web-admin', network.serverHttpsPort, network.serverHttpsAddresses, () => createAdminApp(ctx, tls), 'web admin (login with serveradmin or a client-only partner)');
  }

  describe(): string[] {
    return this.listeners.flatMap((l) => l.describe());
  }

  /** Bound ports of each area (tests with port 0). */
  ports(): Record<string, number[]> {
    return Object.fromEntries(this.listeners.map((l) => [l.name, l.boundPorts]));
  }

  async stop(): Promise<void> {
    this.live?.close();
    this.live = undefined;
    this.charts?.stop();
    this.charts = undefined;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners.reverse()) await l.stop();
  }
}
