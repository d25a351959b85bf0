// No HTTP listener can be taken by one address (issue 32 item 2): REST, web monitoring, web admin
// (HTTPS) and metrics each admit through the host's connection gate (src/net/http-gate.ts). Per
// listener: idle sockets from one address beyond httpmaxconnectionsperaddress are refused with one
// WARN for that address; an idle flood from 60 addresses beyond httpmaxconnections is shed oldest
// first; another address is answered throughout; an idle connection closes after httpidletimeout
// (before its first request and between two), a request in progress does not.
import type { FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsEndpoint } from '../../src/monitor/http-endpoint.js';
import { guardHttpServer } from '../../src/net/http-gate.js';
import { loadTlsMaterial } from '../../src/net/tls.js';
import { TransferOrders } from '../../src/operations/index.js';
import { AuthGuard } from '../../src/http/auth-guard.js';
import { createAdminApp } from '../../src/web/admin/app.js';
import { writeSelfSignedPem } from '../../src/web/admin/self-signed.js';
import { SessionStore } from '../../src/web/admin/sessions.js';
import { LiveBroadcaster } from '../../src/web/live.js';
import { createMonitorApp } from '../../src/web/monitor-app.js';
import { StatusDocuments } from '../../src/web/status-doc.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';
import { IdleFlood, loopbackAddresses } from '../net/idle-flood.js';
import { startHarness, type Harness } from './harness.js';

interface Listener {
  name: string;
  port: number;
  tls: boolean;
  /** A path answered without authentication. */
  path: string;
}

let db: TestDatabase | undefined;
let h: Harness;
let dir: string;
let live: LiveBroadcaster;
const apps: FastifyInstance[] = [];
let metrics: MetricsEndpoint;
const listeners: Listener[] = [];
const IDLE_MS = 400;

beforeAll(async () => {
  db = await testDialects()[0]!.create();
  h = await startHarness({ settings: db!.settings, security: { httpMaxConnections: 16, httpMaxConnectionsPerAddress: 4, httpIdleTimeoutMs: IDLE_MS } });
  listeners.push({ name: 'rest', port: Number(new URL(h.base).port), tls: false, path: '/v2/openapi.json' });
  live = new LiveBroadcaster();
  const services = { rest: h.services, events: () => undefined, serverLang: { value: 'en' as const } };
  const monitor = await createMonitorApp({ services, live, status: new StatusDocuments(h.services) });
  await monitor.listen({ port: 0, host: '127.0.0.1' });
  apps.push(monitor);
  listeners.push({ name: 'web monitoring', port: (monitor.server.address() as { port: number }).port, tls: false, path: '/' });
  dir = mkdtempSync(join(tmpdir(), 'svc-http-limits-'));
  const pem = join(dir, 'admin.pem');
  await writeSelfSignedPem(pem);
  const tls = (await loadTlsMaterial({ keyPath: pem })).server;
  const orders = new TransferOrders({ store: h.store, hostId: 'hosta', sslHostId: 'hosta-ssl', directories: h.config.directories, blockSize: 65536 });
  const admin = await createAdminApp({ services, orders, blocked: { value: false }, sessions: new SessionStore('hosta'), guard: new AuthGuard({ restMaxAuthFailures: 3, restLockoutMs: 1000, restClockSkewMs: 0, warnIntervalMs: 1000 }, h.services.log, Date.now, 'web administration'), live }, tls);
  await admin.listen({ port: 0, host: '127.0.0.1' });
  apps.push(admin);
  listeners.push({ name: 'web admin', port: (admin.server.address() as { port: number }).port, tls: true, path: '/Logon.html' });
  metrics = new MetricsEndpoint({
    port: 0, address: '127.0.0.1', metricsPath: '/metrics', healthPath: '/health', metrics: async () => 'up 1\n', contentType: 'text/plain',
    health: { database: async () => undefined, listeners: () => ({ ports: [1], expected: 1 }) },
    guard: (server) => guardHttpServer(server, 'metrics', h.config, h.services.log),
  });
  await metrics.start();
  listeners.push({ name: 'metrics', port: metrics.port, tls: false, path: '/metrics' });
});

