/**
 * The connection layer of a host, built from its loaded configuration: the shared NetContext, the
 * connection pool for outgoing conversations, and (for a server) the plain and TLS listeners.
 * `R66Network` is the server lifecycle component; clients use `openClientNetwork`.
 */
import type { Logger } from 'pino';
import type { DirectoryConfig, LimitConfig, SecurityConfig, ServerConfig, SslConfig } from '../config/index.js';
import { decryptPasswordHexBytes, securityOf } from '../config/index.js';
import { digestFromIndex } from '../model/digest.js';
import { ErrorCode } from '../model/error-code.js';
import type { Host } from '../model/host.js';
import type { Notify } from '../model/notifications.js';
import type { Rule } from '../model/rule.js';
import type { TransferKey, TransferRecord } from '../model/transfer.js';
import { DEFAULT_MAX_FRAME_LENGTH } from '../protocol/index.js';
import { Blacklist, blacklistOptionsFrom, hostProxifiedFrom } from './blacklist.js';
import { BufferBudget } from './buffer-budget.js';
import { hostConnectionsOf } from './connection-gate.js';
import { informationHandler, transferCheckFrom } from './commands/information.js';
import { baseJsonCommandHandler } from './commands/json-base.js';
import { handleTest } from './commands/test-message.js';
import type { NetContext } from './context.js';
import { RequestHandlers } from './handlers.js';
import { R66Listener } from './listener.js';
import { partnerDirectoryFrom } from './partner.js';
import { ConnectionPool } from './pool.js';
import { R66Error } from '../model/r66-error.js';
import { RateLimitedLog } from './rate-log.js';
import { loadTlsMaterial, type TlsMaterial } from './tls.js';

/** What the connection layer reads from server.xml or client.xml. */
export interface HostNetSettings {
  hostId: string;
  sslHostId: string | undefined;
  identity: { cryptoKey: Buffer };
  limits: LimitConfig;
  ssl: SslConfig | null;
  directories: DirectoryConfig;
  /** server.xml `security`; defaults when absent. */
  security?: SecurityConfig;
}

/** Database (or authent.xml) lookups the layer needs. */
export interface NetLookups {
  findHost(hostId: string): Promise<Host | undefined>;
  findRule(ruleId: string): Promise<Rule | undefined>;
  /** A transfer record of this host, for Information on a transfer by id (kind -1). */
  findTransfer?(key: TransferKey): Promise<TransferRecord | undefined>;
}

export interface NetOptions {
  logger: Logger;
  /** server.xml `checkaddress` / `checkclientaddress`. */
  checkAddress?: boolean;
  checkClientAddress?: boolean;
  /** This host is behind a proxy (original: `openr66.ishostproxyfied`): no blacklisting. */
  proxified?: boolean;
  /** Where the JVM-property equivalents are read (blacklist.ts); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Handlers registry to use (so other modules can register theirs before start). */
  handlers?: RequestHandlers;
  /** Application notifications (the server's SNMP agent); absent: none. */
  notify?: Notify;
}

/** The frame cap: the protocol's default, or more when blocks are configured larger. */
function maxFrameLength(limits: LimitConfig): number {
  return Math.max(DEFAULT_MAX_FRAME_LENGTH, limits.blockSize + 64 * 1024);
}

/** Builds the shared context and registers the built-in commands (message, information). */
export function buildNetContext(settings: HostNetSettings, lookups: NetLookups, options: NetOptions): NetContext {
  const handlers = options.handlers ?? new RequestHandlers();
  handlers.registerDefault('test', handleTest);
  handlers.registerDefault('jsonCommand', baseJsonCommandHandler(handlers));
  handlers.registerDefault(
    'information',
    informationHandler({
      findRule: lookups.findRule,
      serverHome: settings.directories.serverHome,
      defaultOutPath: settings.directories.virtual.out,
      requestCheck: lookups.findTransfer && transferCheckFrom(settings.hostId, lookups.findTransfer),
    }),
  );
  const timeoutConMs = settings.limits.timeoutCon;
  const env = options.env ?? process.env;
  const blacklist = blacklistOptionsFrom(env, timeoutConMs, options.proxified ?? false);
  return {
    identity: {
      hostId: settings.hostId,
      sslHostId: settings.sslHostId,
      digest: digestFromIndex(settings.limits.digest),
      globalDigest: settings.limits.globalDigest,
      compression: settings.limits.compression,
      proxified: hostProxifiedFrom(env, options.proxified ?? false),
    },
    directory: partnerDirectoryFrom(lookups.findHost, (hex) => decryptPasswordHexBytes(settings.identity.cryptoKey, hex)),
    handlers,
    blacklist: new Blacklist(blacklist),
    timeoutConMs,
    maxFrameLength: maxFrameLength(settings.limits),
    checkAddress: options.checkAddress,
    checkClientAddress: options.checkClientAddress,
    reuseAuthentication: env.SVC_R66_AUTHENT_NOREUSE !== '1',
    logger: options.logger,
    ...(options.notify ? { notify: options.notify } : {}),
    guard: netGuardFrom(settings, options.logger),
  };
}

/** The listeners' limits; one buffer budget and one rate-limited log for the whole host. */
function netGuardFrom(settings: HostNetSettings, logger: Logger): NetContext['guard'] {
  const security = securityOf(settings);
  return {
    maxConnections: security.maxConnections,
    maxConnectionsPerAddress: security.maxConnectionsPerAddress,
    maxUnauthenticated: security.maxUnauthenticated,
    connections: hostConnectionsOf(settings, security, logger),
    handshakeFrameBytes: security.handshakeFrameBytes,
    handshakeTimeoutMs: security.handshakeTimeoutMs,
    budget: new BufferBudget(security.bufferedBytes),
    warnings: new RateLimitedLog(logger, security.warnIntervalMs),
  };
}

