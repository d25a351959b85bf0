/**
 * The R66 listener (plain TCP, default port 6666, or TLS, default 6667): one Connection per
 * accepted socket, channels served by acceptor.ts. A server lifecycle component.
 */
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { acceptChannel } from './acceptor.js';
import { LISTEN_BACKLOG, r66Limits, type Admission, type HostConnections, type ListenerGate } from './connection-gate.js';
import { Connection } from './connection.js';
import type { NetContext, NetGuard } from './context.js';
import { reportFdExhaustion } from './fd-limit.js';
import { adoptAccepted, SocketReads } from './socket-reads.js';
import type { TlsMaterial } from './tls.js';

export const DEFAULT_PORT = 6666;
export const DEFAULT_TLS_PORT = 6667;

export interface ListenerOptions {
  /** Component name for the lifecycle's logs. */
  name?: string;
  port: number;
  /** Addresses to bind (server.xml `serveraddresses`); empty = all interfaces. */
  addresses?: string[];
  /** TLS material: present for the TLS port. */
  tls?: TlsMaterial;
}

export class R66Listener {
  readonly name: string;
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  /** Raw sockets of the TLS port (a TLS socket in its handshake is not a Connection yet). */
  private readonly handshaking = new Set<Socket>();
  /** The connection limits' bookkeeping (connection-gate.ts), made from the context's guard. */
  private gates: { of: HostConnections; gate: ListenerGate } | undefined;

  constructor(
    private readonly ctx: NetContext,
    private readonly options: ListenerOptions,
  ) {
    this.name = options.name ?? (options.tls ? 'r66-tls-listener' : 'r66-listener');
  }

  /** Bound ports (after start), one per address (all equal); useful with port 0 in tests. */
  get ports(): number[] {
    return this.servers.map((s) => (s.address() as AddressInfo).port);
  }

  get port(): number {
    const p = this.ports[0];
    if (p === undefined) throw new Error(`${this.name} is not started`);
    return p;
  }

  /** Connections currently open. */
  get openConnections(): number {
    return this.connections.size;
  }

  /** Connections refused by the connection limits since start (sheddings and deadlines not counted). */
  get refusedConnections(): number {
    return this.gates?.gate.refused ?? 0;
  }

  /** The gate's counters (refused, shed, closed by the deadline, pending now); undefined without limits. */
  get gate(): ListenerGate | undefined {
    return this.gates?.gate;
  }

  /** This listener's gate in the guard's host connections (a new one when the guard changed: tests). */
  private gateOf(guard: NetGuard): ListenerGate {
    if (this.gates?.of !== guard.connections) {
      const gate = guard.connections.listener(this.name);
      gate.onRefuse = (limit) => this.ctx.notify?.('overloaded', `${this.name}: connection refused`, limit);
      this.gates = { of: guard.connections, gate };
    }
    return this.gates.gate;
  }

  /**
   * Admits an accepted socket through the gate of the context's guard (none: no limits); undefined
   * when refused, after which the caller destroys the socket.
   */
  private admit(socket: Socket): Admission | null | undefined {
    const guard: NetGuard | undefined = this.ctx.guard;
    if (guard === undefined) return null;
    return this.gateOf(guard).admit(socket, r66Limits(guard));
  }

