/**
 * One REST listener per `rest` section as a server component (rest-v1.md §1.1): HTTP or HTTPS
 * with the R66 keystore, serving v1 and v2. Authentication without key material starts with Basic
 * authentication only, as the original does (HMAC, signatures and v1 are then refused, saying why).
 */
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { RestConfig } from '../config/index.js';
import { LISTEN_BACKLOG } from '../net/connection-gate.js';
import { loadTlsMaterial } from '../net/tls.js';
import { createRestApp } from './app.js';
import type { RestServices } from './context.js';

export class RestListener {
  readonly name: string;
  private app: FastifyInstance | undefined;

  constructor(private readonly services: () => RestServices, private readonly rest: RestConfig) {
    this.name = `rest-listener:${rest.port}`;
  }

  async start(): Promise<void> {
    const { rest } = this;
    const services = this.services();
    // Without a restsigkey: Basic authentication only, as the original (issue 21 item 7); the
    // configuration loader already warned about it at start.
    if (rest.authenticated && !rest.signature) {
      // rest-v1.md §4.2 security note: v1 then verifies no secret (the password only enters the signature).
      services.log.warn({ port: rest.port }, 'restsignature false: REST v1 identifies a user by X-Auth-User alone (no password is checked); set restsignature to true, or disable the v1 handlers you do not need');
    }
    let tls;
    if (rest.ssl) {
      const ssl = services.config.ssl;
      if (ssl === null || ssl.keyPath === undefined) throw new Error(`rest listener on port ${rest.port}: restssl needs the ssl section (usessl and keypath)`);
      tls = (await loadTlsMaterial({ keyPath: ssl.keyPath, keyStorePass: ssl.keyStorePassword, keyPass: ssl.keyPassword })).server;
    }
    const app = createRestApp({ services, rest }, tls);
    await app.listen({ port: rest.port, host: rest.address ?? '0.0.0.0', backlog: LISTEN_BACKLOG });
    this.app = app;
  }

  /** The bound port (useful with port 0 in tests). */
  get port(): number {
    const addr = this.app?.server.address() as AddressInfo | null | undefined;
    return addr?.port ?? this.rest.port;
  }

  describe(): string[] {
    const address = this.rest.address ?? '0.0.0.0';
    const host = address === '0.0.0.0' || address === '::' ? 'localhost' : address.includes(':') ? `[${address}]` : address;
    return [`REST ${this.rest.ssl ? 'HTTPS' : 'HTTP'} listening on ${address}:${this.port}: ${this.rest.ssl ? 'https' : 'http'}://${host}:${this.port}/v2/ (v1 and v2)`];
  }

  async stop(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.close();
  }
}
