/**
 * The connection limits of an HTTP listener (REST, web monitoring, web admin, metrics): every
 * socket is admitted through a ListenerGate of the host (connection-gate.ts) with the `http*`
 * limits of server.xml `security`. A connection is "pending" while no request is in progress
 * (before its first request's headers are complete, and between two keep-alive requests): pending
 * connections close after `httpidletimeout`, and are the ones shed when the listener or the host
 * is full. A request in progress (an `/events` stream included) is never shed; but the request
 * itself, headers and body, must arrive whole within `httprequesttimeout` of its headers, else the
 * connection is closed (a body trickling in a byte at a time held a slot for ever: fastify turns
 * Node's own request timeout off).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
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
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const admission = gate.find(req.socket);
    if (admission === undefined) return;
    admission.begin();
    // Headers are complete here; the body (if any) is not yet: looked at when the deadline comes.
    const deadline = limits.requestDeadlineMs === undefined ? undefined : setTimeout(() => {
      if (req.complete || req.socket.destroyed) return;
      gate.requestDeadlineClosed++;
      gate.host.log.warn(`request-deadline:${name}`, admission.ip, { listener: name }, `${name}: connection closed: request not complete within httprequesttimeout ${limits.requestDeadlineMs} ms`);
      admission.drop();
    }, limits.requestDeadlineMs);
    deadline?.unref();
    res.once('close', () => {
      clearTimeout(deadline);
      admission.end();
    });
  });
  // Out of descriptors at accept: one ERROR a minute for the process (fd-limit.ts), and never an
  // unhandled 'error' event (attached once listening: a bind error is the caller's to report).
  server.once('listening', () => server.on('error', (err) => {
    if (!reportFdExhaustion(logger, err, `${name} accept`)) logger.error({ err: err.message }, `${name} error`);
  }));
  return gate;
}