  async start(): Promise<void> {
    // `serveraddresses` is a comma list: "127.0.0.1, ::1" names two addresses.
    const given = (this.options.addresses ?? []).map((a) => a.trim()).filter((a) => a.length > 0);
    const addresses = given.length > 0 ? given : [undefined];
    try {
      // Every address gets the same port; with port 0 (tests) the first one bound picks it.
      let port = this.options.port;
      for (const address of addresses) {
        const server = await this.listenOn(address, port);
        this.servers.push(server);
        port = (server.address() as AddressInfo).port;
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  private listenOn(address: string | undefined, port: number): Promise<Server> {
    const tls = this.options.tls;
    const guard = this.ctx.guard;
    const server = tls
      ? createTlsServer(guard === undefined ? tls.server : { ...tls.server, handshakeTimeout: guard.handshakeTimeoutMs }, (socket) => this.onSocket(socket))
      : createTcpServer({ pauseOnConnect: true }, (socket) => this.onSocket(socket));
    if (tls) {
      // The limits apply before the TLS handshake: a flood of sockets that never shake hands
      // must not hold file descriptors either.
      server.on('connection', (raw: Socket) => {
        if (this.admit(raw) === undefined) {
          raw.destroy();
          return;
        }
        this.handshaking.add(raw);
        raw.once('close', () => this.handshaking.delete(raw));
      });
      server.on('tlsClientError', (err: Error, socket: TLSSocket) => {
        this.ctx.notify?.('error', 'SSL Connection Error', 'During Handshake');
        if (guard !== undefined) guard.warnings.info('tls-handshake', { err: err.message, ip: socket.remoteAddress }, 'TLS handshake failed');
        else this.ctx.logger.info({ err: err.message, ip: socket.remoteAddress }, 'TLS handshake failed');
      });
    }
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: address, backlog: LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        // Out of descriptors at accept: one ERROR a minute (fd-limit.ts), not one per attempt.
        server.on('error', (err) => {
          if (!reportFdExhaustion(this.ctx.logger, err, `${this.name} accept`)) this.ctx.logger.error({ err: err.message }, `${this.name} error`);
        });
        resolve(server);
      });
    });
  }

  private onSocket(accepted: Socket | TLSSocket): void {
    if (this.ctx.blacklist.isBanned(accepted.remoteAddress)) {
      // Accept then close, nothing sent (§1.4).
      accepted.destroy();
      this.ctx.notify?.('error', 'Black Listed connection temptative', this.options.tls === undefined ? 'During connection' : 'During Handshake');
      return;
    }
    // Refused before anything is built for it: a flood's refused sockets cost an accept and a close.
    if (this.options.tls === undefined && this.ctx.guard !== undefined && !this.gateOf(this.ctx.guard).precheck(accepted, r66Limits(this.ctx.guard))) {
      accepted.destroy();
      return;
    }
    // A plain socket (accepted paused) goes on as one reading into the shared buffer; a TLS one,
    // or one that cannot be adopted, reads through its 'data' events.
    const reads = this.options.tls === undefined ? new SocketReads() : undefined;
    const adopted = reads === undefined ? null : adoptAccepted(accepted, reads);
    const socket = adopted ?? accepted;
    // A TLS socket was admitted as its raw connection (listenOn); a plain one is admitted now.
    const admission = this.options.tls === undefined ? this.admit(socket) : this.gates?.gate.find(socket);
    if (admission === undefined && (this.options.tls === undefined || this.ctx.guard !== undefined)) {
      socket.destroy();
      return;
    }
    if (adopted === null) accepted.resume();
    socket.setKeepAlive(true);
    socket.setNoDelay(true);
    const guard = this.ctx.guard;
    const connection = new Connection(socket, {
      isTls: this.options.tls !== undefined,
      timeoutConMs: this.ctx.timeoutConMs,
      maxFrameLength: this.ctx.maxFrameLength,
      logger: this.ctx.logger,
      notify: this.ctx.notify,
      onNewChannel: (channel) => acceptChannel(this.ctx, channel),
      reads: adopted === null ? undefined : reads,
      handshakeFrameBytes: guard?.handshakeFrameBytes,
      budget: guard?.budget,
      warnings: guard?.warnings,
    });
    this.connections.add(connection);
    // Authenticated: no deadline any more, never shed, and its address trusted (connection-gate.ts).
    if (admission !== null && admission !== undefined) connection.once('authenticated', () => admission.authenticated());
    socket.once('close', () => this.connections.delete(connection));
  }

  /** Closes the accepted connections on which the partner `hostId` authenticated; resolves with how many. */
  async closePartner(hostId: string, reason: Error): Promise<number> {
    const found = [...this.connections].filter((c) => c.partnerIds.has(hostId));
    for (const c of found) c.close(reason);
    await Promise.all(found.map((c) => c.closed));
    return found.length;
  }

  /** The server shuts down: "Shutdown forced" on every open channel of its connections (§9.12). */
  notifyShutdown(): void {
    for (const c of this.connections) c.notifyShutdown();
  }

  /** Stops accepting and closes every connection (channels fail with Disconnection). */
  async stop(): Promise<void> {
    const closing = this.servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    // A peer that never authenticated has nothing to flush: dropped at once, so a flood of them
    // cannot hold the shutdown until each one's close timeout.
    for (const c of this.connections) {
      if (c.authenticated) c.close();
      else {
        c.close();
        c.socket.destroy();
      }
    }
    await Promise.all([...this.connections].map((c) => c.closed));
    // TLS sockets still in their handshake never became connections: the server's close waits for them.
    for (const raw of this.handshaking) raw.destroy();
    await Promise.all(closing);
  }
}
