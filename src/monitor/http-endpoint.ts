/**
 * The metrics and health HTTP listener (node:http, no authentication: bind it to an address only
 * the scraper and the load balancer reach). GET/HEAD only:
 *
 *   <metricspath>  Prometheus text exposition
 *   <healthpath>   200 {"status":"up",...} when the database answers and every R66 listener is
 *                  bound; 503 with the same document naming what is down otherwise
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LISTEN_BACKLOG } from '../net/connection-gate.js';

export interface HealthCheck {
  /** Resolves when the database answers (rejects or times out otherwise). */
  database: () => Promise<void>;
  /** Bound R66 ports, and how many listeners the configuration asks for. */
  listeners: () => { ports: number[]; expected: number };
}

export interface HealthReport {
  status: 'up' | 'down';
  database: 'up' | 'down' | 'none';
  listeners: { status: 'up' | 'down'; ports: number[] };
}

const DATABASE_TIMEOUT_MS = 2_000;

export async function checkHealth(check: HealthCheck): Promise<HealthReport> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('database timeout')), DATABASE_TIMEOUT_MS); });
  const database = await Promise.race([check.database(), timeout]).then(() => 'up' as const, () => 'down' as const);
  clearTimeout(timer);
  const { ports, expected } = check.listeners();
  const listeners = { status: ports.length >= expected && expected > 0 ? 'up' as const : 'down' as const, ports };
  return { status: database === 'up' && listeners.status === 'up' ? 'up' : 'down', database, listeners };
}

export interface MetricsEndpointOptions {
  port: number;
  address: string;
  metricsPath: string;
  healthPath: string;
  metrics: () => Promise<string>;
  contentType: string;
  health: HealthCheck;
  /** Puts the listener under the host's connection limits (net/http-gate.ts) before it listens. */
  guard?: (server: Server) => void;
}

export class MetricsEndpoint {
  private server: Server | undefined;

  constructor(private readonly opts: MetricsEndpointOptions) {}

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.answer(req, res));
    server.keepAliveTimeout = 65_000;
    this.opts.guard?.(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: this.opts.port, host: this.opts.address, backlog: LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
    try {
      if (path === this.opts.metricsPath) return send(res, 200, this.opts.contentType, await this.opts.metrics(), {}, req.method === 'HEAD');
      if (path === this.opts.healthPath) {
        const report = await checkHealth(this.opts.health);
        return send(res, report.status === 'up' ? 200 : 503, 'application/json', `${JSON.stringify(report)}\n`, { 'Cache-Control': 'no-store' }, req.method === 'HEAD');
      }
      return send(res, 404, 'text/plain', `not found: ${this.opts.metricsPath} and ${this.opts.healthPath} are served here\n`);
    } catch {
      return send(res, 500, 'text/plain', 'metrics could not be collected\n');
    }
  }
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}, head = false): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(head ? undefined : body);
}
