// Sockets reading into the shared buffer (src/net/socket-reads.ts). adoptAccepted() takes the
// handle of a socket net.Server accepted, which Node's public API does not offer: these tests say
// at once if a Node version stops allowing it.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { adoptAccepted, connectOptions, sharedReadCounters, SocketReads } from '../../src/net/socket-reads.js';
import { waitFor } from '../helpers/wait.js';

describe('socket reads into the shared buffer', () => {
  it('an accepted socket, adopted, reads through SocketReads, writes, closes, and frees the server', async () => {
    const got: Buffer[] = [];
    const adopted: Socket[] = [];
    const server = createServer({ pauseOnConnect: true }, (accepted) => {
      const reads = new SocketReads();
      const socket = adoptAccepted(accepted, reads);
      expect(socket).not.toBeNull();
      adopted.push(socket!);
      reads.attach((chunk) => {
        // Only valid during the call: kept as a copy.
        got.push(Buffer.from(chunk));
        socket!.write(`echo ${chunk.length};`);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const before = sharedReadCounters.reads;
    const client = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' });
    await once(client, 'connect');
    let answers = '';
    client.on('data', (d: Buffer) => (answers += d.toString()));
    const payload = Buffer.alloc(700_000, 0x61);
    client.write(payload);
    await waitFor(() => Buffer.concat(got).length === payload.length, { what: 'the payload at the server' });
    expect(Buffer.concat(got).equals(payload)).toBe(true);
    expect(sharedReadCounters.reads).toBeGreaterThan(before);
    await waitFor(() => answers.split(';').filter(Boolean).reduce((n, a) => n + Number(a.slice(5)), 0) === payload.length, { what: 'the echoes' });
    expect(adopted[0]!.remoteAddress).toBe('127.0.0.1');
    const closed = once(adopted[0]!, 'close');
    client.end();
    await waitFor(() => adopted[0]!.readableEnded, { what: 'the end at the server' });
    adopted[0]!.end();
    await closed;
    // The server counts no connection any more: close() calls back.
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a connecting socket reads through SocketReads; bytes before attach() are kept and handed over', async () => {
    const server = createServer((s) => s.end(Buffer.alloc(300_000, 0x62)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const reads = new SocketReads();
    const client = connect(connectOptions({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' }, reads));
    await once(client, 'connect');
    // Attached late: whatever came first was copied and waits.
    await new Promise((r) => setImmediate(r));
    const got: Buffer[] = [];
    reads.attach((chunk) => got.push(Buffer.from(chunk)));
    await once(client, 'end');
    expect(Buffer.concat(got).equals(Buffer.alloc(300_000, 0x62))).toBe(true);
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