/** TLS material from the `ssl` section, or undefined without one. */
export async function tlsMaterialFor(ssl: SslConfig | null): Promise<TlsMaterial | undefined> {
  if (ssl === null) return undefined;
  return loadTlsMaterial({
    keyPath: ssl.keyPath,
    keyStorePass: ssl.keyStorePassword,
    keyPass: ssl.keyPassword,
    trustKeyPath: ssl.trustKeyPath,
    trustKeyStorePass: ssl.trustKeyStorePassword,
    trustUseClientAuthenticate: ssl.trustUseClientAuthenticate,
  });
}

/** A client's network: context and pool, closed by the caller when done. */
export async function openClientNetwork(settings: HostNetSettings, lookups: NetLookups, options: NetOptions): Promise<{ ctx: NetContext; pool: ConnectionPool }> {
  const ctx = buildNetContext(settings, lookups, options);
  return { ctx, pool: new ConnectionPool(ctx, await tlsMaterialFor(settings.ssl)) };
}

/**
 * The server's R66 network as one lifecycle component: at start (after the database) it builds the
 * context, opens the plain listener (`usenossl`) and the TLS one (`usessl`); at stop it sends the
 * "Shutdown forced" notice to every local channel still open (r66-protocol.md §9.12), then closes
 * the listeners and the outgoing connections.
 */
export class R66Network {
  readonly name = 'r66-network';
  /** Register more commands here before start (transfer engine, admin commands). */
  readonly handlers = new RequestHandlers();
  private context: NetContext | undefined;
  private outgoing: ConnectionPool | undefined;
  private readonly listeners: R66Listener[] = [];

  constructor(
    private readonly config: ServerConfig,
    private readonly lookups: () => NetLookups,
    private readonly logger: Logger,
    /** Where the JVM-property equivalents are read (blacklist.ts); default `process.env`. */
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Application notifications (the server's SNMP agent), handed down by src/server. */
    private readonly notify?: Notify,
  ) {
    // The bottom of the JsonCommand chain, before other modules wrap it with theirs.
    this.handlers.register('jsonCommand', baseJsonCommandHandler(this.handlers));
  }

  get ctx(): NetContext {
    if (this.context === undefined) throw new Error('the R66 network is not started');
    return this.context;
  }

  /** R66 connections open now: accepted by the listeners plus opened to partners (0 before start). */
  get openConnections(): number {
    return this.listeners.reduce((n, l) => n + l.openConnections, 0) + (this.outgoing?.size ?? 0);
  }

  /** Outgoing connections to partners (one per partner). */
  get pool(): ConnectionPool {
    if (this.outgoing === undefined) throw new Error('the R66 network is not started');
    return this.outgoing;
  }

  async start(): Promise<void> {
    const { config } = this;
    const ctx = buildNetContext(config, this.lookups(), {
      logger: this.logger,
      checkAddress: config.server.checkAddress,
      checkClientAddress: config.server.checkClientAddress,
      handlers: this.handlers,
      env: this.env,
      ...(this.notify ? { notify: this.notify } : {}),
    });
    const tls = config.server.useSsl ? await tlsMaterialFor(config.ssl) : undefined;
    try {
      if (config.server.useNoSsl) {
        await this.startListener(ctx, { port: config.network.serverPort, addresses: config.network.serverAddresses });
      }
      if (config.server.useSsl && config.sslHostId !== undefined && tls !== undefined) {
        await this.startListener(ctx, { port: config.network.serverSslPort, addresses: config.network.serverSslAddresses, tls });
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.context = ctx;
    this.outgoing = new ConnectionPool(ctx, tls);
  }

  private async startListener(ctx: NetContext, options: ConstructorParameters<typeof R66Listener>[1]): Promise<void> {
    const listener = new R66Listener(ctx, options);
    await listener.start();
    this.listeners.push(listener);
  }

  /**
   * Closes every R66 connection with the partner `hostId`, outgoing (pool) and incoming (listeners):
   * the Hosts page's CloseConn (web-ui.md §2.4). Resolves with how many were closed.
   */
  async closePartner(hostId: string): Promise<number> {
    const reason = new R66Error(ErrorCode.Disconnection, `connections with ${hostId} closed by an administrator`);
    const counts = await Promise.all([this.outgoing?.closePartner(hostId, reason) ?? 0, ...this.listeners.map((l) => l.closePartner(hostId, reason))]);
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Incoming connections open now, on every listener (the pool counts the outgoing ones). */
  get incomingConnections(): number {
    return this.listeners.reduce((n, l) => n + l.openConnections, 0);
  }

  /** Connections the listeners refused by their limits since start (server.xml `security`). */
  get refusedConnections(): number {
    return this.listeners.reduce((n, l) => n + l.refusedConnections, 0);
  }

  /** Ports actually bound (plain first), for tests started on port 0. */
  get ports(): number[] {
    return this.listeners.flatMap((l) => l.ports);
  }

  describe(): string[] {
    return this.listeners.map((l) => `R66 ${l.name === 'r66-tls-listener' ? 'TLS' : 'plain'} listening on port ${l.ports.join(', ')}`);
  }

  async stop(): Promise<void> {
    const pool = this.outgoing;
    this.outgoing = undefined;
    pool?.notifyShutdown();
    for (const l of this.listeners) l.notifyShutdown();
    await pool?.close();
    for (const l of this.listeners.splice(0)) await l.stop();
  }
}
