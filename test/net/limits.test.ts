/**
 * Limits against peers we do not control (issue 21 items 1-2): a peer that has not authenticated
 * may not make the host buffer more than the handshake needs, connections are capped per address,
 * an idle unauthenticated connection is dropped, and an authenticated partner keeps working.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { BufferBudget } from '../../src/net/buffer-budget.js';
import { AddressLog, HostConnections } from '../../src/net/connection-gate.js';
import type { NetGuard } from '../../src/net/context.js';
import { RateLimitedLog } from '../../src/net/rate-log.js';
import { loadTlsMaterial } from '../../src/net/tls.js';
import { waitFor } from '../helpers/wait.js';
import { makeHost, makePair, silent, type TestHost } from './harness.js';
import { RawPeer } from './raw-peer.js';

function guard(over: Partial<NetGuard> = {}): NetGuard {
  return {
    maxConnections: 50, maxConnectionsPerAddress: 3, maxUnauthenticated: 50, handshakeFrameBytes: 16 * 1024, handshakeTimeoutMs: 60_000,
    connections: new HostConnections(10_000, new AddressLog(silent, 60_000)),
    budget: new BufferBudget(4 * 1024 * 1024), warnings: new RateLimitedLog(silent, 60_000), ...over,
  };
}

describe('R66 listener limits', () => {
  let a: TestHost;
  let b: TestHost;

  beforeAll(async () => {
    ({ a, b } = await makePair());
    b.ctx.blacklist.disable();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('refuses a 16 MB frame announced before authentication at once, holding nothing', async () => {
    b.ctx.guard = guard();
    const peer = await RawPeer.open(b.listener!.port);
    const header = Buffer.alloc(13);
    header.writeInt32BE(16 * 1024 * 1024, 0);
    peer.write(header);
    const first = await peer.next();
    expect(first?.packet.kind).toBe('connectionError');
    await peer.closed;
    expect(b.ctx.guard.budget.usedBytes).toBe(0);
  });

  it('refuses connections beyond the per-address limit, counts them, and serves the partner', async () => {
    b.ctx.guard = guard({ maxConnectionsPerAddress: 3 });
    const peers = [await RawPeer.open(b.listener!.port), await RawPeer.open(b.listener!.port)];
    await waitFor(() => b.listener!.openConnections === 2, { what: 'two connections accepted' });
    // The partner's connection is the third: it still gets in and is answered.
    expect((await sendMessage(a.pool, 'hostb', 'still served')).answer).toContain('still served');
    const extra = await RawPeer.open(b.listener!.port);
    await extra.closed;
    expect(b.listener!.refusedConnections).toBe(1);
    for (const p of peers) p.destroy();
    await waitFor(() => b.listener!.openConnections === 1, { what: 'raw peers gone' });
  });

  it('closes a connection that does not authenticate in time', async () => {
    b.ctx.guard = guard({ handshakeTimeoutMs: 200 });
    const peer = await RawPeer.open(b.listener!.port);
    const started = Date.now();
    await peer.closed;
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a large frame of an authenticated partner when the budget is used', () => {
    const budget = new BufferBudget(1024 * 1024);
    budget.update(0, 900 * 1024);
    expect(() => budget.admit(64 * 1024 + 13, 0)).not.toThrow();
    expect(() => budget.admit(512 * 1024, 0)).toThrow(/buffer budget/);
    expect(() => budget.admit(512 * 1024, 900 * 1024)).not.toThrow();
  });
});

describe('TLS listener limits', () => {
  it('apply before the handshake: raw sockets beyond the limit are closed at once', async () => {
    const keyPath = new URL('./fixtures/hosta-key.jks', import.meta.url).pathname;
    const host = await makeHost('hostj', [], { listen: true, sslHostId: 'hostj-ssl', tls: await loadTlsMaterial({ keyPath, keyStorePass: 'storepass', keyPass: 'keypass1' }) });
    host.ctx.blacklist.disable();
    host.ctx.guard = guard({ maxConnectionsPerAddress: 2 });
    const open = (): Promise<Socket> => new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: host.listener!.port }, () => resolve(s));
      s.on('error', () => undefined);
      s.once('error', reject);
    });
    try {
      const held = [await open(), await open()];
      const third = await open();
      await new Promise((resolve) => third.once('close', resolve));
      expect(host.listener!.refusedConnections).toBe(1);
      // A socket that never shakes hands is closed by the gate's deadline (handshaketimeout).
      host.ctx.guard = guard({ handshakeTimeoutMs: 200 });
      const late = await open();
      const started = Date.now();
      await new Promise((resolve) => late.once('close', resolve));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(host.listener!.gate!.deadlineClosed).toBe(1);
      for (const s of held) s.destroy();
    } finally {
      await host.close();
    }
  });
});

describe('RateLimitedLog', () => {
  it('writes one line per key and interval, then reports how many it suppressed', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = { warn: (fields: Record<string, unknown>) => lines.push(fields) } as unknown as typeof silent;
    let now = 0;
    const log = new RateLimitedLog(logger, 1000, () => now);
    for (let i = 0; i < 100; i++) log.warn('bad-frame', { i }, 'bad');
    expect(lines).toHaveLength(1);
    now = 1500;
    log.warn('bad-frame', { i: 100 }, 'bad');
    expect(lines).toEqual([{ i: 0 }, { i: 100, suppressed: 99 }]);
  });
});
