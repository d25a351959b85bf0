// The open-file limit and the host's total over all listeners (issue 32 item 2): the total stays
// below RLIMIT_NOFILE with headroom, a flood on one listener that fills the total is shed for
// another listener's connection, and EMFILE/ENFILE is said at ERROR once per period.
import { createServer, request, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSecurity, loadServerConfig, writeServerConfig } from '../../src/config/index.js';
import { makeInstance } from '../config/instance.js';
import { totalConnectionCap } from '../../src/net/connection-gate.js';
import { connectionCeiling, isFdExhaustion, openFileLimit, reportFdExhaustion } from '../../src/net/fd-limit.js';
import { guardHttpServer } from '../../src/net/http-gate.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger, IdleFlood, loopbackAddresses } from './idle-flood.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                1048576              files
`;

describe('open-file limit', () => {
  it('reads the soft limit and keeps headroom for files and the database', () => {
    expect(openFileLimit(LIMITS)).toBe(20_000);
    expect(openFileLimit('Max open files unlimited unlimited files\n')).toBeUndefined();
    // This process (Linux): a number.
    expect(openFileLimit()).toBeGreaterThan(0);
    expect(connectionCeiling(20_000)).toBe(15_000);
    expect(connectionCeiling(1024)).toBe(768);
    expect(totalConnectionCap({}, 20_000)).toEqual({ total: 15_000 });
    expect(totalConnectionCap({ maxTotalConnections: 500 }, 20_000)).toEqual({ total: 500 });
    const lowered = totalConnectionCap({ maxTotalConnections: 1e6 }, 1024);
    expect(lowered.total).toBe(768);
    expect(lowered.lowered).toMatch(/maxtotalconnections 1000000 is above what the open-file limit \(1024\)/);
  });

  it('logs EMFILE and ENFILE at ERROR once per minute, counting the rest', () => {
    const { logger, lines } = captureLogger();
    const emfile = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' });
    expect(isFdExhaustion(new Error('ENOENT: no such file'))).toBe(false);
    expect(isFdExhaustion(new Error('cannot open: EMFILE: too many open files'))).toBe(true);
    expect(reportFdExhaustion(logger, new Error('other'), 'x', 1e12)).toBe(false);
    const t = 2e12;
    for (let i = 0; i < 100; i++) expect(reportFdExhaustion(logger, emfile, 'r66-listener accept', t + i)).toBe(true);
    reportFdExhaustion(logger, { code: 'ENFILE' }, 'a transfer', t + 61_000);
    expect(lines.map((l) => l.level)).toEqual(['error', 'error']);
    expect(lines[0]!.msg).toMatch(/out of file descriptors \(EMFILE\) in r66-listener accept/);
    expect(lines[1]!.fields).toMatchObject({ code: 'ENFILE', suppressed: 99 });
  });
});

describe('host total over listeners', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => { s.closeAllConnections(); s.close(r); });
  });

  it('sheds idle connections of a flooded listener so that another listener of the host is served', async () => {
    const { logger, lines } = captureLogger();
    // One host (one configuration object), two listeners, 20 connections in all.
    const config = { security: { ...defaultSecurity(30_000), maxTotalConnections: 20, httpMaxConnections: 100, httpMaxConnectionsPerAddress: 100 }, limits: { timeoutCon: 30_000 } };
    const ports: number[] = [];
    for (const name of ['flooded', 'other']) {
      const server = createServer((_req, res) => res.end('ok'));
      guardHttpServer(server, name, config, logger);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      servers.push(server);
      ports.push((server.address() as { port: number }).port);
    }
    const flood = new IdleFlood(ports[0]!, loopbackAddresses(40, 500), 1, false).start();
    try {
      await waitFor(() => lines.some((l) => l.msg.includes('maxtotalconnections 20 reached')), { what: 'the total reached' });
      const status = await new Promise<number>((resolve) => {
        request({ host: '127.0.0.1', port: ports[1]!, path: '/', agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', () => resolve(0)).end();
      });
      expect(status).toBe(200);
      await waitFor(() => flood.openNow <= 20, { what: 'the flood held to the total' });
    } finally {
      await flood.stop();
    }
  });

  it('when full, refuses a reconnecting address that holds pending connections instead of shedding, and sheds for a newcomer', async () => {
    const { logger } = captureLogger();
    const config = { security: { ...defaultSecurity(30_000), httpMaxConnections: 10, httpMaxConnectionsPerAddress: 100 }, limits: { timeoutCon: 30_000 } };
    const server = createServer((_req, res) => res.end('ok'));
    const gate = guardHttpServer(server, 'one', config, logger);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const port = (server.address() as { port: number }).port;
    const first = new IdleFlood(port, ['127.0.3.1'], 10, false).start();
    const again = new IdleFlood(port, ['127.0.3.1'], 5, false);
    try {
      await waitFor(() => gate.open === 10, { what: 'the listener full' });
      again.start();
      await waitFor(() => gate.refused === 5, { what: 'the reconnections refused' });
      expect(gate.shed).toBe(0);
      const status = await new Promise<number>((resolve) => {
        request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', () => resolve(0)).end();
      });
      expect(status).toBe(200);
      expect(gate.shed).toBe(1);
    } finally {
      await first.stop();
      await again.stop();
    }
  });
});

describe('server.xml <security> connection elements', () => {
  it('reads them over the defaults and writes them back', async () => {
    const inst = await makeInstance();
    try {
      const plain = await loadServerConfig(await inst.sample('server.xml'));
      expect(plain.security).toMatchObject({ maxUnauthenticated: 256, httpMaxConnections: 512, httpMaxConnectionsPerAddress: 64, httpIdleTimeoutMs: 10_000, maxEventStreamsPerClient: 4 });
      expect(plain.security?.maxTotalConnections).toBeUndefined();
      const f = await inst.sample('server.xml', (x) => x.replace('</config>', '<security><maxunauthenticated>50</maxunauthenticated><httpmaxconnections>40</httpmaxconnections><httpmaxconnectionsperaddress>8</httpmaxconnectionsperaddress><httpidletimeout>2000</httpidletimeout><maxtotalconnections>900</maxtotalconnections><maxeventstreamsperclient>2</maxeventstreamsperclient></security></config>'));
      const loaded = await loadServerConfig(f);
      expect(loaded.security).toMatchObject({ maxUnauthenticated: 50, httpMaxConnections: 40, httpMaxConnectionsPerAddress: 8, httpIdleTimeoutMs: 2000, maxTotalConnections: 900, maxEventStreamsPerClient: 2 });
      const copy = await inst.write('copy.xml', '');
      await writeServerConfig(copy, loaded);
      expect((await loadServerConfig(copy)).security).toEqual(loaded.security);
    } finally {
      await inst.cleanup();
    }
  });
});
