/**
 * The connection limits of an HTTP listener (REST, web monitoring, web admin, metrics): every
 * socket is admitted through a ListenerGate of the host (connection-gate.ts) with the `http*`
 * limits of server.xml `security`. A connection is "pending" while no request is in progress
 * (before its first request's headers are complete, and between two keep-alive requests): pending
 * connections close after `httpidletimeout`, and are the ones shed when the listener or the host
 * is full. A request in progress (an `/events` stream included) is never cut by the gate.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { securityOf, type SecurityConfig } from '../config/index.js';
import { hostConnectionsOf, httpLimits, type ListenerGate } from './connection-gate.js';
import { reportFdExhaustion } from './fd-limit.js';

/** What a host's configuration object carries for the limits (a ServerConfig satisfies it). */
export interface GatedConfig {
  security?: SecurityConfig;
  limits: { timeoutCon: number };
}

/**
 * Puts the HTTP listener `server` (not yet listening) under the limits of the host whose
 * configuration object is `config`; returns its gate (counters for tests and metrics).
 */
export function guardHttpServer(server: HttpServer | HttpsServer, name: string, config: GatedConfig, logger: Logger): ListenerGate {
  const security = securityOf(config);
  const gate = hostConnectionsOf(config, security, logger).listener(name);
  const limits = httpLimits(security);
  // 'connection' carries the raw TCP socket on HTTP and HTTPS alike: the limits apply before any
  // TLS handshake. The server's own listener (registered at its creation) has run already.
  server.on('connection', (raw: Socket) => {
    if (gate.admit(raw, limits) === undefined) raw.destroy();
  });
  server.on('request', (req: { socket: Socket }, res: { once(event: 'close', f: () => void): unknown }) => {
    const admission = gate.find(req.socket);
    if (admission === undefined) return;
    admission.begin();
    res.once('close', () => admission.end());
  });
  // Out of descriptors at accept: one ERROR a minute for the process (fd-limit.ts), and never an
  // unhandled 'error' event (attached once listening: a bind error is the caller's to report).
  server.once('listening', () => server.on('error', (err) => {
    if (!reportFdExhaustion(logger, err, `${name} accept`)) logger.error({ err: err.message }, `${name} error`);
  }));
  return gate;
}
