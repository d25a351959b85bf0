// The live broadcaster (src/web/live.ts): one subscription to the engine's events for all viewers,
// coalesced snapshots, a viewer that does not read is skipped instead of buffered for, ended
// transfers are forgotten, the viewer cap answers 503, and one address (or admin session) cannot take
// every slot (429, issue 32). Real sockets (an HTTP server on loopback).
import { EventEmitter } from 'node:events';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep } from '../../src/model/transfer.js';
import type { Logger } from 'pino';
import { RateLimitedLog } from '../../src/net/rate-log.js';
import { LiveBroadcaster, type TransferEvents } from '../../src/web/live.js';
import { waitFor } from '../helpers/wait.js';
import { transferRecord } from '../helpers/transfer-record.js';

let server: Server | undefined;
let live: LiveBroadcaster | undefined;

afterEach(async () => {
  live?.close();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function serve(b: LiveBroadcaster): Promise<number> {
  server = createServer((req, res: ServerResponse) => {
    const session = req.headers['x-session'];
    b.serve(res, { address: req.socket.remoteAddress ?? '', ...(typeof session === 'string' ? { session } : {}) });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

/** A viewer collecting the events it receives; `pause` stops reading (the socket fills). */
function viewer(port: number, from = '127.0.0.1', session?: string): Promise<{ text: () => string; status: number; pause: () => void; close: () => void }> {
  return new Promise((resolve) => {
    let text = '';
    const req = request({ port, host: '127.0.0.1', localAddress: from, path: '/', headers: session === undefined ? {} : { 'x-session': session } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      resolve({ text: () => text, status: res.statusCode ?? 0, pause: () => res.pause(), close: () => req.destroy() });
    });
    req.end();
  });
}

describe('live broadcaster', () => {
  it('sends coalesced snapshots of running transfers, then their end, to every viewer from one subscription', async () => {
    const engine = new EventEmitter();
    live = new LiveBroadcaster({ intervalMs: 30 });
    live.attach(engine as unknown as TransferEvents);
    expect(engine.listenerCount('progress')).toBe(1);
    const port = await serve(live);
    const [v1, v2] = [await viewer(port), await viewer(port)];
    await waitFor(() => live!.viewerCount === 2);
    const rec = transferRecord(7n, { globalStep: TaskStep.TRANSFERTASK });
    engine.emit('start', rec);
    for (let rank = 1; rank <= 50; rank++) engine.emit('progress', { ref: rec, rank, bytes: rank * 1000, size: 100_000 });
    await waitFor(() => v1.text().includes('"rank":50') && v2.text().includes('"rank":50'));
    // Fifty progress events within one interval give one message, not fifty.
    expect(v1.text().split('event: transfers').length - 1).toBeLessThanOrEqual(2);
    engine.emit('end', { record: { ...rec, globalStep: TaskStep.ALLDONETASK, rank: 50 }, code: ErrorCode.CompleteOk });
    await waitFor(() => v1.text().includes('"end":true'));
    expect(v1.text()).toContain('"key":"7.svc1.partnerA"');
    // A new viewer after the end gets no stale transfer.
    const v3 = await viewer(port);
    await waitFor(() => v3.text().includes('retry:'));
    expect(v3.text()).not.toContain('7.svc1.partnerA');
    for (const v of [v1, v2, v3]) v.close();
  });

  it('skips a viewer that does not read (bounded buffering) and refuses viewers beyond the cap', async () => {
    const engine = new EventEmitter();
    live = new LiveBroadcaster({ intervalMs: 5, maxBuffered: 16 * 1024, maxViewers: 1 });
    live.attach(engine as unknown as TransferEvents);
    const port = await serve(live);
    const slow = await viewer(port);
    slow.pause();
    expect((await viewer(port)).status).toBe(503);
    // The server side of the slow viewer's stream (what the broadcaster writes into).
    const res = await waitFor(() => [...(live as unknown as { viewers: Set<ServerResponse> }).viewers][0]);
    // Many distinct transfers per flush make big messages; the queue stays near the bound.
    let peak = 0;
    for (let round = 0; round < 60; round++) {
      for (let i = 0; i < 50; i++) engine.emit('progress', { ref: { specialId: BigInt(round * 50 + i), requester: 'a'.repeat(100), requested: 'b' }, rank: round, bytes: round, size: 10 });
      await new Promise((r) => setTimeout(r, 6));
      peak = Math.max(peak, res.writableLength);
    }
    // Skipped once past the bound: at most one message more than the bound stays queued.
    expect(peak).toBeLessThan(16 * 1024 + 20_000);
    slow.close();
  });

  it('lets one address, or one session, hold maxPerClient streams; others still get theirs; refusals logged once per address', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = { warn: (fields: Record<string, unknown>) => lines.push(fields) } as unknown as Logger;
    live = new LiveBroadcaster({ maxViewers: 200, maxPerClient: 2, warnings: new RateLimitedLog(logger, 60_000) });
    const port = await serve(live);
    const mine = [await viewer(port), await viewer(port)];
    // The same address asks again and again: 429 each time, one WARN line.
    for (let i = 0; i < 5; i++) expect((await viewer(port)).status).toBe(429);
    expect(lines.filter((l) => l.ip === '127.0.0.1')).toHaveLength(1);
    // Another address is served, and a session spread over addresses is capped too.
    const other = await viewer(port, '127.0.0.2', 'S1');
    expect(other.status).toBe(200);
    expect((await viewer(port, '127.0.0.3', 'S1')).status).toBe(200);
    expect((await viewer(port, '127.0.0.4', 'S1')).status).toBe(429);
    expect(live.viewerCount).toBe(4);
    // A closed stream gives its slot back.
    mine[0]!.close();
    await waitFor(async () => (await viewer(port)).status === 200, { what: 'the slot given back' });
    for (const v of [...mine, other]) v.close();
  });
});
