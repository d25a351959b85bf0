/**
 * No R66 listener can be taken by one address, nor by an idle flood from many (issue 32 item 2):
 * refusals are logged once per address, pending connections are shed oldest first, and a partner,
 * new or already authenticated, is served during a reconnecting idle flood from 200 addresses.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { BufferBudget } from '../../src/net/buffer-budget.js';
import { AddressLog, HostConnections } from '../../src/net/connection-gate.js';
import type { NetGuard } from '../../src/net/context.js';
import { ConnectionPool } from '../../src/net/pool.js';
import { RateLimitedLog } from '../../src/net/rate-log.js';
import { waitFor } from '../helpers/wait.js';
import { makePair, silent, type TestHost } from './harness.js';
import { captureLogger, IdleFlood, loopbackAddresses } from './idle-flood.js';
import { RawPeer } from './raw-peer.js';

let a: TestHost;
let b: TestHost;
let log: ReturnType<typeof captureLogger>;

function guard(over: Partial<NetGuard> = {}): NetGuard {
  return {
    maxConnections: 300, maxConnectionsPerAddress: 100, maxUnauthenticated: 100, handshakeFrameBytes: 16 * 1024, handshakeTimeoutMs: 60_000,
    connections: new HostConnections(10_000, new AddressLog(log.logger, 60_000)),
    budget: new BufferBudget(4 * 1024 * 1024), warnings: new RateLimitedLog(silent, 60_000), ...over,
  };
}

beforeEach(async () => {
  log = captureLogger();
  ({ a, b } = await makePair());
  b.ctx.blacklist.disable();
});
afterEach(async () => {
  await a.close();
  await b.close();
});

/** WARN lines per address of one kind (message fragment); the line for further addresses apart (key '*'). */
function linesPerAddress(fragment: string): Map<unknown, number> {
  const m = new Map<unknown, number>();
  for (const l of log.lines) {
    if (l.level !== 'warn' || !l.msg.includes(fragment)) continue;
    const key = l.fields.addresses === undefined ? l.fields.ip : '*';
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return m;
}

describe('R66 listener under floods', () => {
  it('serves a new partner, then an authenticated one on fresh connections, during a reconnecting idle flood from 200 addresses', async () => {
    b.ctx.guard = guard({ maxConnections: 150, maxUnauthenticated: 100 });
    // 200 addresses, each socket reopened as soon as it is closed: more than the listener's cap
    // (scaled down from the 1000 slots: the flood runs in the test's own process).
    // Each reconnects 20 ms after its close: the test's own process stays free to run the partner.
    const flood = new IdleFlood(b.listener!.port, loopbackAddresses(200), 1, true, 20).start();
    try {
      await waitFor(() => (b.listener!.gate?.shed ?? 0) > 200, { what: 'the flood filling the listener and being shed', timeoutMs: 20_000 });
      // A partner that never authenticated here before gets through on a connection of its own...
      expect((await sendMessage(a.pool, 'hostb', 'new partner')).answer).toContain('new partner');
      // ...and then 8 messages, each on a new connection (as 8 runs of svc-r66client would).
      let answered = 0;
      for (let i = 0; i < 8; i++) {
        const pool = new ConnectionPool(a.ctx);
        try {
          if ((await sendMessage(pool, 'hostb', `message ${i}`)).answer.includes(`message ${i}`)) answered++;
        } finally {
          await pool.close();
        }
      }
      expect(answered).toBe(8);
      // The first connection, authenticated, was never shed: it still answers.
      expect((await sendMessage(a.pool, 'hostb', 'still here')).answer).toContain('still here');
      // The flood went on the whole time, within the caps.
      expect(flood.opened).toBeGreaterThan(400);
      expect(b.listener!.gate!.open).toBeLessThanOrEqual(150);
      expect(b.listener!.gate!.pendingCount).toBeLessThanOrEqual(100);
    } finally {
      await flood.stop();
    }
    // No log flood: one line per address at most, and at most 50 addresses (+1 line for the rest) a period.
    const shed = linesPerAddress('oldest pending connection closed');
    expect([...shed.values()].every((n) => n === 1)).toBe(true);
    expect(shed.size).toBeLessThanOrEqual(51);
    const refused = linesPerAddress('connection refused');
    expect([...refused.values()].every((n) => n === 1)).toBe(true);
    // Two kinds (shed, refused), each at most 50 addresses and one line for the others.
    expect(log.lines.length).toBeLessThanOrEqual(2 * 51);
  }, 60_000);

  it('refuses beyond maxconnectionsperaddress, logs it once for that address, and serves another address', async () => {
    b.ctx.guard = guard({ maxConnectionsPerAddress: 3 });
    const flood = new IdleFlood(b.listener!.port, ['127.0.0.9'], 20, false).start();
    try {
      await waitFor(() => b.listener!.refusedConnections === 17, { what: '17 refusals' });
      await waitFor(() => flood.openNow === 3, { what: 'the refused sockets closed' });
      expect((await sendMessage(a.pool, 'hostb', 'other address')).answer).toContain('other address');
      const refused = linesPerAddress('connection refused (maxconnectionsperaddress 3 reached)');
      expect(refused.get('127.0.0.9')).toBe(1);
      expect(refused.size).toBe(1);
    } finally {
      await flood.stop();
    }
  });

  it('closes a connection that does not authenticate within handshaketimeout, with one WARN', async () => {
    b.ctx.guard = guard({ handshakeTimeoutMs: 200 });
    const started = Date.now();
    const peers = [await RawPeer.open(b.listener!.port), await RawPeer.open(b.listener!.port)];
    await Promise.all(peers.map((p) => p.closed));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(b.listener!.gate!.deadlineClosed).toBe(2);
    expect(linesPerAddress('not authenticated within handshaketimeout 200 ms').get('127.0.0.1')).toBe(1);
    // An authenticated connection has no deadline.
    expect((await sendMessage(a.pool, 'hostb', 'in time')).answer).toContain('in time');
    await waitFor(() => b.listener!.gate!.pendingCount === 0, { what: 'no pending connection' });
    expect(b.listener!.openConnections).toBe(1);
  });
});
