/**
 * The fastify instance under every web area (monitoring, administration, the client's local page):
 * form bodies read as text (parsed by params.ts), small body limit, security headers (the pages
 * load only their own stylesheet and script), the two assets, and errors that never show a stack.
 * `WebListener` binds one instance per configured address as a server component.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { TlsOptions } from 'node:tls';
import type { Logger } from 'pino';
import { LISTEN_BACKLOG } from '../net/connection-gate.js';
import { guardHttpServer, type GatedConfig } from '../net/http-gate.js';
import { CLIENT_JS } from './assets/client.js';
import { STYLE_CSS } from './assets/style.js';

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export interface WebAppOptions {
  /** `usehttpcomp`: gzip pages for browsers that accept it. */
  compress?: boolean;
  /** The host's connection limits (server.xml `security`) under this listener's name; absent: none (the client's local page). */
  limits?: { name: string; config: GatedConfig };
}

export function createWebApp(log: Logger, tls?: TlsOptions, options: WebAppOptions = {}): FastifyInstance {
  const opts = { logger: false, bodyLimit: 256 * 1024, return503OnClosing: true, forceCloseConnections: true };
  const app = (tls ? Fastify({ ...opts, https: tls }) : Fastify(opts)) as unknown as FastifyInstance;
  if (options.limits !== undefined) guardHttpServer(app.server, options.limits.name, options.limits.config, log);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const started = new WeakMap<object, number>();
  app.addHook('onRequest', async (req) => {
    started.set(req.raw, performance.now());
  });
  app.addHook('onSend', async (req, reply, payload) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(k)) void reply.header(k, v);
    // How long the page took on the server (browsers' developer tools and the web bench read it).
    void reply.header('server-timing', `app;dur=${(performance.now() - (started.get(req.raw) ?? performance.now())).toFixed(1)}`);
    if (tls) void reply.header('strict-transport-security', 'max-age=31536000');
    if (options.compress && typeof payload === 'string' && payload.length > 1024 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      void reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding');
      reply.removeHeader('content-length');
      return gzipSync(payload);
    }
    return payload;
  });
  app.setErrorHandler((err: { statusCode?: number }, req, reply) => {
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status === 500) log.error({ url: req.url.split('?')[0], err: String(err) }, 'web page failed');
    void reply.code(status).type('text/plain; charset=utf-8').send(status === 500 ? 'Internal error: see the server log\n' : `HTTP ${status}\n`);
  });
  const asset = (type: string, body: string) => (_req: unknown, reply: FastifyReply) => reply.type(type).header('cache-control', 'max-age=3600').send(body);
  app.get('/res/style.css', asset('text/css; charset=utf-8', STYLE_CSS));
  app.get('/res/app.js', asset('text/javascript; charset=utf-8', CLIENT_JS));
  app.get('/favicon.ico', (_req, reply) => reply.code(204).send());
  return app;
}

/** Sends an HTML page. */
export function sendHtml(reply: FastifyReply, body: string, status = 200, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers({ 'cache-control': 'no-store', ...headers }).type('text/html; charset=utf-8').send(body);
}

/** One area on its port, one fastify instance per bind address (empty list = all interfaces). */
export class WebListener {
  private apps: FastifyInstance[] = [];

  constructor(
    readonly name: string,
    private readonly port: number,
    private readonly addresses: readonly string[],
    private readonly build: () => Promise<FastifyInstance>,
    private readonly label: string,
  ) {}

  async start(): Promise<void> {
    try {
      for (const host of this.addresses.length > 0 ? this.addresses : ['0.0.0.0']) {
        const app = await this.build();
        this.apps.push(app);
        await app.listen({ port: this.port, host, backlog: LISTEN_BACKLOG });
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** Bound ports (useful with port 0). */
  get boundPorts(): number[] {
    return this.apps.map((a) => (a.server.address() as AddressInfo | null)?.port ?? this.port);
  }

  urls(scheme: string): string[] {
    return this.apps.map((a) => {
      const addr = a.server.address() as AddressInfo | null;
      const host = addr === null || addr.address === '0.0.0.0' || addr.address === '::' ? 'localhost' : addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      return `${scheme}://${host}:${addr?.port ?? this.port}/`;
    });
  }

  describe(): string[] {
    return [`${this.label}: ${this.urls(this.label.startsWith('web admin') ? 'https' : 'http').join(' ')}`];
  }

  async stop(): Promise<void> {
    const apps = this.apps;
    this.apps = [];
    for (const app of apps) await app.close();
  }
}
