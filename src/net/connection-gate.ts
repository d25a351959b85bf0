/**
 * Who may hold a socket of this host (issue 32 item 2). Every TCP listener (R66, R66-TLS, REST,
 * web monitoring, web admin, metrics) admits each accepted socket through its `ListenerGate`:
 *
 * - per-address cap: beyond it the new socket is closed at once (refused);
 * - "pending" connections (R66: not authenticated yet; HTTP: no request in progress) have a
 *   deadline, and their own budget per listener: when the budget, or the listener's cap, or the
 *   host's total is full, the oldest pending connection is shed to admit the new one, so a flood of
 *   idle sockets, however many addresses it comes from, can never lock out a partner that
 *   authenticates, nor one already authenticated (an authenticated connection is never shed);
 * - which pending connection is shed: the oldest one of an address that opened several connections
 *   in the last minute (a reconnecting flood), else the oldest of an address that is not trusted,
 *   else the oldest; addresses that authenticated on R66 are "trusted". So a new partner's single
 *   connection outlives every reconnecting attacker's, and a known partner's outlives the rest;
 * - one total for all listeners of the host, below the process's open-file limit (fd-limit.ts).
 *
 * Refusals and sheddings are logged at WARN once per address, kind and `warninterval`, and at most
 * MAX_ADDRESSES_PER_PERIOD addresses a period (then one line for the rest), so a flood cannot fill
 * the log.
 */
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { SecurityConfig } from '../config/index.js';
import { normaliseIp } from './blacklist.js';
import { connectionCeiling, openFileLimit } from './fd-limit.js';
import { RateLimitedLog } from './rate-log.js';

/** One listener's limits, with the server.xml element names the log lines quote. */
export interface GateLimits {
  maxConnections: number;
  maxPerAddress: number;
  /** Pending connections this listener holds at most (beyond: the oldest is shed). */
  maxPending: number;
  /** How long a connection may stay pending, ms. */
  pendingDeadlineMs: number;
  /** Element names: of the three caps above, and of the deadline. */
  names: { maxConnections: string; maxPerAddress: string; maxPending: string; deadline: string };
  /** What "pending" means on this listener, for the log ("not authenticated", "no request"). */
  pendingMeaning: string;
  /** HTTP: how long a request has, from its headers, to arrive whole (`httprequesttimeout`), ms. */
  requestDeadlineMs?: number;
}

/**
 * The listen backlog of every listener (the kernel caps it at net.core.somaxconn): under a
 * reconnecting flood the accept queue overflows with Node's 511, and a partner's handshake then
 * waits for SYN retransmissions (1 s, 3 s, 7 s...) instead of its turn in the queue.
 */
export const LISTEN_BACKLOG = 4096;

/** Addresses logged per kind and period at most; the others share one line. */
const MAX_ADDRESSES_PER_PERIOD = 50;
/** Addresses remembered as trusted at most (the least recently authenticated are forgotten). */
const MAX_TRUSTED = 4096;
/** Window over which an address's connections are counted to tell a reconnecting one. */
const REPEAT_WINDOW_MS = 60_000;
/** Addresses whose recent connections are counted at most (the oldest are forgotten). */
const MAX_COUNTED = 16_384;
/** Total when the open-file limit cannot be read and server.xml gives none. */
const FALLBACK_TOTAL = 4096;

/** WARN lines keyed by kind and address, bounded per period (see the module comment). */
export class AddressLog {
  private readonly log: RateLimitedLog;
  private periodStart = -Infinity;
  private readonly addressesThisPeriod = new Map<string, number>();

  constructor(logger: Logger, private readonly intervalMs: number, private readonly now: () => number = Date.now) {
    this.log = new RateLimitedLog(logger, intervalMs, now);
  }

  warn(kind: string, ip: string, fields: Record<string, unknown>, msg: string): void {
    const t = this.now();
    if (t - this.periodStart >= this.intervalMs) {
      this.periodStart = t;
      this.addressesThisPeriod.clear();
    }
    const seen = this.addressesThisPeriod.get(kind) ?? 0;
    if (seen < MAX_ADDRESSES_PER_PERIOD) {
      if (this.log.warn(`${kind}:${ip}`, { ip, ...fields }, msg)) this.addressesThisPeriod.set(kind, seen + 1);
    } else {
      this.log.warn(`${kind}:*`, { ip, ...fields, addresses: `more than ${MAX_ADDRESSES_PER_PERIOD} this period` }, `${msg} (further addresses: one line per period)`);
    }
  }
}

