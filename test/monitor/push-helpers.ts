/** A SQLite store with RUNNER rows, and a real HTTP(S) receiver that records what it gets. */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttp, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps, type ServerOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { openStore, parseJdbcUrl, type Store } from '../../src/store/index.js';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  socket: Socket;
  /** The client certificate's subject CN (https with requestCert). */
  clientCn?: string;
}

export interface Receiver {
  readonly port: number;
  readonly received: Received[];
  /** What the next requests get (status, body): 200 by default. */
  answer: (r: Received) => { status: number; body?: string; headers?: Record<string, string> };
  close(): Promise<void>;
  /** Listens again on the same port (after close: the receiver "comes back"). */
  reopen(): Promise<void>;
}

export async function startReceiver(tls?: ServerOptions, port = 0): Promise<Receiver> {
  const received: Received[] = [];
  let server: Server;
  const receiver: Receiver = {
    port: 0, received, answer: () => ({ status: 200 }),
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
    reopen: async () => { await listen(receiver.port); },
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const peer = (req.socket as Socket & { getPeerCertificate?: () => { subject?: { CN?: string } } }).getPeerCertificate?.();
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw.toString('utf8'), socket: req.socket, ...(peer?.subject?.CN ? { clientCn: peer.subject.CN } : {}) };
      received.push(r);
      const a = receiver.answer(r);
      res.writeHead(a.status, { 'Content-Type': 'application/json', ...a.headers });
      res.end(a.body ?? '{}');
    });
  };
  const listen = async (p: number): Promise<void> => {
    server = tls ? createHttps(tls, handle) : createHttp(handle);
    await new Promise<void>((resolve) => server.listen(p, '127.0.0.1', resolve));
    (receiver as { port: number }).port = (server.address() as AddressInfo).port;
  };
  await listen(port);
  return receiver;
}

export async function tempStore(hostId: string): Promise<{ store: Store; dir: string; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-push-'));
  const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${path.join(dir, 'db.sqlite')}`), { hostId });
  await store.initSchema({ hostId });
  return { store, dir, close: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
}
