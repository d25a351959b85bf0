// Issue 32 item 2, "a short deadline for connections that never complete a request": an HTTP
// connection whose request headers are complete but whose body trickles in (a byte now and then,
// never the announced length) counted as "a request in progress", never idle, never shed; fastify
// turns Node's request timeout off, so REST held it for ever: 8 addresses x 64 such connections
// filled a REST listener's 512 slots for good. Now the request must be complete (headers and body)
// within httprequesttimeout, else the connection is closed with one WARN per address and period;
// a complete request answered slowly (an /events stream) is not cut.
import Fastify from 'fastify';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSecurity, loadServerConfig } from '../../src/config/index.js';
import { guardHttpServer } from '../../src/net/http-gate.js';
import { makeInstance } from '../config/instance.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger } from './idle-flood.js';

const REQUEST_MS = 600;

/** A socket from `from` that sends a POST announcing 1000 bytes and then one byte every 50 ms. */
function trickle(port: number, from: string): { socket: Socket; closed: Promise<number>; stop(): void } {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from });
  socket.on('error', () => undefined);
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  socket.once('connect', () => {
    socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n0123456789');
    timer = setInterval(() => socket.write('x'), 50);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', () => {
    clearInterval(timer);
    resolve(Date.now() - started);
  }));
  return { socket, closed, stop: () => { clearInterval(timer); socket.destroy(); } };
}

describe('HTTP request deadline (httprequesttimeout)', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  it('closes a connection whose request body never completes, one WARN per address; complete requests and slow answers stay', async () => {
    const { logger, lines } = captureLogger();
    const config = { security: { ...defaultSecurity(30_000), httpIdleTimeoutMs: 300, httpRequestTimeoutMs: REQUEST_MS }, limits: { timeoutCon: 30_000 } };
    // A fastify app as REST and the web areas are built (fastify sets Node's requestTimeout to 0).
    const app = Fastify({ logger: false });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.post('/upload', async (req) => ({ got: (req.body as Buffer).length }));
    app.get('/slow', async (_req, reply) => {
      // An answer that takes three request deadlines: the request itself was complete at once.
      await new Promise((resolve) => setTimeout(resolve, 3 * REQUEST_MS));
      return reply.send('late but whole');
    });
    const gate = guardHttpServer(app.server, 'rest-listener:test', config, logger);
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const port = (app.server.address() as { port: number }).port;

    const slow = [trickle(port, '127.0.5.1'), trickle(port, '127.0.5.1'), trickle(port, '127.0.5.2')];
    const answer = fetch(`http://127.0.0.1:${port}/slow`).then(async (r) => [r.status, await r.text()]);
    const upload = await fetch(`http://127.0.0.1:${port}/upload`, { method: 'POST', body: Buffer.alloc(1000), headers: { 'content-type': 'application/octet-stream' } });
    expect(await upload.json()).toEqual({ got: 1000 });
    try {
      const took = await Promise.all(slow.map((s) => s.closed));
      for (const ms of took) {
        expect(ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
        expect(ms).toBeLessThan(REQUEST_MS + 3000);
      }
    } finally {
      for (const s of slow) s.stop();
    }
    expect(await answer).toEqual([200, 'late but whole']);
    const warns = lines.filter((l) => l.level === 'warn' && l.msg.includes('request not complete within httprequesttimeout 600 ms'));
    expect(warns.map((l) => l.fields.ip).sort()).toEqual(['127.0.5.1', '127.0.5.2']);
    expect(warns[0]!.msg).toBe('rest-listener:test: connection closed: request not complete within httprequesttimeout 600 ms');
    await waitFor(() => gate.open === 0, { what: 'every connection released' });
  });

  it('server.xml <security><httprequesttimeout>: default 30000 ms, read, range-checked', async () => {
    const inst = await makeInstance();
    try {
      expect((await loadServerConfig(await inst.sample('server.xml'))).security?.httpRequestTimeoutMs).toBe(30_000);
      const set = await inst.sample('server.xml', (x) => x.replace('</config>', '<security><httprequesttimeout>5000</httprequesttimeout></security></config>'));
      expect((await loadServerConfig(set)).security?.httpRequestTimeoutMs).toBe(5000);
      const bad = await inst.sample('server.xml', (x) => x.replace('</config>', '<security><httprequesttimeout>10</httprequesttimeout></security></config>'));
      await expect(loadServerConfig(bad)).rejects.toThrow(/<config\/security\/httprequesttimeout>: 10 is out of range; expected an integer from 1000 to 3600000 \(ms\)/);
    } finally {
      await inst.cleanup();
    }
  });
});