afterAll(async () => {
  live?.close();
  for (const app of apps) await app.close();
  await metrics?.stop();
  await h?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** GET `path` from 127.0.0.1 on a connection of its own; the status (0 on a network error). */
function get(l: Listener, path = l.path): Promise<number> {
  return new Promise((resolve) => {
    const opts = { host: '127.0.0.1', port: l.port, path, localAddress: '127.0.0.1', agent: false, rejectUnauthorized: false, timeout: 5000 };
    const req = (l.tls ? httpsRequest : httpRequest)(opts, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** WARN lines of the harness log mentioning `fragment`, per address. */
function warnsPerAddress(fragment: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of h.logLines) {
    const o = JSON.parse(line) as { level: number; msg: string; ip?: string; addresses?: string };
    if (o.level !== 40 || !o.msg.includes(fragment) || o.addresses !== undefined) continue;
    m.set(o.ip ?? '', (m.get(o.ip ?? '') ?? 0) + 1);
  }
  return m;
}

describe.each([0, 1, 2, 3])('HTTP listener %#', (i) => {
  it('refuses one address beyond its cap (one WARN), sheds an idle flood from 60 addresses, and answers another address', async () => {
    const l = listeners[i]!;
    const flooder = `127.0.1.${10 + i}`;
    const one = new IdleFlood(l.port, [flooder], 12, false).start();
    const many = new IdleFlood(l.port, loopbackAddresses(60, 100 + 60 * i), 1, false).start();
    try {
      await waitFor(() => one.openNow <= 4, { what: `${l.name}: the sockets beyond the per-address cap closed` });
      expect(await get(l)).toBeGreaterThanOrEqual(200);
      expect(await get(l)).toBeLessThan(500);
      const refused = warnsPerAddress(`connection refused (httpmaxconnectionsperaddress 4 reached)`);
      expect(refused.get(flooder)).toBe(1);
      // The flood of many addresses is shed, not refused: at most the listener's cap stays open.
      await waitFor(() => one.openNow + many.openNow <= 16, { what: `${l.name}: the idle flood shed down to httpmaxconnections` });
    } finally {
      await one.stop();
      await many.stop();
    }
  });

  it('closes a connection idle for httpidletimeout, before its first request and between two', async () => {
    const l = listeners[i]!;
    const from = `127.0.0.${30 + i}`;
    const open = (): Socket => {
      const s = l.tls ? tlsConnect({ host: '127.0.0.1', port: l.port, localAddress: from, rejectUnauthorized: false } as import('node:tls').ConnectionOptions) : connect({ host: '127.0.0.1', port: l.port, localAddress: from });
      s.on('error', () => undefined);
      return s;
    };
    const idle = open();
    let started = Date.now();
    await new Promise((resolve) => idle.once('close', resolve));
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(Date.now() - started).toBeLessThan(IDLE_MS + 3000);
    // A keep-alive connection after its answer: idle again, closed again.
    const used = open();
    let answer = '';
    used.setEncoding('utf8');
    used.on('data', (c: string) => { answer += c; });
    used.write(`GET ${l.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    await waitFor(() => answer.startsWith('HTTP/1.1 '), { what: `${l.name}: an answer` });
    started = Date.now();
    await new Promise((resolve) => used.once('close', resolve));
    expect(Date.now() - started).toBeLessThan(IDLE_MS + 3000);
    expect(warnsPerAddress('connection closed: no request within httpidletimeout').get(from)).toBe(1);
  });
});

describe('web monitoring /events', () => {
  it('keeps a stream open past httpidletimeout (a request in progress is not idle)', async () => {
    const l = listeners[1]!;
    let closed = false;
    let text = '';
    const req = httpRequest({ host: '127.0.0.1', port: l.port, path: '/events', agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('close', () => { closed = true; });
    });
    req.on('error', () => undefined);
    req.end();
    await waitFor(() => text.includes('retry:'), { what: 'the stream started' });
    const until = Date.now() + 3 * IDLE_MS;
    await waitFor(() => Date.now() > until || closed, { what: 'three idle periods' });
    expect(closed).toBe(false);
    req.destroy();
  });
});
