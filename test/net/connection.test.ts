import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { Connection } from '../../src/net/connection.js';
import { encodeEnvelopeFrame, NOCHANNEL } from '../../src/protocol/index.js';
import { waitFor } from '../helpers/wait.js';
import { makeHost, makePair, silent, type TestHost } from './harness.js';
import { RawPeer } from './raw-peer.js';

describe('connection timers: KeepAlive when idle, idle close', () => {
  const hosts: TestHost[] = [];
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.close();
  });

  it('sends a KeepAlive after timeoutcon of silence, then closes an unused connection after about 2 x timeoutcon', async () => {
    const b = await makeHost('hostb', [], { listen: true, timeoutConMs: 100 });
    hosts.push(b);
    // Before the connection: the server's timers start when it accepts, before open() returns.
    const started = Date.now();
    const peer = await RawPeer.open(b.listener!.port);
    const first = await peer.next();
    expect(first!.frame.dstId).toBe(NOCHANNEL);
    expect(first!.packet).toEqual({ kind: 'keepAlive', way: 0 });
    expect(await peer.next()).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('drops an idle pooled connection and reconnects on the next use', async () => {
    const { a, b } = await makePair({ timeoutConMs: 100 });
    hosts.push(a, b);
    await sendMessage(a.pool, 'hostb', 'one');
    expect(a.pool.size).toBe(1);
    await waitFor(() => a.pool.size === 0, { what: 'the idle connection to close' });
    expect((await sendMessage(a.pool, 'hostb', 'two')).answer).toBe('TestPacket: MSG:two:101');
  });
});

describe('back-pressure', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  it('holds writers while the socket is above its high-water mark and releases them on drain', async () => {
    let peerSocket: Socket | undefined;
    server = createServer((s) => {
      peerSocket = s;
      s.pause();
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const socket = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' });
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const conn = new Connection(socket, { isTls: false, timeoutConMs: 30_000, logger: silent });
    const block = Buffer.alloc(256 * 1024, 7);
    const frame = encodeEnvelopeFrame(1, 2, { type: 3, header: Buffer.alloc(4), middle: block, end: Buffer.alloc(0) });
    let pending: Promise<void> | undefined;
    let written = 0;
    for (let i = 0; i < 400 && pending === undefined; i++) {
      let settled = false;
      const p = conn.writeFrame(frame).then(() => {
        settled = true;
      });
      await Promise.resolve();
      await Promise.resolve();
      written++;
      if (!settled) pending = p;
    }
    expect(pending).toBeDefined();
    // Only about one frame sits in our buffer beyond the mark: we never queued the whole loop.
    expect(socket.writableLength).toBeLessThanOrEqual(socket.writableHighWaterMark + frame.length);
    expect(written).toBeLessThan(400);
    peerSocket!.resume();
    await pending;
    conn.close();
    await conn.closed;
  });
});

describe('read flow control', () => {
  it('stops reading the socket while a channel has a long unread backlog, and reads again once it is drained', async () => {
    const { a, b } = await makePair();
    try {
      const { channel } = await a.pool.openChannel('hostb');
      const conn = channel.connection;
      // hostb answers each Test with the next counter; 60 Tests from counter 0 fill our queue.
      for (let i = 0; i < 60; i++) await channel.send({ kind: 'test', header: 'MSG', middle: `m${i}`, counter: 0 });
      await waitFor(() => conn.isReadPaused, { what: 'reading to pause' });
      const got: string[] = [];
      while (got.length < 60) {
        const p = await channel.receive(5_000);
        if (p.kind === 'test') got.push(p.middle);
      }
      expect(conn.isReadPaused).toBe(false);
      expect(got[59]).toBe('m59');
      channel.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
