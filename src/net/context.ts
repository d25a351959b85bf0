/**
 * Everything both sides of the connection layer share on one host: who we are, who our partners
 * are, the handlers of incoming commands, the blacklist and the network settings.
 */
import type { Logger } from 'pino';
import type { Notify } from '../model/notifications.js';
import type { Blacklist } from './blacklist.js';
import type { BufferBudget } from './buffer-budget.js';
import type { HostConnections } from './connection-gate.js';
import type { RequestHandlers } from './handlers.js';
import type { LocalIdentity, PartnerDirectory } from './partner.js';
import type { RateLimitedLog } from './rate-log.js';

/** Limits against peers we do not control (server.xml `security`, docs/security.md). */
export interface NetGuard {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Connections not authenticated yet on each listener (beyond: the oldest is closed). */
  maxUnauthenticated: number;
  handshakeFrameBytes: number;
  /** Time an accepted connection has to authenticate (and to finish the TLS handshake). */
  handshakeTimeoutMs: number;
  /** The host's connections over all its listeners (total cap, trusted addresses, WARN lines). */
  connections: HostConnections;
  budget: BufferBudget;
  warnings: RateLimitedLog;
}

export interface NetContext {
  identity: LocalIdentity;
  directory: PartnerDirectory;
  handlers: RequestHandlers;
  blacklist: Blacklist;
  /** `timeoutcon` (default 30 000 ms). */
  timeoutConMs: number;
  /** Largest accepted frameLength (default: the protocol's). */
  maxFrameLength?: number;
  /** server.xml `checkaddress` / `checkclientaddress`. */
  checkAddress?: boolean;
  checkClientAddress?: boolean;
  /**
   * Reuse an authentication for later channels of a connection with partners that support it
   * (§6.6); false behaves like the original's `-Dopenr66.authent.noreuse=true`.
   */
  reuseAuthentication: boolean;
  logger: Logger;
  /** Application notifications (SNMP) of the server's agent, handed down at composition; absent: none (clients). */
  notify?: Notify;
  /** Connection limits, handshake limits and the buffer budget; absent: none (tests building a context). */
  guard?: NetGuard;
}
