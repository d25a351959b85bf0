/**
 * The storage seam (src/transfer/file): a local file and the through-mode streams behind one
 * interface, and the receiver's write window over it, failures included.
 */
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/model/error-code.js';
import { R66Error } from '../../../src/net/errors.js';
import { LocalFile } from '../../../src/transfer/file/local-file.js';
import { StreamSink, StreamSource } from '../../../src/transfer/file/stream-file.js';
import { WriteWindow } from '../../../src/transfer/file/write-window.js';
import { patternBytes } from '../../helpers/hosts.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-storage-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function takesDirect(where: string): boolean {
  try {
    closeSync(openSync(path.join(where, 'probe'), fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_DIRECT));
    return true;
  } catch {
    return false;
  }
}

describe('LocalFile', () => {
  it('writes runs at their positions, reads them back, cuts and reports its size', async () => {
    const file = path.join(dir, 'plain.bin');
    const created = await open(file, 'wx+');
    const storage = await LocalFile.forReceiving(file, created, { direct: false, synced: false });
    const data = patternBytes(300_000, 3);
    await storage.writeAt([data.subarray(100_000, 200_000), data.subarray(200_000)], 100_000, 200_000);
    await storage.writeAt([data.subarray(0, 100_000)], 0, 100_000);
    await storage.sync(data.length);
    expect(await storage.size()).toBe(data.length);
    const back = [Buffer.alloc(65536), Buffer.alloc(65536)];
    expect(await storage.readAt(back, 1000)).toBe(131072);
    expect(Buffer.concat(back).equals(data.subarray(1000, 1000 + 131072))).toBe(true);
    await storage.truncate(250_000);
    await storage.close();
    await storage.close();
    expect((await readFile(file)).equals(data.subarray(0, 250_000))).toBe(true);
  });

  it('direct writes: the padding of a short last run is cut at the sync with the data end', async () => {
    const file = path.join(dir, 'direct.bin');
    const created = await open(file, 'wx');
    const storage = await LocalFile.forReceiving(file, created, { direct: true, synced: false });
    const data = patternBytes((1 << 20) + 1234, 5);
    await storage.writeAt([data.subarray(0, 1 << 20)], 0, 1 << 20);
    await storage.writeAt([data.subarray(1 << 20)], 1 << 20, 1234);
    if (takesDirect(dir)) expect(await storage.size()).toBe((1 << 20) + 4096);
    await storage.sync(data.length);
    await storage.close();
    expect((await readFile(file)).equals(data)).toBe(true);
  });

  it('reads a file for the sender; a reopened work file is written in place', async () => {
    const file = path.join(dir, 'again.bin');
    await writeFile(file, patternBytes(10_000, 7));
    const again = await LocalFile.forReceiving(file, null, { direct: true, synced: true });
    // Reopened (not created here): neither direct nor synced writes.
    expect(again.syncsEachWrite).toBe(false);
    await again.writeAt([Buffer.from('abc')], 5000, 3);
    await again.close();
    const reader = await LocalFile.openForReading(file);
    const b = Buffer.alloc(3);
    expect(await reader.readAt([b], 5000)).toBe(3);
    expect(b.toString()).toBe('abc');
    await reader.close();
  });
});

describe('StreamSource and StreamSink', () => {
  it('a source is read in order across chunk boundaries, and refuses a rewind', async () => {
    const source = new StreamSource(Readable.from([Buffer.from('hello '), Buffer.from('through '), 'world']));
    const a = Buffer.alloc(4);
    const b = Buffer.alloc(100);
    expect(await source.readAt([a], 0)).toBe(4);
    expect(await source.readAt([b], 4)).toBe(15);
    expect(a.toString() + b.subarray(0, 15).toString()).toBe('hello through world');
    await expect(source.readAt([a], 0)).rejects.toThrow(/reads its stream in order/);
    await expect(source.writeAt()).rejects.toMatchObject({ code: ErrorCode.PassThroughMode });
    await source.close();
  });

  it('a sink takes the writes in order, counts them, refuses a rewind, and is ended by close', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const sink = new StreamSink(out);
    await sink.writeAt([Buffer.from('one '), Buffer.from('two ')], 0, 8);
    await sink.writeAt([Buffer.from('three')], 8, 5);
    expect(await sink.size()).toBe(13);
    const rewind = await sink.writeAt([Buffer.from('x')], 4, 1).catch((e: unknown) => e);
    expect(rewind).toBeInstanceOf(R66Error);
    expect((rewind as R66Error).code).toBe(ErrorCode.TransferError);
    const ended = new Promise((resolve) => out.on('end', resolve));
    await sink.close();
    await ended;
    expect(Buffer.concat(chunks).toString()).toBe('one two three');
  });

  it('a sink aborted after a failure is destroyed, not ended', async () => {
    const out = new PassThrough();
    const sink = new StreamSink(out);
    await sink.abort(new Error('the transfer ended in error'));
    expect(out.destroyed).toBe(true);
    expect(out.writableFinished).toBe(false);
  });
});

describe('WriteWindow', () => {
  it('after a failed write, every later call fails at once (no pump restarted, no hang)', async () => {
    const failing = new Writable({ write: (_chunk, _enc, done) => done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) });
    failing.on('error', () => undefined);
    const window = new WriteWindow(new StreamSink(failing));
    await window.write(Buffer.alloc(1000), 0);
    await expect(window.drain()).rejects.toThrow(/ENOSPC/);
    await expect(window.write(Buffer.alloc(1000), 1000)).rejects.toThrow(/ENOSPC/);
    // The block refused above is not queued; a drain or written() right after still settles.
    await expect(window.drain()).rejects.toThrow(/ENOSPC/);
    await expect(window.written()).rejects.toThrow(/ENOSPC/);
  });

  it('writes consecutive blocks together and in order', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const window = new WriteWindow(new StreamSink(out));
    const data = patternBytes(5 * 65536, 9);
    for (let i = 0; i < 5; i++) await window.write(data.subarray(i * 65536, (i + 1) * 65536), i * 65536);
    await window.drain();
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });
});