/** The connections of one host, over all its listeners. */
export class HostConnections {
  open = 0;
  /** Pending connections of every listener, oldest first. */
  readonly pending = new Set<Admission>();
  private readonly trusted = new Map<string, true>();
  /** Connections admitted per address in the current window. */
  private readonly recent = new Map<string, { count: number; since: number }>();

  constructor(
    readonly maxTotal: number,
    readonly log: AddressLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts an admission of `ip` in its window. */
  noteAdmission(ip: string): void {
    const t = this.now();
    const r = this.recent.get(ip);
    if (r !== undefined && t - r.since < REPEAT_WINDOW_MS) {
      r.count++;
      return;
    }
    this.recent.delete(ip);
    if (this.recent.size >= MAX_COUNTED) this.recent.delete(this.recent.keys().next().value as string);
    this.recent.set(ip, { count: 1, since: t });
  }

  /** True when `ip` opened more than one connection in its current window. */
  repeats(ip: string): boolean {
    const r = this.recent.get(ip);
    return r !== undefined && r.count > 1 && this.now() - r.since < REPEAT_WINDOW_MS;
  }

  /** An address on which a partner authenticated: its pending connections are shed last. */
  trust(ip: string): void {
    this.trusted.delete(ip);
    if (this.trusted.size >= MAX_TRUSTED) this.trusted.delete(this.trusted.keys().next().value as string);
    this.trusted.set(ip, true);
  }

  isTrusted(ip: string): boolean {
    return this.trusted.has(ip);
  }

  /**
   * The pending connection of `among` to shed: the oldest of a reconnecting untrusted address, else
   * the oldest untrusted one, else the oldest (see the module comment).
   */
  victim(among: Set<Admission>): Admission | undefined {
    let untrusted: Admission | undefined;
    let first: Admission | undefined;
    for (const a of among) {
      first ??= a;
      if (this.isTrusted(a.ip)) continue;
      if (this.repeats(a.ip)) return a;
      untrusted ??= a;
    }
    return untrusted ?? first;
  }

  /** A listener's gate, counting into this host's total. */
  listener(name: string): ListenerGate {
    return new ListenerGate(name, this);
  }
}

/** One accepted socket, counted until it closes. */
export class Admission {
  private busy = 0;
  private proven = false;
  private timer: NodeJS.Timeout | undefined;
  private released = false;

  constructor(
    readonly gate: ListenerGate,
    readonly socket: Socket,
    readonly ip: string,
    private readonly limits: GateLimits,
  ) {}

  get isPending(): boolean {
    return !this.released && !this.proven && this.busy === 0;
  }

  /** R66: the peer authenticated: never pending again, and its address is trusted. */
  authenticated(): void {
    if (this.released || this.proven) return;
    this.proven = true;
    this.gate.leavePending(this);
    this.gate.host.trust(this.ip);
  }

  /** HTTP: a request is in progress (headers complete). */
  begin(): void {
    if (this.released) return;
    if (this.busy++ === 0) this.gate.leavePending(this);
  }

  /** HTTP: a request ended; without another in progress the connection is pending again. */
  end(): void {
    if (this.released || this.busy === 0) return;
    if (--this.busy === 0 && !this.proven) this.gate.enterPending(this);
  }

  /** (Re)starts the pending deadline. */
  arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.isPending) return;
      const { names, pendingDeadlineMs, pendingMeaning } = this.limits;
      this.gate.host.log.warn(`deadline:${this.gate.name}`, this.ip, { listener: this.gate.name }, `${this.gate.name}: connection closed: ${pendingMeaning} within ${names.deadline} ${pendingDeadlineMs} ms`);
      this.gate.deadlineClosed++;
      this.drop();
    }, this.limits.pendingDeadlineMs);
    this.timer.unref();
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Closes the socket now; the counts are released at once (the close event comes later). */
  drop(): void {
    this.release();
    this.socket.destroy();
  }

  /** Idempotent: the socket closed or was dropped. */
  release(): void {
    if (this.released) return;
    this.gate.leavePending(this);
    this.released = true;
    this.gate.forget(this);
  }
}

export class ListenerGate {
  /** Connections open now on this listener. */
  open = 0;
  /** Sockets refused by a cap since start. */
  refused = 0;
  /** Pending connections dropped to make room since start. */
  shed = 0;
  /** Told of each refusal with the limit reached (the R66 listener's SNMP notification). */
  onRefuse: ((limit: string) => void) | undefined;
  /** Pending connections closed by their deadline since start. */
  deadlineClosed = 0;
  /** HTTP connections closed because their request did not arrive whole in time, since start. */
  requestDeadlineClosed = 0;
  private readonly pending = new Set<Admission>();
  private readonly perAddress = new Map<string, number>();
  /** Pending connections per address (a reconnecting address that holds some may not shed others). */
  private readonly pendingPerAddress = new Map<string, number>();
  /** By remote address and port: a TLS socket finds the admission of the raw socket under it. */
  private readonly bySocket = new Map<string, Admission>();

  constructor(readonly name: string, readonly host: HostConnections) {}

  /** Pending connections of this listener now. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * The refusals that shed nothing (per-address cap, a reconnecting address when full): false after
   * logging; cheap, so a listener may ask before it builds anything for the socket.
   */
  precheck(socket: Socket, limits: GateLimits): boolean {
    const ip = normaliseIp(socket.remoteAddress ?? '');
    if ((this.perAddress.get(ip) ?? 0) >= limits.maxPerAddress) return this.refuse(ip, `${limits.names.maxPerAddress} ${limits.maxPerAddress}`) ?? false;
    // When full, a reconnecting address that still holds pending connections here is refused
    // rather than shedding: flooders cannot displace one another (churn costs one accept and one
    // close), only newcomers and trusted addresses displace them.
    const full = this.fullAt(limits);
    if (full !== undefined && (this.pendingPerAddress.get(ip) ?? 0) > 0 && this.host.repeats(ip) && !this.host.isTrusted(ip)) return this.refuse(ip, full, 'this address reconnects while its connections wait') ?? false;
    return true;
  }

  /** Admits an accepted socket (it starts pending), or returns undefined after logging why not: the caller destroys it. */
  admit(socket: Socket, limits: GateLimits): Admission | undefined {
    if (!this.precheck(socket, limits)) return undefined;
    const ip = normaliseIp(socket.remoteAddress ?? '');
    // Room is made by shedding pending connections; the authenticated (or busy) ones are never touched.
    while (this.open >= limits.maxConnections || this.pending.size >= limits.maxPending) {
      const full = this.open >= limits.maxConnections ? `${limits.names.maxConnections} ${limits.maxConnections}` : `${limits.names.maxPending} ${limits.maxPending}`;
      if (!this.shedOne(this.host.victim(this.pending), full)) return this.refuse(ip, full);
    }
    while (this.host.open >= this.host.maxTotal) {
      const full = `maxtotalconnections ${this.host.maxTotal}`;
      if (!this.shedOne(this.host.victim(this.host.pending), full)) return this.refuse(ip, full);
    }
    const a = new Admission(this, socket, ip, limits);
    this.host.noteAdmission(ip);
    this.open++;
    this.host.open++;
    this.perAddress.set(ip, (this.perAddress.get(ip) ?? 0) + 1);
    this.bySocket.set(socketKey(socket), a);
    this.enterPending(a);
    socket.once('close', () => a.release());
    return a;
  }

  /** The limit that is full now (no room without shedding), or undefined. */
  private fullAt(limits: GateLimits): string | undefined {
    if (this.open >= limits.maxConnections) return `${limits.names.maxConnections} ${limits.maxConnections}`;
    if (this.pending.size >= limits.maxPending) return `${limits.names.maxPending} ${limits.maxPending}`;
    if (this.host.open >= this.host.maxTotal) return `maxtotalconnections ${this.host.maxTotal}`;
    return undefined;
  }

  /** The admission of a socket of this listener (the raw one, or a TLS socket over it). */
  find(socket: Socket): Admission | undefined {
    return this.bySocket.get(socketKey(socket));
  }

  enterPending(a: Admission): void {
    if (!this.pending.has(a)) this.pendingPerAddress.set(a.ip, (this.pendingPerAddress.get(a.ip) ?? 0) + 1);
    this.pending.add(a);
    this.host.pending.add(a);
    a.arm();
  }

  leavePending(a: Admission): void {
    a.disarm();
    if (this.pending.delete(a)) {
      const left = (this.pendingPerAddress.get(a.ip) ?? 1) - 1;
      if (left > 0) this.pendingPerAddress.set(a.ip, left);
      else this.pendingPerAddress.delete(a.ip);
    }
    this.host.pending.delete(a);
  }

  /** Called once by Admission.release(). */
  forget(a: Admission): void {
    this.open--;
    this.host.open--;
    const left = (this.perAddress.get(a.ip) ?? 1) - 1;
    if (left > 0) this.perAddress.set(a.ip, left);
    else this.perAddress.delete(a.ip);
    if (this.bySocket.get(socketKey(a.socket)) === a) this.bySocket.delete(socketKey(a.socket));
  }

  private shedOne(victim: Admission | undefined, full: string): boolean {
    if (victim === undefined) return false;
    victim.gate.shed++;
    this.host.log.warn(`shed:${victim.gate.name}`, victim.ip, { listener: victim.gate.name }, `${victim.gate.name}: oldest pending connection closed to admit a new one (${full} reached)`);
    victim.drop();
    return true;
  }

  private refuse(ip: string, limit: string, why?: string): undefined {
    this.refused++;
    this.host.log.warn(`refused:${this.name}`, ip, { listener: this.name, open: this.open, refused: this.refused }, `${this.name}: connection refused (${limit} reached${why === undefined ? '' : `; ${why}`})`);
    this.onRefuse?.(`${limit} reached`);
    return undefined;
  }
}

/** The key of a socket by its peer: equal for a raw socket and the TLS socket over it. */
function socketKey(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
}

/** The host's total: `maxtotalconnections` when given, never above the open-file limit's ceiling. */
export function totalConnectionCap(security: Pick<SecurityConfig, 'maxTotalConnections'>, limit = openFileLimit()): { total: number; lowered?: string } {
  const ceiling = limit === undefined ? undefined : connectionCeiling(limit);
  const given = security.maxTotalConnections;
  if (ceiling === undefined) return { total: given ?? FALLBACK_TOTAL };
  if (given !== undefined && given > ceiling) {
    return { total: ceiling, lowered: `maxtotalconnections ${given} is above what the open-file limit (${limit}) leaves for connections: ${ceiling} used` };
  }
  return { total: given ?? ceiling };
}

const perHost = new WeakMap<object, HostConnections>();

/**
 * The connections of the host whose configuration object is `config`: one per host, shared by its
 * listeners (R66 network, REST, web areas and metrics each get it from the one config object).
 */
export function hostConnectionsOf(config: object, security: SecurityConfig, logger: Logger): HostConnections {
  let host = perHost.get(config);
  if (host === undefined) {
    const { total, lowered } = totalConnectionCap(security);
    if (lowered !== undefined) logger.warn(lowered);
    host = new HostConnections(total, new AddressLog(logger, security.warnIntervalMs));
    perHost.set(config, host);
  }
  return host;
}

/** The R66 listeners' limits from server.xml `security`. */
export function r66Limits(s: Pick<SecurityConfig, 'maxConnections' | 'maxConnectionsPerAddress' | 'maxUnauthenticated' | 'handshakeTimeoutMs'>): GateLimits {
  return {
    maxConnections: s.maxConnections,
    maxPerAddress: s.maxConnectionsPerAddress,
    maxPending: s.maxUnauthenticated,
    pendingDeadlineMs: s.handshakeTimeoutMs,
    names: { maxConnections: 'maxconnections', maxPerAddress: 'maxconnectionsperaddress', maxPending: 'maxunauthenticated', deadline: 'handshaketimeout' },
    pendingMeaning: 'not authenticated',
  };
}

/** An HTTP listener's limits: every connection without a request in progress may be shed. */
export function httpLimits(s: Pick<SecurityConfig, 'httpMaxConnections' | 'httpMaxConnectionsPerAddress' | 'httpIdleTimeoutMs' | 'httpRequestTimeoutMs'>): GateLimits {
  return {
    maxConnections: s.httpMaxConnections,
    maxPerAddress: s.httpMaxConnectionsPerAddress,
    maxPending: s.httpMaxConnections,
    pendingDeadlineMs: s.httpIdleTimeoutMs,
    names: { maxConnections: 'httpmaxconnections', maxPerAddress: 'httpmaxconnectionsperaddress', maxPending: 'httpmaxconnections', deadline: 'httpidletimeout' },
    pendingMeaning: 'no request',
    requestDeadlineMs: s.httpRequestTimeoutMs,
  };
}
